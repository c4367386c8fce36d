"""Where a store goes: a URL is never a local path, and a full or read-only disk ends in one error
line naming the path and the fix, with nothing that looks like a store left behind (encode) or
the old store untouched (append)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import chronozarr
from conftest import make_series

CLI = str(Path(sys.executable).with_name("chronozarr"))
SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from conftest import make_series
make_series(n_time={n_time}, n_band=2, height=200, width=180, seed=3)[{first}:].to_dataset(name="data").to_zarr({path!r}, zarr_format=3, consolidated=True)
"""
HASHES = """
import hashlib, json, os, sys
root = sys.argv[1]
print(json.dumps({
    os.path.relpath(os.path.join(d, n), root): hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
    for d, _, names in os.walk(root) for n in names if ".chronozarr" not in os.path.relpath(os.path.join(d, n), root)
}))
"""


@pytest.mark.parametrize("url", ["ftp://host/store", "http://example.org/store.zarr", "file2://x/y"])
def test_a_url_is_never_written_as_a_local_path(tmp_path, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(chronozarr.OutputError, match=r"s3://, gs:// or az://"):
        chronozarr.encode(make_series(), url, crs="EPSG:32631", chunk_size=16)
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_storage_option_is_refused_before_anything_is_written():
    with pytest.raises(chronozarr.OutputError, match=r"storage options config, retries are not known for gs://b/x: give endpoint, region, anonymous"):
        chronozarr.encode(make_series(), "gs://b/x", crs="EPSG:32631", chunk_size=16, storage_options={"config": {}, "retries": 2})


def _source(tmp_path: Path, n_time: int, name: str, first: int = 0) -> Path:
    """A Zarr input with timesteps first..n_time-1 of one series (so a later batch appends)."""
    path = tmp_path / name
    script = SCRIPT.format(tests=str(Path(__file__).parents[1]), n_time=n_time, first=first, path=str(path))
    subprocess.run([sys.executable, "-c", script], check=True)
    return path


def _in_small_disk(command: list[str], disk: Path, size: str, read_only: bool = False) -> subprocess.CompletedProcess:
    """Run command in a private mount namespace where `disk` is a tmpfs of `size` (then read-only)."""
    disk.mkdir(exist_ok=True)
    remount = f" && mount -o remount,ro {disk}" if read_only else ""
    quoted = " ".join(f"'{c}'" for c in command)
    script = f"mount -t tmpfs -o size={size} chronozarr-test {disk}{remount} && exec {quoted}"
    if not shutil.which("unshare"):
        pytest.fail("the disk-full tests need util-linux's unshare (Debian: util-linux)")
    return subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True)


def _one_error_line(run: subprocess.CompletedProcess, *words: str) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    # Off a terminal the phase that was under way announced itself first (`appending: ... ...`).
    lines = [line for line in run.stderr.splitlines() if line.strip() and not line.endswith(" ...")]
    assert len(lines) == 1 and lines[0].startswith("error:"), run.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_encode_on_a_full_disk_says_so_and_leaves_no_store(tmp_path):
    source = _source(tmp_path, 3, "source.zarr")
    disk = tmp_path / "disk"
    out = disk / "store"
    run = _in_small_disk([CLI, "encode", str(source), str(out), "--crs", "EPSG:32631", "--chunk-size", "16", "--variable", "data"], disk, "64k")
    _one_error_line(run, "disk is full", str(disk), "--resume")
    assert not (out / "zarr.json").exists()


def test_encode_on_a_read_only_disk_says_so(tmp_path):
    source = _source(tmp_path, 3, "source.zarr")
    disk = tmp_path / "disk"
    run = _in_small_disk([CLI, "encode", str(source), str(disk / "store"), "--crs", "EPSG:32631", "--variable", "data"], disk, "1m", read_only=True)
    _one_error_line(run, "read-only", str(disk))


def test_append_on_a_full_disk_leaves_the_old_store(tmp_path):
    """The old store fills most of a small disk, then the append runs out of space while staging:
    error line, exit 2, every old object unchanged."""
    import json

    base = tmp_path / "base"
    chronozarr.encode(make_series(n_time=5, n_band=2, height=200, width=180, seed=3)[:3], base, crs="EPSG:32631", chunk_size=64, progress=False)
    used_kb = int(subprocess.run(["du", "-sk", str(base)], capture_output=True, text=True, check=True).stdout.split()[0])
    batch = _source(tmp_path, 5, "batch.zarr", first=3)
    hashes = tmp_path / "hashes.py"
    hashes.write_text(HASHES)
    disk = tmp_path / "disk"
    disk.mkdir()
    store = disk / "store"
    script = " && ".join([
        f"mount -t tmpfs -o size={used_kb + 48}k chronozarr-test {disk}",
        f"cp -r {base} {store}",
        f"{sys.executable} {hashes} {store} > {tmp_path}/before.json",
        f"{{ {CLI} append {store} {batch} --variable data 2> {tmp_path}/err.txt; echo $? > {tmp_path}/rc.txt; }}",
        f"{sys.executable} {hashes} {store} > {tmp_path}/after.json",
    ])
    subprocess.run(["unshare", "-rm", "sh", "-c", script], check=True)
    err = (tmp_path / "err.txt").read_text()
    assert (tmp_path / "rc.txt").read_text().strip() == "2", err
    # Off a terminal the phase that was under way announced itself first (`appending: ... ...`).
    said = [line for line in err.splitlines() if line.strip() and not line.endswith(" ...")]
    assert "Traceback" not in err and len(said) == 1 and said[0].startswith("error:") and "disk is full" in said[0], err
    assert json.loads((tmp_path / "after.json").read_text()) == json.loads((tmp_path / "before.json").read_text())


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_cleanup_removes_nothing_from_an_output_without_this_runs_record(tmp_path: Path) -> None:
    """discard_claim removes a failed run's members only when the output holds the run record an
    encode writes first; without it (a store the user put there, whose names are a store's) every
    file stays. With the record, the members and the scratch entry go and a stranger's file stays."""
    from chronozarr.write.claim import Claim, discard_claim
    from chronozarr.write.output import open_output
    from chronozarr.write.resume import RUN, ResumeLog, RunRecord

    root = tmp_path / "out"
    for name in ("zarr.json", "0/zarr.json", "0/data/c/0/0/0/0", "volatility/zarr.json", "notes.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"the user's")
    output = open_output(root)
    before = _files(root)
    discard_claim(output, Claim(started=True, created=False), ("zarr.json", "0", "volatility"), ResumeLog(output))
    assert _files(root) == before
    (root / RUN).parent.mkdir(parents=True)
    (root / RUN).write_text("not json")
    discard_claim(output, Claim(started=True, created=False), ("zarr.json", "0", "volatility"), ResumeLog(output))
    assert _files(root) == sorted([*before, RUN])
    (root / RUN).unlink()
    ResumeLog(output).start(RunRecord({"encoding": "none"}, {"shape": [1, 1, 2, 2]}, 1))
    discard_claim(output, Claim(started=True, created=False), ("zarr.json", "0", "volatility"), ResumeLog(output))
    assert _files(root) == ["notes.txt"]
