"""encode --history on a store with a mask: the history's mask copy (`history_mask`, version 1.1)
holds level 0's mask chunked along time (read here by zarr-python, against the source mask), is
declared with its shard lengths, and its bytes do not depend on how it was built (append or fresh,
killed and resumed, local or on a cluster)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dask.array  # noqa: F401
import distributed
import numpy as np
import pytest
import xarray as xr
import zarr

import chronozarr
from conftest import make_series
from kill_helpers import count_steps, killed
from test_write_history import ENCODINGS, OPTIONS, declaration, hashes


@pytest.fixture(scope="module")
def source():
    """20 timesteps on a 2 x 2 grid of 32-pixel cells (edge cells cut) and a mask that is 0 over
    one whole inner chunk at every date (so the mask copy omits it) and random elsewhere."""
    da = make_series(n_time=20, n_band=2, height=40, width=45, seed=22)
    mask = np.random.default_rng(4).integers(0, 2, (20, 40, 45), dtype=np.uint8)
    mask[:, 16:32, 16:32] = 0
    return da, xr.DataArray(mask, dims=("time", "y", "x"))


def _listed(root: Path, prefix: str) -> dict[str, int]:
    """"tb/r/c" -> byte length of every shard object below `prefix` (`history_mask/c/{tb}/{r}/{c}`)."""
    base = root / prefix
    return {p.relative_to(base).as_posix(): p.stat().st_size for p in base.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_the_mask_copy_holds_the_source_mask_chunked_along_time(tmp_path, source, name):
    da, mask = source
    chronozarr.encode(da, tmp_path / "s", mask=mask, **OPTIONS, **ENCODINGS[name])
    group = zarr.open_group(tmp_path / "s", mode="r")
    copy = group["history_mask"]
    assert copy.shape == mask.shape and copy.dtype == np.uint8 and copy.fill_value == 0
    assert copy.chunks == (8, 16, 16) and copy.shards == (8, 32, 32)
    np.testing.assert_array_equal(copy[...], mask.values)
    np.testing.assert_array_equal(group["history"][...], da.values)
    assert list(copy.metadata.dimension_names) == ["time", "y", "x"] and copy.attrs["_ARRAY_DIMENSIONS"] == ["time", "y", "x"]
    assert "history_mask" in json.loads((tmp_path / "s" / "zarr.json").read_text())["consolidated_metadata"]["metadata"]
    declared = declaration(tmp_path / "s")
    assert declared["version"] == "1.3" and declared["mask_path"] == "history_mask"
    assert declared["levels"]["1"]["mask_path"] == "history_mask_1"
    assert declared["mask_shard_bytes"] == _listed(tmp_path / "s", "history_mask/c") and len(declared["mask_shard_bytes"]) == 12


def test_the_mask_copys_codecs_are_level_0_masks(tmp_path, source):
    da, mask = source
    chronozarr.encode(da, tmp_path / "s", mask=mask, checksum=True, **OPTIONS, **ENCODINGS["none"])
    doc = json.loads((tmp_path / "s" / "history_mask" / "zarr.json").read_text())
    level0 = json.loads((tmp_path / "s" / "0" / "mask" / "zarr.json").read_text())
    inner = doc["codecs"][0]["configuration"]["codecs"]
    assert inner == level0["codecs"] and any(c["name"] == "crc32c" for c in inner)


def test_a_store_without_a_mask_declares_no_mask_copy(tmp_path, source):
    chronozarr.encode(source[0], tmp_path / "s", **OPTIONS)
    assert "mask_path" not in declaration(tmp_path / "s") and not (tmp_path / "s" / "history_mask").exists()


def test_read_point_mask_equals_the_source_mask_at_random_pixels(tmp_path, source):
    da, mask = source
    chronozarr.encode(da, tmp_path / "s", mask=mask, **OPTIONS, **ENCODINGS["star-delta"])
    rng = np.random.default_rng(5)
    with chronozarr.open_dataset(tmp_path / "s") as store:
        assert store.history_mask is not None
        for y, x in zip(rng.integers(0, 40, 12), rng.integers(0, 45, 12), strict=True):
            np.testing.assert_array_equal(store.read_point_mask(int(y), int(x)), mask.values[:, y, x])
        np.testing.assert_array_equal(store.read_point_mask(20, 20, times=[17, 2, 9]), np.zeros(3, dtype=np.uint8))
        np.testing.assert_array_equal(store.read_point_mask(39, 44, times=[17, 2, 9]), mask.values[[17, 2, 9], 39, 44])


@pytest.mark.parametrize("name", ["none", "star-delta-sharded"])
def test_append_then_mask_copy_equals_a_fresh_encodes_byte_for_byte(tmp_path, source, name):
    da, mask = source
    options = OPTIONS | ENCODINGS[name]
    chronozarr.encode(da, tmp_path / "fresh", mask=mask, **options)
    chronozarr.encode(da[:11], tmp_path / "grown", mask=mask[:11], **options)
    chronozarr.append(tmp_path / "grown", da[11:16], mask=mask[11:16], progress=False)
    chronozarr.append(tmp_path / "grown", da[16:20], mask=mask[16:20], progress=False)
    assert hashes(tmp_path / "grown", "history") == hashes(tmp_path / "fresh", "history")
    assert declaration(tmp_path / "grown") == declaration(tmp_path / "fresh")
    assert chronozarr.validate(tmp_path / "grown").ok


def test_an_encode_killed_in_the_history_phase_is_completed_by_resume(tmp_path, source):
    da, mask = source
    options = OPTIONS | ENCODINGS["star-delta"]
    plain = {k: v for k, v in options.items() if not k.startswith("history")}
    without = count_steps(lambda: chronozarr.encode(da, tmp_path / "plain", mask=mask, **plain))
    total = count_steps(lambda: chronozarr.encode(da, tmp_path / "reference", mask=mask, **options))
    expected = hashes(tmp_path / "reference")
    shards = sum(len(hashes(tmp_path / "reference", f"{path}/c/")) for path in ("history", "history_mask", "history_1", "history_mask_1"))
    tasks = 12 + 3  # level 0's 3 time blocks x 2 x 2 shards, level 1's 3 x 1 x 1
    assert total - without == shards + tasks + 4  # each shard, each task's record, the four zarr.json
    metadata = sum(1 for k in expected if k.endswith("zarr.json") or k.split("/c/")[0].rpartition("/")[2] in ("time", "band", "y", "x", "volatility"))
    start = total - metadata - (shards + tasks)
    for kill_after in (start + 1, start + 2, start + 3, start + 17, start + shards + tasks - 1):
        out = tmp_path / f"killed-{kill_after}"
        assert killed(lambda out=out: chronozarr.encode(da, out, mask=mask, **options), kill_after)
        assert not (out / "zarr.json").exists()
        chronozarr.encode(da, out, mask=mask, **options, resume=True)
        assert hashes(out) == expected, f"killed after step {kill_after} of {total}"


def test_an_append_killed_while_writing_the_mask_copy_ends_identical(tmp_path, source):
    da, mask = source
    chronozarr.encode(da[:11], tmp_path / "base", mask=mask[:11], **OPTIONS)
    reference = tmp_path / "reference"
    os.system(f"cp -r {tmp_path / 'base'} {reference}")
    total = count_steps(lambda: chronozarr.append(reference, da[11:20], mask=mask[11:20], progress=False, fsync=False))
    expected = hashes(reference)
    for kill_after in sorted({total // 2, total - 14, total - 5}):
        store = tmp_path / f"killed-{kill_after}"
        os.system(f"cp -r {tmp_path / 'base'} {store}")
        assert killed(lambda store=store: chronozarr.append(store, da[11:20], mask=mask[11:20], progress=False, fsync=False), kill_after)
        chronozarr.append(store, da[11:20], mask=mask[11:20], progress=False, fsync=False)
        assert hashes(store) == expected, f"killed after step {kill_after} of {total}"


def test_a_dask_distributed_encode_writes_the_same_mask_copy(tmp_path, source):
    da, mask = source
    options = OPTIONS | ENCODINGS["star-delta"]
    chronozarr.encode(da, tmp_path / "local", mask=mask, **options)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster):
        chunked = {"time": 5, "y": 32, "x": 32}
        chronozarr.encode(da.chunk(chunked), tmp_path / "cluster", mask=mask.chunk(chunked), **options)
    assert hashes(tmp_path / "cluster") == hashes(tmp_path / "local")
