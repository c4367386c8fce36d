"""An append killed (SIGKILL) at any point leaves the old store, byte for byte and valid, or a
journal that running the same append again completes into exactly the uninterrupted result."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import chronozarr
from chronozarr.format.append_rule import APPEND_STAGING_MARK
from chronozarr.write import crashpoints, journal
from conftest import make_series
from append_helpers import file_hashes
from kill_helpers import count_steps, killed

CRS = "EPSG:32631"
LAYOUTS = {
    "unsharded": {"encoding": "star-delta", "anchor_interval": 2},
    "sharded": {"encoding": "star-delta", "anchor_interval": 2, "shard": True, "shard_time": 2},
}


def _base(tmp_path: Path, options: dict):
    full = make_series(n_time=5, n_band=2, height=20, width=20, seed=11)
    mask = (full.isel(band=0) % 3 != 0).astype("uint8").drop_vars("band")
    base = tmp_path / "base"
    chronozarr.encode(full[:3], base, crs=CRS, chunk_size=16, mask=mask[:3], **options)
    return base, full, mask


def _run_killed(store: Path, full, mask, kill_after: int) -> bool:
    """Fork a child that appends with the kill hook armed; True when it was killed."""
    return killed(lambda: chronozarr.append(store, full[3:5], mask=mask[3:5], workers=2, fsync=False), kill_after)


def _steps(store: Path, full, mask) -> int:
    """Steps of one uninterrupted append (counted with the hook armed but never reached)."""
    return count_steps(lambda: chronozarr.append(store, full[3:5], mask=mask[3:5], workers=2, fsync=False))


def _check_after_kill(store: Path, old: dict[str, str], final: dict[str, str], full, mask) -> str:
    """The invariant after a kill, then the rerun; returns which state the kill left."""
    visible = file_hashes(store, sidecars=False)
    if not (store / journal.JOURNAL).exists():
        if visible == final:
            state = "complete"
        else:
            assert visible == old, "without a journal the store must be exactly the old one"
            report = chronozarr.validate(store, sample_pyramid=False)
            assert report.ok, str(report)
            with chronozarr.open_dataset(store) as s:
                assert len(s.times) == 3
            state = "old"
    else:
        state = "committed"
        report = chronozarr.validate(store, sample_pyramid=False)  # says so, instead of failing on the landed objects
        assert report.ok and any("append was interrupted" in f.message for f in report.warnings), str(report)
    if state != "complete":
        summary = chronozarr.append(store, full[3:5], mask=mask[3:5], fsync=False)
        assert summary.resumed == (state == "committed")
    assert file_hashes(store) == final, "rerunning the append ends in the uninterrupted result"
    return state


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_kill_at_many_steps(tmp_path: Path, layout: str) -> None:
    base, full, mask = _base(tmp_path, LAYOUTS[layout])
    old = file_hashes(base)
    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    total = _steps(reference, full, mask)
    final = file_hashes(reference)
    assert not any(k.startswith(".chronozarr") for k in final)
    states = set()
    work = tmp_path / "work"
    # Every step would take minutes on a slow disk: a stride through staging, commit and moves,
    # plus the first and last steps, covers each phase.
    points = sorted(set(range(1, total + 1, max(1, total // 10))) | {1, 2, total - 2, total - 1, total})
    for kill_after in points:
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base, work)
        assert _run_killed(work, full, mask, kill_after)
        states.add(_check_after_kill(work, old, final, full, mask))
    assert {"old", "committed"} <= states


def test_kill_during_the_resume_too(tmp_path: Path) -> None:
    """A crash while a rerun replays the journal is replayed again by the next run."""
    base, full, mask = _base(tmp_path, LAYOUTS["sharded"])
    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    total = _steps(reference, full, mask)
    final = file_hashes(reference)
    work = tmp_path / "work"
    shutil.copytree(base, work)
    assert _run_killed(work, full, mask, total - 3)  # inside the moves
    assert (work / journal.JOURNAL).exists()
    assert _run_killed(work, full, mask, 2)  # the replay dies after two more moves
    chronozarr.append(work, full[3:5], mask=mask[3:5], fsync=False)
    assert file_hashes(work) == final


def test_a_staging_area_or_temporary_journal_the_append_did_not_write_is_refused_and_kept(tmp_path: Path) -> None:
    """Only what an append wrote is removed before the next one: a staging area without the mark
    a StagingWriter writes first, or a temporary journal that is not the start of a journal, is
    named in the error and left as it was."""
    base, full, mask = _base(tmp_path, LAYOUTS["unsharded"])
    foreign = base / journal.STAGING / "notes.txt"
    foreign.parent.mkdir()
    foreign.write_text("mine")
    with pytest.raises(chronozarr.StoreError, match=r"chronozarr-append-staging holds 1 object.*did not stage"):
        chronozarr.append(base, full[3:4], mask=mask[3:4], fsync=False)
    assert foreign.read_text() == "mine"
    shutil.rmtree(foreign.parent)
    (base / journal.STAGING).write_text("a file at the staging area's name")
    with pytest.raises(chronozarr.StoreError, match="did not stage"):
        chronozarr.append(base, full[3:4], mask=mask[3:4], fsync=False)
    (base / journal.STAGING).unlink()
    temporary = base / f"{journal.JOURNAL}.tmp"
    temporary.write_text('{"something": "else"}')
    with pytest.raises(chronozarr.StoreError, match="is not a journal chronozarr append wrote"):
        chronozarr.append(base, full[3:4], mask=mask[3:4], fsync=False)
    assert temporary.read_text() == '{"something": "else"}'


def test_what_an_append_left_before_committing_is_removed(tmp_path: Path) -> None:
    """An empty staging area (killed before its mark), one with the mark, and a half-written
    temporary journal are an append's own leftovers: the next append clears them and lands as an
    append into a clean store does."""
    base, full, mask = _base(tmp_path, LAYOUTS["unsharded"])
    reference, empty, marked = (tmp_path / name for name in ("reference", "empty", "marked"))
    for copy in (reference, empty, marked):
        shutil.copytree(base, copy)
    chronozarr.append(reference, full[3:4], mask=mask[3:4], fsync=False)
    (empty / journal.STAGING).mkdir()
    staging = marked / journal.STAGING
    (staging / "0" / "data").mkdir(parents=True)
    (staging / APPEND_STAGING_MARK).write_text("")
    (staging / "0" / "data" / "leftover").write_bytes(b"x")
    (marked / f"{journal.JOURNAL}.tmp").write_text('{"chronozarr_append_jou')
    for store in (empty, marked):
        chronozarr.append(store, full[3:4], mask=mask[3:4], fsync=False)
        assert not (store / journal.STAGING).exists() and not (store / f"{journal.JOURNAL}.tmp").exists()
        assert file_hashes(store) == file_hashes(reference)


SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import chronozarr
from conftest import make_series
full = make_series(n_time=5, n_band=2, height=20, width=20, seed=11)
mask = (full.isel(band=0) % 3 != 0).astype("uint8").drop_vars("band")
print("ready", flush=True)
chronozarr.append({store!r}, full[3:5], mask=mask[3:5])
"""


def test_kill_a_real_subprocess(tmp_path: Path) -> None:
    """The environment hook in a fresh interpreter, and a kill from outside at a random moment."""
    base, full, mask = _base(tmp_path, LAYOUTS["unsharded"])
    old = file_hashes(base)
    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    total = _steps(reference, full, mask)
    final = file_hashes(reference)
    tests = str(Path(__file__).resolve().parents[1])
    work = tmp_path / "work"
    for kill_after in (total // 3, total - 2):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base, work)
        env = {**os.environ, crashpoints.KILL_ENV: str(kill_after)}
        run = subprocess.run([sys.executable, "-c", SCRIPT.format(tests=tests, store=str(work))], env=env, capture_output=True)
        assert run.returncode == -signal.SIGKILL, run.stderr.decode()
        _check_after_kill(work, old, final, full, mask)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base, work)
    child = subprocess.Popen([sys.executable, "-c", SCRIPT.format(tests=tests, store=str(work))], stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait()
    _check_after_kill(work, old, final, full, mask)
