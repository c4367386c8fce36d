"""A store from a stranger: every flaw in tests/hostile_stores.py ends as the reader's own error
naming the object, within a deadline and without memory growing past what the metadata implies,
measured in a child process. Validation reports the same flaws instead of calling the store valid."""

from __future__ import annotations

from pathlib import Path

import pytest
from bounded import run_bounded
from hostile_stores import BASES, CASES, CHUNK_KEY, build_base, build_case

import chronozarr

# A read of one 2 KiB chunk may grow the reader's peak memory by its threads and buffers, not by
# what a stored object claims (the zstd case claims 512 MiB).
GROWTH_BOUND = 64 * 2**20
DEADLINE = 30.0


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bases")
    out = {}
    for name in BASES:
        build_base(root / name, name)
        out[name] = root / name
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_store_ends_in_our_error_naming_it_within_bounds(bases, tmp_path, name):
    case = CASES[name]
    store = build_case(tmp_path, name, bases)
    call = case.read.format(t=case.t)
    setup = f"import chronozarr\nstore = chronozarr.open_dataset({str(store)!r})" if case.phase == "read" else "import chronozarr"
    action = f"chronozarr.open_dataset({str(store)!r}).{call}" if case.phase == "open" else f"store.{call}"
    ending = run_bounded(setup, action, timeout=DEADLINE)
    assert ending.outcome == "error", f"{name}: {ending}"
    assert ending.ours, f"{name}: {ending.fields['module']}.{ending.fields['type']}: {ending.message}"
    assert case.message in ending.message, ending.message
    assert ending.fields["during"] == "action", ending.message
    assert ending.growth is not None and ending.growth < GROWTH_BOUND, f"{name}: peak memory grew {ending.growth} bytes"


@pytest.mark.parametrize("name", ["chunk_is_a_fifo", "chunk_is_dev_zero", "chunk_is_a_directory", "shard_entry_repeats", "shard_entry_overlaps", "huge_sharded_shape"])
def test_validate_reports_the_flaw_within_the_deadline(bases, tmp_path, name):
    store = build_case(tmp_path, name, bases)
    ending = run_bounded(
        "import chronozarr",
        f"r = chronozarr.validate({str(store)!r})\nassert not r.ok, 'valid'\nraise chronozarr.StoreError(r.to_text())",
        timeout=DEADLINE,
    )
    assert ending.outcome == "error" and ending.ours, ending
    assert CASES[name].message in ending.message, ending.message
    if name.startswith("chunk_is"):
        assert CHUNK_KEY in ending.message, ending.message



@pytest.mark.parametrize("name", sorted(CASES))
def test_the_cli_reports_a_hostile_store_in_one_line_or_findings_never_a_traceback(bases, tmp_path, name):
    import subprocess
    import sys

    store = build_case(tmp_path, name, bases)
    script = Path(sys.executable).parent / "chronozarr"
    info = subprocess.run([script, "info", str(store)], capture_output=True, text=True, timeout=DEADLINE)
    assert "Traceback" not in info.stderr, info.stderr
    if CASES[name].phase == "open":
        assert info.returncode == 2, info.stdout + info.stderr
        lines = info.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and CASES[name].message in lines[0], info.stderr
    validate = subprocess.run([script, "validate", str(store)], capture_output=True, text=True, timeout=DEADLINE)
    assert "Traceback" not in validate.stderr, validate.stderr
    assert validate.returncode == (0 if CASES[name].layout_valid else 1), validate.stdout + validate.stderr


@pytest.mark.parametrize("key", ["0/band/c/0", "0/time/c/0", "0/x/c/0", "volatility/c/0/0"])
def test_validate_decodes_a_bomb_in_a_small_array_within_the_array_s_shape(bases, tmp_path, key):
    """A coordinate, time or volatility chunk that is a 2 GiB zstd frame declaring no size: validate
    reports the chunk without allocating what the frame claims."""
    import shutil

    from hostile_stores import streamed_zstd_bomb

    store = tmp_path / "store"
    shutil.copytree(bases["star"], store)
    (store / key).write_bytes(streamed_zstd_bomb(2 * 2**30))
    ending = run_bounded(
        "import chronozarr",
        f"r = chronozarr.validate({str(store)!r})\nassert not r.ok, 'valid'\nraise chronozarr.StoreError(r.to_text())",
        timeout=DEADLINE,
    )
    assert ending.outcome == "error" and ending.ours, ending
    assert key in ending.message and "zstd" in ending.message, ending.message
    assert ending.growth is not None and ending.growth < GROWTH_BOUND, f"{key}: peak memory grew {ending.growth} bytes"
