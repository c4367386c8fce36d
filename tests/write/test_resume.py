"""An encode killed at any point is completed by the same encode with resume=True, object for object
identical to the stores an uninterrupted run writes (the hashes committed in store_hashes.json);
another input or other options are refused, naming what differs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import chronozarr
from chronozarr.write import crashpoints
from kill_helpers import count_steps, killed
from store_matrix import CASES, HASHES, encode_case, object_hashes, series

EXPECTED = json.loads(HASHES.read_text())
RESUMED_CASES = ["auto-unsharded", "delta-sharded", "uint8-mask-coverage-delta"]
BLOCK = 4  # three phases of several units each at chunk size 16
SCRATCH = ".chronozarr-encode"


def _killed_encode(name: str, out: Path, kill_after: int) -> bool:
    """Fork a child that encodes with the kill hook armed; True when it was killed."""
    return killed(lambda: encode_case(name, out, block_size=BLOCK, workers=2), kill_after)


def _steps(name: str, out: Path) -> int:
    """Write steps of one uninterrupted encode (hook armed, never reached)."""
    return count_steps(lambda: encode_case(name, out, block_size=BLOCK, workers=2))


def _tear_newest_object(out: Path) -> bool:
    """Cut the newest object in half when no unit record is newer (a torn write of an unfinished
    unit, as a kill in the middle of a write leaves); True when it did."""
    files = [p for p in out.rglob("*") if p.is_file()]
    records = [p.stat().st_mtime_ns for p in files if SCRATCH in p.parts and p.parent.name == "units"]
    objects = [p for p in files if SCRATCH not in p.parts and p.name != "zarr.json" and p.stat().st_size > 1]
    if not objects:
        return False
    newest = max(objects, key=lambda p: p.stat().st_mtime_ns)
    if records and max(records) >= newest.stat().st_mtime_ns:
        return False
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    return True


@pytest.mark.parametrize("name", RESUMED_CASES)
def test_a_kill_at_any_point_is_completed_by_resume(tmp_path, name):
    total = _steps(name, tmp_path / "reference")
    assert object_hashes(tmp_path / "reference") == EXPECTED[name]
    points = sorted(set(np.linspace(1, total, 9).astype(int).tolist() + [total - 1, total]))
    torn = 0
    for kill_after in points:
        out = tmp_path / f"killed-{kill_after}"
        assert _killed_encode(name, out, kill_after)
        if (out / "zarr.json").exists():
            # the root is written last: a store that has one has every object
            assert {k for k in object_hashes(out) if not k.startswith(SCRATCH)} >= set(EXPECTED[name]) - {"zarr.json"}
        torn += _tear_newest_object(out)
        with pytest.raises(chronozarr.OutputExistsError, match="--resume"):
            encode_case(name, out, block_size=BLOCK)
        encode_case(name, out, block_size=BLOCK, resume=True)
        assert object_hashes(out) == EXPECTED[name], f"killed after step {kill_after} of {total}"
        assert not (out / SCRATCH).exists()
    assert torn >= 2, "no kill point left a torn object to check"


def test_resume_with_other_options_is_refused_naming_them(tmp_path):
    out = tmp_path / "store"
    assert _killed_encode("delta-unsharded", out, 40)
    with pytest.raises(chronozarr.OutputExistsError, match=r"chunk_size: 16 in the first run, 32 now"):
        encode_case("delta-unsharded", out, block_size=BLOCK, chunk_size=32, resume=True)
    with pytest.raises(chronozarr.OutputExistsError, match=r"anchor_interval: 3 in the first run, 2 now"):
        encode_case("delta-unsharded", out, block_size=BLOCK, anchor_interval=2, resume=True)
    with pytest.raises(chronozarr.OutputExistsError, match=r"block_size: 4 in the first run, 2 now"):
        encode_case("delta-unsharded", out, block_size=2, resume=True)
    encode_case("delta-unsharded", out, block_size=BLOCK, resume=True)  # the right command still completes it
    assert object_hashes(out) == EXPECTED["delta-unsharded"]


def test_resume_with_another_input_is_refused(tmp_path):
    out = tmp_path / "store"
    assert _killed_encode("none-unsharded", out, 30)
    da, _ = series(CASES["none-unsharded"])
    other = da.copy(data=da.values + np.uint16(1))
    with pytest.raises(chronozarr.OutputExistsError, match=r"input values: "):
        chronozarr.encode(other, out, crs="EPSG:32633", chunk_size=16, encoding="none", block_size=BLOCK, resume=True)
    shorter = da[:-1]
    with pytest.raises(chronozarr.OutputExistsError, match=r"input shape: \[8, 3, 150, 131\] in the first run, \[7, 3, 150, 131\] now"):
        chronozarr.encode(shorter, out, crs="EPSG:32633", chunk_size=16, encoding="none", block_size=BLOCK, resume=True)


def test_resume_on_a_complete_store_or_an_unrelated_directory(tmp_path):
    done = encode_case("one-timestep", tmp_path / "done")
    with pytest.raises(chronozarr.OutputExistsError, match="already holds a complete store"):
        encode_case("one-timestep", done, resume=True)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(chronozarr.OutputExistsError, match="no interrupted encode to resume"):
        encode_case("one-timestep", other, resume=True)
    assert (other / "notes.txt").read_text() == "mine"
    fresh = encode_case("one-timestep", tmp_path / "fresh", resume=True)  # nothing to resume: a plain encode
    assert object_hashes(fresh) == EXPECTED["one-timestep"]


CLI_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from kill_helpers import count_steps, killed
from store_matrix import CASES, series
da, _ = series(CASES["delta-sharded"])
da.to_dataset(name="data").to_zarr({source!r}, zarr_format=3, consolidated=False)
"""


def test_the_cli_resumes_a_killed_subprocess(tmp_path):
    """The environment hook in a fresh interpreter, then a kill from outside at a random moment;
    the same command with --resume completes both."""
    source = tmp_path / "source.zarr"
    subprocess.run([sys.executable, "-c", CLI_SCRIPT.format(tests=str(Path(__file__).parent), source=str(source))], check=True)
    command = [
        str(Path(sys.executable).with_name("chronozarr")), "encode", str(source), "", "--crs", "EPSG:32633", "--chunk-size", "16",
        "--encoding", "star-delta", "--anchor-interval", "3", "--shard", "--shard-time", "3", "--block-size", "4",
        "--variable", "data",
    ]
    reference = tmp_path / "reference"
    subprocess.run([*command[:3], str(reference), *command[4:]], check=True, capture_output=True)
    expected = object_hashes(reference)
    out = tmp_path / "killed"
    env = {**os.environ, crashpoints.KILL_ENV: "25"}
    run = subprocess.run([*command[:3], str(out), *command[4:]], env=env, capture_output=True)
    assert run.returncode == -signal.SIGKILL, run.stderr.decode()
    refused = subprocess.run([*command[:3], str(out), *command[4:]], capture_output=True, text=True)
    assert refused.returncode == 2 and "--resume" in refused.stderr and "Traceback" not in refused.stderr
    subprocess.run([*command[:3], str(out), *command[4:], "--resume"], check=True, capture_output=True)
    assert object_hashes(out) == expected

    out = tmp_path / "killed-outside"
    child = subprocess.Popen([*command[:3], str(out), *command[4:], "--workers", "1"], stderr=subprocess.DEVNULL)
    units = out / SCRATCH / "units"
    while child.poll() is None and not (units.is_dir() and any(units.iterdir())):
        time.sleep(0.005)
    child.send_signal(signal.SIGKILL)  # mid-run: one unit recorded, the next being written
    assert child.wait() == -signal.SIGKILL
    resumed = subprocess.run([*command[:3], str(out), *command[4:], "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert object_hashes(out) == expected
    assert xr.open_zarr(out, group="0", consolidated=False)["data"].shape == (8, 3, 150, 131)
