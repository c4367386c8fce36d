"""encode --history and append: the history array holds level 0's true values chunked along time
(read here by zarr-python, against the source array), its bytes do not depend on how it was
built (append or fresh, killed and resumed, local or on a cluster), and a store without it is
unchanged."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import distributed
import dask.array  # noqa: F401
import numpy as np
import pytest
import zarr

import chronozarr
from conftest import make_series
from kill_helpers import count_steps, killed

CRS = "EPSG:32631"
OPTIONS = {"crs": CRS, "chunk_size": 32, "history": True, "history_time": 8, "progress": False, "workers": 2}
ENCODINGS = {
    "none": {"encoding": "none"},
    "star-delta": {"encoding": "star-delta", "anchor_interval": 3},
    "star-delta-sharded": {"encoding": "star-delta", "anchor_interval": 3, "shard": True, "shard_time": 4},
}


@pytest.fixture(scope="module")
def source():
    """20 timesteps on a 2 x 2 grid of 32-pixel cells (edge cells cut), nodata pixels included."""
    da = make_series(n_time=20, n_band=2, height=40, width=45, seed=21)
    values = da.values.copy()
    values[:, :, :5, :5] = 0
    return da.copy(data=values)


def hashes(root: Path, prefix: str = "") -> dict[str, str]:
    """sha256 of every object below root whose key starts with prefix (scratch entries excluded)."""
    out = {}
    for path in root.rglob("*"):
        key = path.relative_to(root).as_posix()
        if path.is_file() and key.startswith(prefix) and not key.startswith(".chronozarr"):
            out[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def declaration(root: Path) -> dict:
    return json.loads((root / "zarr.json").read_text())["attributes"]["chronozarr"]["history"]


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_the_history_array_holds_the_source_values_chunked_along_time(tmp_path, source, name):
    chronozarr.encode(source, tmp_path / "s", **OPTIONS, **ENCODINGS[name])
    group = zarr.open_group(tmp_path / "s", mode="r")
    history = group["history"]
    assert history.shape == source.shape and history.dtype == source.dtype
    assert history.chunks == (8, 2, 16, 16) and history.shards == (8, 2, 32, 32)
    np.testing.assert_array_equal(history[...], source.values)
    assert list(history.metadata.dimension_names) == ["time", "band", "y", "x"]
    assert history.attrs["_ARRAY_DIMENSIONS"] == ["time", "band", "y", "x"]
    assert "history" in json.loads((tmp_path / "s" / "zarr.json").read_text())["consolidated_metadata"]["metadata"]
    shards = hashes(tmp_path / "s", "history/c/")
    sizes = {key.removeprefix("history/c/"): (tmp_path / "s" / key).stat().st_size for key in shards}
    listed = {f"{k.split('/')[0]}/{k.split('/')[2]}/{k.split('/')[3]}": v for k, v in sizes.items()}
    declared = declaration(tmp_path / "s")
    assert {k: v for k, v in declared.items() if k != "levels"} == {
        "version": "1.3", "path": "history", "time_cap": 8, "chunk_shape": [8, 2, 16, 16],
        "shard_shape": [8, 2, 32, 32], "shard_bytes": listed,
    }
    assert list(declared["levels"]) == ["1"]  # level 1 (20 x 23) is the last: its grid is 1 x 1
    assert len(listed) == 3 * 2 * 2  # ceil(20 / 8) time blocks x the level-0 grid


def test_read_point_equals_the_source_at_random_pixels(tmp_path, source):
    chronozarr.encode(source, tmp_path / "s", **OPTIONS, **ENCODINGS["star-delta"])
    rng = np.random.default_rng(3)
    with chronozarr.open_dataset(tmp_path / "s") as store:
        assert store.history is not None
        for y, x in zip(rng.integers(0, 40, 12), rng.integers(0, 45, 12), strict=True):
            np.testing.assert_array_equal(store.read_point(int(y), int(x)), source.values[:, :, y, x])
        np.testing.assert_array_equal(store.read_point(39, 44, times=[17, 2, 9]), source.values[[17, 2, 9], :, 39, 44])


def test_the_default_time_cap_is_n_time_rounded_up_to_a_power_of_two(tmp_path, source):
    chronozarr.encode(source, tmp_path / "s", **(OPTIONS | {"history_time": None}))
    assert declaration(tmp_path / "s")["time_cap"] == 32
    assert len(declaration(tmp_path / "s")["shard_bytes"]) == 4


@pytest.mark.parametrize(("n_time", "cap"), [(1, 1), (3, 4)])
def test_a_short_series_gets_a_time_cap_of_its_length_rounded_up_not_16(tmp_path, source, n_time, cap):
    chronozarr.encode(source[:n_time], tmp_path / "s", **(OPTIONS | {"history_time": None}), **ENCODINGS["star-delta"])
    assert declaration(tmp_path / "s")["time_cap"] == cap
    history = zarr.open_group(tmp_path / "s", mode="r")["history"]
    assert history.shards == (cap, 2, 32, 32)
    np.testing.assert_array_equal(history[...], source.values[:n_time])
    with chronozarr.open_dataset(tmp_path / "s") as store:
        np.testing.assert_array_equal(store.read_point(39, 44), source.values[:n_time, :, 39, 44])


def test_a_store_with_history_differs_from_one_without_only_by_it(tmp_path, source):
    plain = {k: v for k, v in OPTIONS.items() if not k.startswith("history")}
    chronozarr.encode(source, tmp_path / "without", **plain, **ENCODINGS["star-delta-sharded"])
    chronozarr.encode(source, tmp_path / "with", **OPTIONS, **ENCODINGS["star-delta-sharded"])
    without, with_history = hashes(tmp_path / "without"), hashes(tmp_path / "with")
    assert not any(k.startswith("history") for k in without)
    assert {k: v for k, v in with_history.items() if not k.startswith("history") and k != "zarr.json"} == {
        k: v for k, v in without.items() if k != "zarr.json"
    }
    root_without = json.loads((tmp_path / "without" / "zarr.json").read_text())
    root_with = json.loads((tmp_path / "with" / "zarr.json").read_text())
    del root_with["attributes"]["chronozarr"]["history"]
    for key in [k for k in root_with["consolidated_metadata"]["metadata"] if k.startswith("history")]:
        del root_with["consolidated_metadata"]["metadata"][key]
    assert root_with == root_without


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_append_then_history_equals_a_fresh_encodes_byte_for_byte(tmp_path, source, name):
    options = OPTIONS | ENCODINGS[name]
    chronozarr.encode(source, tmp_path / "fresh", **options)
    chronozarr.encode(source[:11], tmp_path / "grown", **options)  # block 1 partly filled
    chronozarr.append(tmp_path / "grown", source[11:16], progress=False)  # fills block 1, starts none
    chronozarr.append(tmp_path / "grown", source[16:20], progress=False)  # starts block 2
    assert hashes(tmp_path / "grown", "history/") == hashes(tmp_path / "fresh", "history/")
    assert declaration(tmp_path / "grown") == declaration(tmp_path / "fresh")


def test_an_append_rewrites_only_the_time_blocks_it_grows(tmp_path, source):
    chronozarr.encode(source[:12], tmp_path / "s", **OPTIONS)
    before = hashes(tmp_path / "s", "history/c/")
    summary = chronozarr.append(tmp_path / "s", source[12:14], progress=False)
    after = hashes(tmp_path / "s", "history/c/")
    assert {k: v for k, v in after.items() if k.startswith("history/c/0/")} == {k: v for k, v in before.items() if k.startswith("history/c/0/")}
    assert all(after[k] != v for k, v in before.items() if k.startswith("history/c/1/"))
    assert {o.key for o in summary.objects if o.key.startswith("history/c/")} == {k for k in after if k.startswith("history/c/1/")}


def test_an_encode_killed_in_the_history_phase_is_completed_by_resume(tmp_path, source):
    options = OPTIONS | ENCODINGS["star-delta"]
    plain = {k: v for k, v in options.items() if not k.startswith("history")}
    without = count_steps(lambda: chronozarr.encode(source, tmp_path / "plain", **plain))
    total = count_steps(lambda: chronozarr.encode(source, tmp_path / "reference", **options))
    expected = hashes(tmp_path / "reference")
    # After the history phase come the metadata: every zarr.json, coordinate and volatility chunk.
    metadata = sum(1 for k in expected if k.endswith("zarr.json") or k.split("/c/")[0].rpartition("/")[2] in ("time", "band", "y", "x", "volatility"))
    history_steps = 2 * (12 + 3)  # each shard of level 0 and of level 1, then its record
    assert total - without == history_steps + 2  # and the history arrays' zarr.json
    start = total - metadata - history_steps
    points = [start + 1, start + 2, start + 13, start + history_steps]
    for kill_after in points:
        out = tmp_path / f"killed-{kill_after}"
        assert killed(lambda out=out: chronozarr.encode(source, out, **options), kill_after)
        assert not (out / "zarr.json").exists() and len(hashes(out, "history/c/")) <= 12
        chronozarr.encode(source, out, **options, resume=True)
        assert hashes(out) == expected, f"killed after step {kill_after} of {total}"


def test_an_append_killed_while_writing_history_ends_identical(tmp_path, source):
    chronozarr.encode(source[:11], tmp_path / "base", **OPTIONS)
    reference = tmp_path / "reference"
    os.system(f"cp -r {tmp_path / 'base'} {reference}")
    total = count_steps(lambda: chronozarr.append(reference, source[11:20], progress=False, fsync=False))
    expected = hashes(reference)
    for kill_after in sorted({total // 2, total - 12, total - 3}):
        store = tmp_path / f"killed-{kill_after}"
        os.system(f"cp -r {tmp_path / 'base'} {store}")
        assert killed(lambda store=store: chronozarr.append(store, source[11:20], progress=False, fsync=False), kill_after)
        chronozarr.append(store, source[11:20], progress=False, fsync=False)
        assert hashes(store) == expected, f"killed after step {kill_after} of {total}"


def test_a_dask_distributed_encode_writes_the_same_bytes(tmp_path, source):
    options = OPTIONS | ENCODINGS["star-delta"]
    chronozarr.encode(source, tmp_path / "local", **options)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client, distributed.get_task_stream(client=client) as stream:
        chronozarr.encode(source.chunk({"time": 5, "y": 32, "x": 32}), tmp_path / "cluster", **options)
    assert hashes(tmp_path / "cluster") == hashes(tmp_path / "local")
    shards = [t for t in stream.data if str(t["key"]).startswith("chronozarr-H")]
    assert len(shards) == 12 + 3, "every history shard of both levels ran as a cluster task"


def test_history_options_alone_are_refused(tmp_path, source):
    with pytest.raises(chronozarr.InputError, match="need history=True"):
        chronozarr.encode(source, tmp_path / "s", crs=CRS, history_time=8)
    with pytest.raises(chronozarr.InputError, match="divide the chunk size 32"):
        chronozarr.encode(source, tmp_path / "t", **(OPTIONS | {"history_inner": 12}))
