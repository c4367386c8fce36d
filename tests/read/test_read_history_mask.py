"""read_point_mask through the history's mask copy over a real HTTP server (chronozarr.serve): the
source mask in two bounded range reads on an open handle (one per date without the copy); a mask
declaration the reader cannot use is a warning naming the field, and masks come from level 0."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import xarray as xr

import chronozarr
from chronozarr.read.history import HistoryWarning
from chronozarr.serve import StoreServer
from conftest import make_series
from test_read_history import _damaged, _declared

N_TIME = 124


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """124 monthly dates on a 2 x 2 grid of 32-pixel cells with a random mask, with and without history."""
    da = make_series(n_time=N_TIME, n_band=3, height=64, width=64, seed=9)
    mask = np.random.default_rng(11).integers(0, 2, (N_TIME, 64, 64), dtype=np.uint8)
    root = tmp_path_factory.mktemp("history_mask")
    common = {"crs": "EPSG:32631", "chunk_size": 32, "encoding": "star-delta", "anchor_interval": 6, "progress": False}
    plane = xr.DataArray(mask, dims=("time", "y", "x"))
    chronozarr.encode(da, root / "with", history=True, mask=plane, **common)
    chronozarr.encode(da, root / "without", mask=plane, **common)
    return root, da.values, mask


def test_a_pixels_mask_history_over_http_is_two_bounded_ranges_on_an_open_handle(stores):
    root, values, mask = stores
    y, x = 45, 12
    with StoreServer(root) as server:
        with chronozarr.open_dataset(f"{server.url}/with") as store:
            server.clear_log()
            np.testing.assert_array_equal(store.read_point_mask(y, x), mask[:, y, x])
            reads = list(server.requests)
            server.clear_log()
            np.testing.assert_array_equal(store.read_point(y, x), values[:, :, y, x])
            data_reads = list(server.requests)
        assert len(reads) == 2 and all(r.range and not r.range.startswith("bytes=-") for r in reads), reads
        assert all("/with/history_mask/c/0/1/0" in r.path for r in reads)
        # the index of the mask shard's (32 / 16)^2 inner chunks (16 px: the default for 128 dates of these uint16 bands)
        assert reads[0].bytes_sent == 16 * (32 // 16) ** 2 + 4
        assert len(data_reads) == 2 and all("/with/history/c/0/0/1/0" in r.path for r in data_reads)
        server.clear_log()
        with chronozarr.open_dataset(f"{server.url}/without") as store:
            server.clear_log()
            np.testing.assert_array_equal(store.read_point_mask(y, x), mask[:, y, x])
        assert len(server.requests) >= N_TIME, "without the copy a mask history is one chunk per timestep"


def test_read_point_mask_equals_the_source_at_random_pixels_and_times(stores):
    root, _, mask = stores
    rng = np.random.default_rng(6)
    with chronozarr.open_dataset(root / "with") as store:
        assert store.history_mask is not None
        for y, x in zip(rng.integers(0, 64, 10), rng.integers(0, 64, 10), strict=True):
            np.testing.assert_array_equal(store.read_point_mask(int(y), int(x)), mask[:, y, x])
        np.testing.assert_array_equal(store.read_point_mask(63, 0, times=[123, 0, 60]), mask[[123, 0, 60], 63, 0])
        with pytest.raises(IndexError):
            store.read_point_mask(64, 0)


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("mask_path", lambda d: _declared(d).update(mask_path="history-mask")),
        ("mask_path", lambda d: _declared(d).pop("mask_path")),
        ("mask_shard_bytes", lambda d: _declared(d).update(mask_shard_bytes={"0/0": 3})),
        ("mask_path", lambda d: d["consolidated_metadata"]["metadata"]["history_mask"].update(shape=[N_TIME, 64, 32])),
        ("mask_path", lambda d: d["consolidated_metadata"]["metadata"]["history_mask"].update(data_type="uint16")),
    ],
)
def test_an_unusable_mask_declaration_warns_once_naming_the_field_and_reads_level_0(stores, tmp_path, field, change):
    root, values, mask = stores
    path = _damaged((root, values), tmp_path, change)
    with pytest.warns(HistoryWarning, match=rf"chronozarr\.history\.{field}") as caught:
        store = chronozarr.open_dataset(path)
    assert len(caught) == 1
    with store, warnings.catch_warnings():
        warnings.simplefilter("error")
        assert store.history is None and store.history_mask is None
        store.stats.reset()
        np.testing.assert_array_equal(store.read_point_mask(7, 7), mask[:, 7, 7])
        np.testing.assert_array_equal(store.read_point(7, 7), values[:, :, 7, 7])
        assert store.stats.requests >= N_TIME
