"""GDAL (through rasterio) reads an unsharded `none` store: the CRS from _CRS, the geotransform
from the x/y coordinates, and the values of every (time, band) as raster bands."""

from __future__ import annotations

import numpy as np

import chronozarr

import rasterio


def test_gdal_reads_level_zero_with_crs_and_transform(tmp_path, series_factory) -> None:
    da = series_factory(n_time=3, n_band=2, height=37, width=29)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="none")
    with rasterio.open(f'ZARR:"{tmp_path / "s"}":/0/data') as src:
        assert src.crs.to_epsg() == 32631
        assert tuple(src.transform)[:6] == (10.0, 0.0, 500_000.0, 0.0, -10.0, 5_000_000.0)
        assert (src.count, src.height, src.width) == (6, 37, 29)
        stack = src.read()
    np.testing.assert_array_equal(stack.reshape(3, 2, 37, 29), da.values)


def test_gdal_sees_level_one_at_twice_the_pixel_size(tmp_path, series_factory) -> None:
    da = series_factory(n_time=2, n_band=1, height=40, width=40)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="none")
    with rasterio.open(f'ZARR:"{tmp_path / "s"}":/1/data') as src:
        assert (src.res, src.crs.to_epsg(), src.shape) == ((20.0, 20.0), 32631, (20, 20))
