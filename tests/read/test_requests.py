"""Request discipline: what opening and reading a store costs, counted on disk and over a real
local HTTP server (chronozarr.serve) that logs every request."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import chronozarr
from chronozarr.serve import StoreServer


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """A 4 x 3 cell grid at level 0, 6 timesteps, in three layouts."""
    from conftest import make_series

    da = make_series(n_time=6, height=64, width=48, seed=3)
    root = tmp_path_factory.mktemp("stores")
    layouts = {
        "none": dict(encoding="none"),
        "star": dict(encoding="star-delta", anchor_interval=3),
        "sharded": dict(encoding="star-delta", anchor_interval=3, shard=True, shard_time=6),
    }
    for name, options in layouts.items():
        chronozarr.encode(da, root / name, crs="EPSG:32631", chunk_size=16, **options)
    return root, da.values


def test_opening_costs_one_request(stores):
    root, _ = stores
    with chronozarr.open_dataset(root / "sharded") as store:
        assert store.stats.requests == 1 and store.meta.requests_to_open == 1


def test_unsharded_frame_is_one_get_per_cell(stores):
    root, values = stores
    with chronozarr.open_dataset(root / "none") as store:
        store.stats.reset()
        np.testing.assert_array_equal(store.read(2), values[2])
        assert (store.stats.get, store.stats.range) == (12, 0)


def test_delta_frame_reads_its_anchor_once(stores):
    root, values = stores
    with chronozarr.open_dataset(root / "star") as store:
        store.stats.reset()
        np.testing.assert_array_equal(store.read(1), values[1])  # delta of anchor 0: 12 + 12
        assert store.stats.get == 24
        store.stats.reset()
        np.testing.assert_array_equal(store.read(2), values[2])  # delta of anchor 3: 12 + 12
        assert store.stats.get == 24
        store.stats.reset()
        np.testing.assert_array_equal(store.read(4), values[4])  # anchor 3 is cached
        np.testing.assert_array_equal(store.read(3), values[3])  # the anchor itself, cached
        assert store.stats.get == 12 + 12


def test_sharded_index_is_read_once_with_a_bounded_range(stores):
    root, values = stores
    with StoreServer(root) as server, chronozarr.open_dataset(f"{server.url}/sharded") as store:
        server.clear_log()
        np.testing.assert_array_equal(store.read(0), values[0])
        first = server.requests
        assert len(first) == 24  # 12 indexes + 12 chunks
        assert all(r.method == "GET" and r.range and not r.range.startswith("bytes=-") for r in first)
        server.clear_log()
        np.testing.assert_array_equal(store.read(5), values[5])  # delta of anchor 3: indexes cached
        assert len(server.requests) == 24  # 12 deltas + 12 anchors, no index
        server.clear_log()
        np.testing.assert_array_equal(store.read(4), values[4])  # anchor 3 now cached
        assert len(server.requests) == 12
        server.clear_log()
        np.testing.assert_array_equal(store.read_point(40, 30), values[:, :, 40, 30])
        assert len(server.requests) == 1  # one shard, its six chunks adjacent: one range


def test_sharded_without_shard_bytes_uses_a_suffix_range(stores, tmp_path):
    import shutil

    root, values = stores
    copy = tmp_path / "copy"
    shutil.copytree(root / "sharded", copy)
    doc = json.loads((copy / "zarr.json").read_text())
    del doc["attributes"]["chronozarr"]["shard_bytes"]
    (copy / "zarr.json").write_text(json.dumps(doc))
    with StoreServer(tmp_path) as server, chronozarr.open_dataset(f"{server.url}/copy") as store:
        server.clear_log()
        np.testing.assert_array_equal(store.read(0), values[0])
        suffixes = [r for r in server.requests if r.range and r.range.startswith("bytes=-")]
        assert len(suffixes) == 12 and len(server.requests) == 24


def test_a_frame_over_a_slow_link_costs_a_few_round_trips_not_one_per_chunk(stores):
    root, values = stores
    latency = 0.15
    with StoreServer(root, latency=latency) as server, chronozarr.open_dataset(f"{server.url}/none") as store:
        started = time.perf_counter()
        np.testing.assert_array_equal(store.read(4), values[4])
        elapsed = time.perf_counter() - started
    assert elapsed < 4 * latency, f"12 chunks took {elapsed:.2f} s at {latency} s per request: not concurrent"


def test_a_shard_missing_from_shard_bytes_costs_a_head_not_a_suffix_range(tmp_path):
    """shard_bytes covers the data array only; a mask shard is found with HEAD then a bounded range."""
    from conftest import make_series

    da = make_series(n_time=4, height=16, width=16, seed=2)
    mask = np.ones((4, 16, 16), dtype=np.uint8)
    mask[1, :4] = 0
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="none", shard=True, mask=mask)
    with StoreServer(tmp_path) as server, chronozarr.open_dataset(f"{server.url}/s") as store:
        server.clear_log()
        np.testing.assert_array_equal(store.read_mask(1), mask[1])
        kinds = [(r.method, (r.range or "").startswith("bytes=-")) for r in server.requests]
        assert kinds == [("HEAD", False), ("GET", False), ("GET", False)]
