"""Reads that decode their chunks on several threads into reused buffers (read/fetch.py) give
exactly what one thread gives and what zarr-python reads from the same objects (tests/expected.py),
for every layout the writer makes; a damaged chunk among many is still our error naming it; the
reader's threads end with the store."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from expected import true_values

import chronozarr
from chronozarr.errors import StoreError

LAYOUTS = {
    "none-zstd": dict(encoding="none"),
    "none-gzip": dict(encoding="none", codec="gzip"),
    "none-blosc": dict(encoding="none", codec="blosc"),
    "star-zstd": dict(encoding="star-delta", anchor_interval=3),
    "none-sharded": dict(encoding="none", shard=True, shard_time=4),
    "star-sharded-checksum": dict(encoding="star-delta", anchor_interval=2, shard=True, shard_time=3, checksum=True),
}
WINDOWS = [(0, 16, 0, 16), (3, 40, 5, 29), (16, 32, 16, 29), (31, 33, 15, 17), (0, 41, 0, 29)]


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def written(request, tmp_path_factory) -> Path:
    from conftest import make_series

    da = make_series(n_time=7, n_band=3, height=41, width=29, seed=11)
    path = tmp_path_factory.mktemp(request.param) / "store"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, progress=False, **LAYOUTS[request.param])
    return path


def reads(store: chronozarr.ChronoDataset) -> list[np.ndarray]:
    """Every kind of read: whole frames at two levels, windows across and inside chunks, whole
    uncropped chunks, cropped edge chunks, pixel histories and a level in memory."""
    out = [store.read(t) for t in range(7)] + [store.read(t, lod=1) for t in (0, 4)]
    out += [store.read(t, window=w) for t in (1, 5) for w in WINDOWS]
    out += [store.read_cell(t, r, c) for t in (0, 2, 6) for r in range(3) for c in range(2)]
    out += [store.read_point(r, c) for r, c in ((0, 0), (17, 20), (40, 28))]
    return [*out, store.to_xarray().values]


def test_many_threads_read_what_one_thread_reads(written):
    with chronozarr.open_dataset(written, concurrency=1) as one, chronozarr.open_dataset(written, concurrency=6) as many:
        for serial, parallel in zip(reads(one), reads(many), strict=True):
            np.testing.assert_array_equal(parallel, serial)


def test_parallel_reads_equal_zarr_python(written):
    level0 = true_values(written, 0)
    with chronozarr.open_dataset(written, concurrency=4) as store:
        for t in range(7):
            np.testing.assert_array_equal(store.read(t), level0[t])
            np.testing.assert_array_equal(store.read_cell(t, 1, 1), level0[t, :, 16:32, 16:29])
        np.testing.assert_array_equal(store.read_point(25, 3), level0[:, :, 25, 3])
        np.testing.assert_array_equal(store.read(3, lod=1), true_values(written, 1)[3])


def test_a_result_is_not_overwritten_by_later_reads(written):
    """Chunks are decoded into buffers a thread reuses: nothing returned may still point there."""
    level0 = true_values(written, 0)
    with chronozarr.open_dataset(written, concurrency=3) as store:
        kept = [store.read_cell(t, 2, 1) for t in range(7)] + [store.read(t, window=(3, 20, 2, 9)) for t in range(7)]
        for t in range(7):
            store.read(t)
            store.read_point(t, t)
        for t in range(7):
            np.testing.assert_array_equal(kept[t], level0[t, :, 32:41, 16:29])
            np.testing.assert_array_equal(kept[7 + t], level0[t, :, 3:20, 2:9])


def test_a_truncated_chunk_among_many_is_a_store_error_naming_it(tmp_path):
    from conftest import make_series

    path = tmp_path / "store"
    da = make_series(n_time=3, height=64, width=64, seed=3)
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, encoding="none", progress=False)
    damaged = path / "0" / "data" / "c" / "1" / "0" / "2" / "3"
    damaged.write_bytes(damaged.read_bytes()[:-9])
    with chronozarr.open_dataset(path, concurrency=4) as store:
        for read in (lambda: store.read(1), lambda: store.read_cell(1, 2, 3), lambda: store.read_point(40, 50)):
            with pytest.raises(StoreError, match=str(damaged)):
                read()
        np.testing.assert_array_equal(store.read(2), da.values[2])  # the next read is unharmed


def test_reader_threads_end_with_the_store(written):
    before = set(threading.enumerate())
    for _ in range(3):
        with chronozarr.open_dataset(written, concurrency=5) as store:
            reads(store)
            workers = [t for t in threading.enumerate() if t.name.startswith("chronozarr-read")]
            assert 1 <= len(workers) <= 5
    assert set(threading.enumerate()) - before == set()


def test_dask_over_the_engine_equals_zarr_python(written):
    level0 = true_values(written, 0)
    with xr.open_dataset(written, engine="chronozarr", chunks={}, physical=False) as ds:
        data = ds["data"]
        np.testing.assert_array_equal(data.sum("time").values, level0.sum(axis=0, dtype=np.uint64))
        np.testing.assert_array_equal(data.isel(y=slice(1, None, 3), x=slice(2, 27, 5)).values, level0[:, :, 1::3, 2:27:5])
        np.testing.assert_array_equal(data.isel(time=4, y=slice(20, 3, -2)).values, level0[4, :, 20:3:-2])
