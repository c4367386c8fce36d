"""A region's series at a coarse level from that level's history array (format 1.3): the numbers
of numpy over the block means recomputed from the written arrays, the same as the chunk path,
in a few requests on a real HTTP server; a 1.2 store (level 0's history only) reads the chunks
there; a damaged coarse history falls back to the chunks with a HistoryWarning naming it."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pytest
from conftest import make_series
from expected import pyramid
from history_stores import as_version_1_2, damage_shards

import chronozarr
from chronozarr.errors import HistoryWarning
from chronozarr.serve import StoreServer

X0, Y0, RES = 500_000.0, 5_000_000.0, 10.0
N_TIME, H, W, CS = 24, 128, 128, 32
COMMON = {"crs": "EPSG:32631", "chunk_size": CS, "encoding": "star-delta", "anchor_interval": 6, "nodata": 0, "progress": False}
BOX = (X0 + 100, Y0 - 1180, X0 + 1180, Y0 - 100)  # level 1 (20 m): centres of rows and columns 5..58


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    root = tmp_path_factory.mktemp("levels")
    da = make_series(n_time=N_TIME, n_band=3, height=H, width=W, seed=9)
    values = da.values.copy()
    values[np.random.default_rng(9).random(values.shape) < 0.1] = 0
    da = da.copy(data=values)
    chronozarr.encode(da, root / "with", history=True, **COMMON)
    chronozarr.encode(da, root / "without", **COMMON)
    shutil.copytree(root / "with", root / "old")
    as_version_1_2(root / "old")
    return root, values


def _oracle(values, level, rows, cols):
    data = pyramid(values, None, None, 0, level + 1)[level][0][:, :, rows, cols].astype(np.float64)
    valid = data != 0
    count = valid.sum(axis=(2, 3))
    mean = np.where(valid, data, 0).sum(axis=(2, 3)) / count
    return count, mean


def _check(ds, values, level=1, rows=slice(5, 59), cols=slice(5, 59)):
    count, mean = _oracle(values, level, rows, cols)
    np.testing.assert_array_equal(ds["valid_pixels"].values, count)
    np.testing.assert_allclose(ds["mean"].values, mean, rtol=1e-9)  # make_series bands carry no scale
    assert ds.attrs["level"] == level


def test_a_coarse_region_comes_from_its_levels_history_in_few_requests(stores):
    root, values = stores
    counts, series = {}, {}
    with StoreServer(root) as server:
        for name in ("with", "without", "old"):
            with chronozarr.open_dataset(f"{server.url}/{name}") as s:
                server.clear_log()
                series[name] = s.read_region_series(BOX, lod=1)
                counts[name] = len(server.requests)
    assert {k: ds.attrs["source"] for k, ds in series.items()} == {"with": "history", "without": "chunks", "old": "chunks"}
    for ds in series.values():
        _check(ds, values)
    for stat in ("mean", "std", "min", "max", "valid_pixels"):
        np.testing.assert_array_equal(series["with"][stat].values, series["without"][stat].values)
    # Level 1 is 64 x 64 pixels in 2 x 2 shards of 32: per shard its index and one run of inner chunks.
    assert counts["with"] == 2 * 4 and counts["without"] == counts["old"] == N_TIME * 4


def test_a_pixels_history_at_a_coarse_level_is_read_from_its_history(stores):
    root, values = stores
    level1 = pyramid(values, None, None, 0, 2)[1][0]
    with chronozarr.open_dataset(root / "with") as s:
        before = s.stats.requests
        np.testing.assert_array_equal(s.read_point(40, 21, lod=1), level1[:, :, 40, 21])
        assert s.stats.requests - before == 2


def test_a_1_2_store_still_reads_and_validates(stores):
    root, values = stores
    with chronozarr.open_dataset(root / "old") as s:
        assert s.history is not None and s.history_at(1) == (None, None)
        _check(s.read_region_series(BOX, lod=1), values)
        assert s.read_region_series(BOX, lod=0).attrs["source"] == "history"
    report = chronozarr.validate(root / "old")
    assert report.ok, report.fails


def test_a_damaged_coarse_history_falls_back_to_the_chunks_with_a_named_warning(stores, tmp_path):
    root, values = stores
    shutil.copytree(root / "with", tmp_path / "s")
    assert damage_shards(tmp_path / "s", "history_1") == 4
    with chronozarr.open_dataset(tmp_path / "s") as s, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = s.read_region_series(BOX, lod=1)
    assert ds.attrs["source"] == "chunks"
    _check(ds, values)
    [warning] = [w for w in caught if issubclass(w.category, HistoryWarning)]
    assert "level 1's history array cannot be read" in str(warning.message) and "history_1/c/" in str(warning.message)


def test_a_coarse_history_whose_document_is_broken_is_left_out_with_a_warning(stores, tmp_path):
    root, values = stores
    shutil.copytree(root / "with", tmp_path / "s")
    import json

    doc = json.loads((tmp_path / "s" / "zarr.json").read_text())
    doc["consolidated_metadata"]["metadata"]["history_2"]["shape"][2] += 1
    (tmp_path / "s" / "zarr.json").write_text(json.dumps(doc))
    with pytest.warns(HistoryWarning, match=r"level 2's history array is not used \(chronozarr.history.levels.2.shape"):
        s = chronozarr.open_dataset(tmp_path / "s")
    with s:
        assert s.history_at(2) == (None, None) and s.history_at(1)[0] is not None
        assert s.read_region_series(BOX, lod=1).attrs["source"] == "history"
