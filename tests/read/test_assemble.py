"""A pixel's history and the top rows of a chunk (read/assemble.py) decode zstd chunks only as far
as the bytes they read: the values equal the input array for every codec, layout and encoding, at
pixels early and late in a chunk; a chunk damaged past that prefix still reads at the pixel (and
fails a whole read), one damaged within it or cut short is our error, and a checksummed one is
refused before anything is decoded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from hostile_stores import zstd_first_block

import chronozarr
from chronozarr.errors import StoreError

CS = 512  # 2 bands of uint16: 1 MiB chunks, 8 zstd blocks, the last band's plane in blocks 4-7
LAYOUTS = {
    "zstd": dict(codec="zstd"),
    "zstd-sharded-star": dict(codec="zstd", shard=True, shard_time=3, encoding="star-delta", anchor_interval=2),
    "zstd-star-checksum": dict(codec="zstd", encoding="star-delta", anchor_interval=2, checksum=True),
    "blosc-sharded": dict(codec="blosc", shard=True, shard_time=3),
    "gzip-star": dict(codec="gzip", encoding="star-delta", anchor_interval=2),
    "zstd-sharded": dict(codec="zstd", shard=True),
}
# (row, col): early in chunk (0, 0), in its second block row, the chunk's last pixel, in the
# edge chunk, the array's last pixel
PIXELS = [(0, 0), (130, 7), (CS - 1, CS - 1), (CS + 3, CS + 2), (599, 529)]


def _series(n_time: int = 4, height: int = 600, width: int = 530) -> xr.DataArray:
    from conftest import make_series

    da = make_series(n_time=n_time, n_band=2, height=height, width=width, seed=11)
    return da.copy(data=da.values % 97 + 1000)  # compressible, as imagery is: zstd writes compressed blocks


def _encode(da: xr.DataArray, path: Path, **options: object) -> Path:
    """Level 0 only: the pixel reads under test are level 0's."""
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=CS, progress=False, max_levels=1, **{"encoding": "none", **options})
    return path


@pytest.fixture(scope="module")
def series() -> xr.DataArray:
    return _series()


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def written(request, series, tmp_path_factory) -> Path:
    mask = (series.isel(band=0) % 3 != 0).astype("uint8")
    return _encode(series, tmp_path_factory.mktemp(request.param) / "store", mask=mask, **LAYOUTS[request.param])


@pytest.mark.parametrize("pixel", PIXELS)
def test_a_pixel_history_is_the_input_s_at_pixels_early_and_late_in_the_chunk(written, series, pixel):
    row, col = pixel
    with chronozarr.open_dataset(written) as store:
        np.testing.assert_array_equal(store.read_point(row, col), series.values[:, :, row, col])
        np.testing.assert_array_equal(store.read_point(row, col, times=[3, 1]), series.values[[3, 1], :, row, col])
        mask = (series.values[:, 0, row, col] % 3 != 0).astype("uint8")
        np.testing.assert_array_equal(store.read_point_mask(row, col), mask)


def test_the_top_rows_of_a_chunk_are_the_input_s(written, series):
    with chronozarr.open_dataset(written) as store:
        for t in range(len(series.time)):
            np.testing.assert_array_equal(store.read(t, window=(2, 5, 0, 530)), series.values[t, :, 2:5])
            np.testing.assert_array_equal(store.read(t, window=(CS, CS + 1, 500, 530)), series.values[t, :, CS : CS + 1, 500:530])
            np.testing.assert_array_equal(store.read_mask(t, window=(2, 5, 0, 530)), series.values[t, 0, 2:5] % 3 != 0)


def _damaged(tmp_path: Path, where: str, **options: object) -> Path:
    """A store of one chunk per timestep with the chunk of timestep 1 damaged: its last 40 bytes
    zeroed ("tail": in the last zstd block, past a pixel's prefix), those of its first block
    ("head"), or its last 1000 bytes cut ("cut"); returns the chunk's path."""
    path = _encode(_series(2, CS, CS), tmp_path / "store", **options)
    chunk = path / "0" / "data" / "c" / "1" / "0" / "0" / "0"
    data = bytearray(chunk.read_bytes())
    end = len(data) - (4 if options.get("checksum") else 0)
    if where == "cut":
        del data[-1000:]
    else:
        end = zstd_first_block(bytes(data))[1] if where == "head" else end
        data[end - 40 : end] = bytes(40)
    chunk.write_bytes(bytes(data))
    return chunk


def test_a_chunk_damaged_past_a_pixel_s_prefix_reads_at_the_pixel_and_fails_a_whole_read(tmp_path):
    chunk = _damaged(tmp_path, "tail")
    with chronozarr.open_dataset(tmp_path / "store") as store:
        np.testing.assert_array_equal(store.read_point(20, 30), _series(2, CS, CS).values[:, :, 20, 30])
        for read in (lambda: store.read(1), lambda: store.read_point(CS - 1, CS - 1)):
            with pytest.raises(StoreError, match=str(chunk)):
                read()


@pytest.mark.parametrize(("where", "options"), [("head", {}), ("cut", {}), ("tail", {"checksum": True})])
def test_a_chunk_damaged_within_the_prefix_cut_or_checksummed_is_our_error_at_the_pixel(tmp_path, where, options):
    chunk = _damaged(tmp_path, where, **options)
    with chronozarr.open_dataset(tmp_path / "store") as store, pytest.raises(StoreError, match=str(chunk)):
        store.read_point(20, 30)
