"""read_point through the history array: the source's values, in at most three requests from a
cold start and two on a warm handle over a real HTTP server (chronozarr.serve); a declaration the
reader cannot use is a warning naming the field and the values come from level 0."""

from __future__ import annotations

import json
import shutil
import urllib.request
import warnings

import numpy as np
import pytest

import chronozarr
from chronozarr.read.history import HistoryWarning
from chronozarr.serve import StoreServer
from conftest import make_series

N_TIME = 124  # more than a decade of months


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """124 monthly dates on a 2 x 2 grid of 32-pixel cells, with and without history."""
    da = make_series(n_time=N_TIME, n_band=4, height=64, width=64, seed=8)
    root = tmp_path_factory.mktemp("history")
    common = {"crs": "EPSG:32631", "chunk_size": 32, "encoding": "star-delta", "anchor_interval": 6, "progress": False}
    chronozarr.encode(da, root / "with", history=True, **common)
    chronozarr.encode(da, root / "without", **common)
    return root, da.values


def _pixels(n: int, seed: int) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    return [(int(y), int(x)) for y, x in zip(rng.integers(0, 64, n), rng.integers(0, 64, n), strict=True)]


def test_a_pixels_history_over_http_is_three_requests_cold_and_two_warm(stores):
    root, values = stores
    (y, x), (y2, x2) = (5, 40), (50, 9)  # two different shards
    with StoreServer(root) as server:
        with chronozarr.open_dataset(f"{server.url}/with") as store:
            np.testing.assert_array_equal(store.read_point(y, x), values[:, :, y, x])
            cold = list(server.requests)
            server.clear_log()
            np.testing.assert_array_equal(store.read_point(y2, x2), values[:, :, y2, x2])
            warm_other_shard = list(server.requests)
            server.clear_log()
            np.testing.assert_array_equal(store.read_point(y + 1, x), values[:, :, y + 1, x])
            warm_same_shard = list(server.requests)
        assert len(cold) == 3 and cold[0].path.endswith("/with/zarr.json")
        assert all(r.range and not r.range.startswith("bytes=-") for r in cold[1:]), "bounded ranges: shard_bytes gives the length"
        index, chunk = cold[1].bytes_sent, cold[2].bytes_sent
        # The default inner chunk of 128 dates x 4 uint16 bands is 16 px (256 KiB raw, the budget):
        # the index of one shard's (32 / 16)^2 inner chunks.
        assert index == 16 * (32 // 16) ** 2 + 4
        assert chunk < 128 * 4 * 16 * 16 * 2  # one inner chunk (this noise barely compresses; docs/benchmarks.md has real data)
        assert len(warm_other_shard) == 2 and len(warm_same_shard) == 1
        server.clear_log()
        with chronozarr.open_dataset(f"{server.url}/without") as store:
            np.testing.assert_array_equal(store.read_point(y, x), values[:, :, y, x])
        assert len(server.requests) > N_TIME, "without the array a history is one chunk per timestep"


@pytest.mark.parametrize("name", ["with", "without"])
def test_read_point_equals_the_source_at_random_pixels(stores, name):
    root, values = stores
    with chronozarr.open_dataset(root / name) as store:
        assert (store.history is not None) == (name == "with")
        for y, x in _pixels(10, 4):
            np.testing.assert_array_equal(store.read_point(y, x), values[:, :, y, x])
        np.testing.assert_array_equal(store.read_point(63, 0, times=[123, 0, 60]), values[[123, 0, 60], :, 63, 0])


def _declared(doc: dict) -> dict:
    return doc["attributes"]["chronozarr"]["history"]


def _damaged(stores, tmp_path, change) -> str:
    root, _ = stores
    copy = tmp_path / "damaged"
    shutil.copytree(root / "with", copy)
    doc = json.loads((copy / "zarr.json").read_text())
    change(doc)
    (copy / "zarr.json").write_text(json.dumps(doc))
    return str(copy)


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("time_cap", lambda d: _declared(d).update(time_cap="128")),
        ("version", lambda d: _declared(d).update(version="2.0")),
        ("chunk_shape", lambda d: _declared(d).update(chunk_shape=[128, 4, 16])),
        ("chunk_shape", lambda d: _declared(d).update(time_cap=64, chunk_shape=[64, 4, 16, 16], shard_shape=[64, 4, 32, 32])),
        ("shard_bytes", lambda d: _declared(d).update(shard_bytes=[1, 2])),
        ("shape", lambda d: d["consolidated_metadata"]["metadata"]["history"].update(shape=[N_TIME, 4, 64, 32])),
    ],
)
def test_an_unusable_declaration_warns_once_naming_the_field_and_reads_level_0(stores, tmp_path, field, change):
    _, values = stores
    path = _damaged(stores, tmp_path, change)
    with pytest.warns(HistoryWarning, match=rf"chronozarr\.history\.{field}") as caught:
        store = chronozarr.open_dataset(path)
    assert len(caught) == 1
    with store, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert store.history is None
        store.stats.reset()
        np.testing.assert_array_equal(store.read_point(7, 7), values[:, :, 7, 7])
        assert store.stats.requests >= N_TIME


def test_a_history_array_missing_its_document_falls_back_to_level_0(stores, tmp_path):
    _, values = stores
    path = _damaged(stores, tmp_path, lambda doc: doc["consolidated_metadata"]["metadata"].pop("history"))
    (tmp_path / "damaged" / "history" / "zarr.json").unlink()
    with pytest.warns(HistoryWarning, match="chronozarr.history.path"):
        store = chronozarr.open_dataset(path)
    with store:
        np.testing.assert_array_equal(store.read_point(1, 2), values[:, :, 1, 2])


def test_serve_gives_the_last_time_block_a_short_cache_life_and_the_others_a_long_one(tmp_path):
    da = make_series(n_time=20, n_band=2, height=32, width=32, seed=1)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=32, history=True, history_time=8, progress=False)
    with StoreServer(tmp_path) as server:
        headers = {
            key: urllib.request.urlopen(f"{server.url}/s/history/c/{key}/0/0/0").headers["Cache-Control"]
            for key in ("0", "2")
        }
    assert "immutable" in headers["0"] and "max-age=31536000" in headers["0"]
    assert "immutable" not in headers["2"], "an append grows the last time block in place"


def test_the_xarray_engine_reads_a_pixels_history_from_the_array(stores):
    import xarray as xr

    root, values = stores
    with StoreServer(root) as server:
        ds = xr.open_dataset(f"{server.url}/with", engine="chronozarr")
        server.clear_log()
        np.testing.assert_array_equal(ds["data"].isel(y=20, x=45).values, values[:, :, 20, 45])
        assert len(server.requests) == 2  # the shard's index and one inner chunk
        np.testing.assert_array_equal(ds["data"].isel(y=20, x=45, time=slice(3, 9)).values, values[3:9, :, 20, 45])
