"""RasterFrames: indexing the lazy array reads the same values numpy indexing gives on the stack,
window by window, with mosaics and shifted files placed as the grid says."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from raster_inputs import TRANSFORM, geotiff, pixels
from rasterio.transform import from_origin
from xarray.core import indexing

from chronozarr.inputs.frames import FrameReads, OpenFiles, RasterFrames, lazy_array
from chronozarr.inputs.grid import WarpOptions
from chronozarr.inputs.raster_series import check_series
from chronozarr.inputs.rasters import read_headers
from chronozarr.inputs.scenes import Asset, Scene, Timestep

KEYS = [
    (0, slice(None), slice(None), slice(None)),
    (slice(1, 3), 1, slice(2, 9), slice(None, None, 3)),
    (2, slice(None, None, -1), 5, slice(-4, None)),
    (slice(None), slice(0, 0), slice(None), slice(None)),
    (-1, 0, slice(19, 2, -4), 17),
]


def reads_of(groups: list[list[str]], **warp) -> FrameReads:
    """The frames of timesteps made of the scenes (one file each) in `groups`."""
    steps = [
        Timestep(np.datetime64(f"2024-01-{i + 1:02d}", "ns"), tuple(Scene((Asset(u),), u) for u in group))
        for i, group in enumerate(groups)
    ]
    files = [u for group in groups for u in group]
    series = check_series(steps, dict(zip(files, read_headers(files))), options=WarpOptions(**warp))
    return FrameReads(series, OpenFiles(series, limit=2))


@pytest.fixture
def stack(tmp_path):
    arrays = np.stack([pixels(3, seed=i) for i in range(3)])
    uris = [str(geotiff(tmp_path / f"{i}.tif", a)) for i, a in enumerate(arrays)]
    return arrays, uris


@pytest.mark.parametrize("key", KEYS)
def test_indexing_matches_numpy(stack, key):
    arrays, uris = stack
    frames = RasterFrames(reads_of([[u] for u in uris]))
    np.testing.assert_array_equal(frames[indexing.BasicIndexer(key)], arrays[key])


def test_alpha_band_is_the_validity_and_not_a_band(tmp_path):
    values = pixels(3, "uint8")
    values[2, :5] = 0
    uri = str(tmp_path / "a.tif")
    import rasterio
    from rasterio.enums import ColorInterp

    geotiff(tmp_path / "a.tif", values)
    with rasterio.open(uri, "r+") as ds:
        ds.colorinterp = [ColorInterp.gray, ColorInterp.gray, ColorInterp.alpha]
    reads = reads_of([[uri]])
    data, mask = RasterFrames(reads), RasterFrames(reads, mask=True)
    assert data.shape == (1, 2, 20, 18) and mask.dtype == np.uint8
    np.testing.assert_array_equal(data[indexing.BasicIndexer((0, slice(None), slice(None), slice(None)))], values[:2])
    np.testing.assert_array_equal(mask[indexing.BasicIndexer((0, slice(3, 7), slice(None)))], (values[2, 3:7] != 0))


def test_a_mosaic_takes_each_pixel_from_the_first_scene_valid_there(tmp_path):
    first, second = pixels(2, seed=1), pixels(2, seed=2)
    first[0, :6] = 0  # nodata in one band: the whole pixel comes from the next scene
    uris = [str(geotiff(tmp_path / f"{i}.tif", a, nodata=0)) for i, a in enumerate((first, second))]
    reads = reads_of([uris])
    got = RasterFrames(reads)[indexing.BasicIndexer((0, slice(None), slice(None), slice(None)))]
    expected = np.where((first == 0).any(axis=0), second, first)
    np.testing.assert_array_equal(got, expected)
    assert RasterFrames(reads, mask=True)[indexing.BasicIndexer((0, slice(None), slice(None)))].all()


def test_a_file_shifted_by_whole_pixels_lands_where_it_belongs_and_the_rest_is_invalid(tmp_path):
    base, moved = pixels(1, seed=1), pixels(1, seed=2)
    uris = [str(geotiff(tmp_path / "0.tif", base)), str(geotiff(tmp_path / "1.tif", moved, transform=from_origin(
        TRANSFORM.c + 30, TRANSFORM.f - 20, 10, 10)))]
    reads = reads_of([[uris[0]], [uris[1]]], grid="first")
    got = RasterFrames(reads)[indexing.BasicIndexer((1, 0, slice(None), slice(None)))]
    valid = RasterFrames(reads, mask=True)[indexing.BasicIndexer((1, slice(None), slice(None)))]
    np.testing.assert_array_equal(got[2:, 3:], moved[0, :-2, :-3])
    assert valid[2:, 3:].all() and not valid[:2].any() and not valid[:, :3].any()
    np.testing.assert_array_equal(got[:2], 0)


def test_open_files_are_kept_within_the_limit_and_reopened_when_needed(stack):
    arrays, uris = stack
    reads = reads_of([[u] for u in uris])
    frames = RasterFrames(reads)
    for _ in range(2):
        for t in range(3):
            np.testing.assert_array_equal(frames[indexing.BasicIndexer((t, 0, slice(0, 4), slice(None)))], arrays[t, 0, :4])
    assert len(reads.files._open) == 2
    reads.files.close()
    assert not reads.files._open


def test_lazy_array_reads_on_demand(stack):
    arrays, uris = stack
    da = lazy_array(RasterFrames(reads_of([[u] for u in uris])), ("time", "band", "y", "x"), {"time": np.arange(3), "extra": np.arange(9)})
    assert isinstance(da, xr.DataArray) and "extra" not in da.coords and da.chunks is None
    np.testing.assert_array_equal(da[1, :, 4:6].values, arrays[1, :, 4:6])


@pytest.mark.parametrize("offset", [(0, 0), (3, 2), (-4, -6)])
def test_a_mask_of_twice_the_pixel_size_is_each_pixel_repeated_held_where_not_nodata(tmp_path, offset) -> None:
    """A 20 m mask on the 10 m grid, its corner `offset` grid pixels from the grid's: every window
    equals numpy's np.repeat of the file placed at that offset, held where the file covers the
    pixel and is not nodata (as a nearest-neighbour WarpedVRT reads it)."""
    from types import SimpleNamespace

    from chronozarr.inputs.grid import Grid, scaled

    rng = np.random.default_rng(5)
    mask = rng.integers(0, 4, (1, 9, 11)).astype(np.uint8)  # 0 is nodata
    row, col = offset
    path = geotiff(tmp_path / "mask.tif", mask, nodata=0,
                   transform=from_origin(TRANSFORM.c + 10 * col, TRANSFORM.f - 10 * row, 20, 20))
    (header,) = read_headers([str(path)])
    grid = Grid("EPSG:32631", tuple(TRANSFORM)[:6], 23, 19)
    placement = scaled(header, header.transform, grid.crs, grid)
    assert placement is not None and placement.factor == 2
    series = SimpleNamespace(headers={str(path): header}, placements={str(path): placement}, dtype="uint8", nodata=None,
                             timesteps=[SimpleNamespace(scenes=[SimpleNamespace(assets=[Asset(str(path))])])], needs_mask=False)
    reads = FrameReads(series, OpenFiles(series))  # type: ignore[arg-type]
    want = np.zeros((19 + 40, 23 + 40), dtype=np.uint8)  # the grid with 20 px of margin on every side
    held = np.zeros(want.shape, dtype=bool)
    up = mask[0].repeat(2, axis=0).repeat(2, axis=1)
    want[20 + row : 20 + row + 18, 20 + col : 20 + col + 22] = up
    held[20 + row : 20 + row + 18, 20 + col : 20 + col + 22] = up != 0
    for rows, cols in [(range(0, 19), range(0, 23)), (range(1, 2), range(5, 6)), (range(3, 18), range(2, 21)), (range(17, 19), range(0, 3))]:
        values, inside = reads.asset_window(Asset(str(path)), SimpleNamespace(indexes=(1,), alpha=None), rows, cols)  # type: ignore[arg-type]
        window = (slice(20 + rows.start, 20 + rows.stop), slice(20 + cols.start, 20 + cols.stop))
        np.testing.assert_array_equal(inside, held[window])
        np.testing.assert_array_equal(values[0][inside], want[window][inside])
