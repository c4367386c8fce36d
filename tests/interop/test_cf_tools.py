"""The CF grid mapping (spatial_ref) as the tools that look for it use it, unmodified: rioxarray
and odc-geo find the CRS and the transform, titiler.xarray and rio-tiler's XarrayReader answer a
point query with the exact stored value."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from interop_stores import GEOGRAPHIC, UTM, write_stores

import pyproj


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    return write_stores(tmp_path_factory.mktemp("cf"))


def _lonlat(crs: str, da: xr.DataArray, x: int, y: int) -> tuple[float, float]:
    """The WGS84 position of pixel (x, y)'s centre, from the input grid (not from the store)."""
    to_wgs84 = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return to_wgs84.transform(float(da.x[x]), float(da.y[y]))


@pytest.mark.parametrize(("name", "crs"), [("utm", UTM), ("lonlat", GEOGRAPHIC)])
def test_rioxarray_finds_crs_and_transform(stores, name: str, crs: str) -> None:
    import rioxarray  # noqa: F401
    path, da = stores[name]
    data = xr.open_zarr(path, group="0")["data"]
    assert data.rio.crs is not None and data.rio.crs.to_epsg() == int(crs.split(":")[1])
    step = float(da.x[1] - da.x[0])
    left, top = float(da.x[0]) - step / 2, float(da.y[0]) + step / 2
    assert tuple(data.rio.transform())[:6] == pytest.approx((step, 0.0, left, 0.0, -step, top), rel=1e-12)
    np.testing.assert_array_equal(data.values, da.values)


def test_odc_geo_finds_the_geobox(stores) -> None:
    import odc.geo.xr  # noqa: F401
    path, da = stores["utm"]
    geobox = xr.open_zarr(path, group="0")["data"].odc.geobox
    assert geobox.crs.epsg == 32631 and geobox.shape == (40, 50)
    assert tuple(geobox.affine)[:6] == (10.0, 0.0, 500_000.0, 0.0, -10.0, 5_000_000.0)


@pytest.mark.parametrize(("name", "crs"), [("utm", UTM), ("lonlat", GEOGRAPHIC)])
def test_titiler_xarray_point_gives_the_stored_values(stores, name: str, crs: str) -> None:
    from titiler.xarray import io
    path, da = stores[name]
    t, x, y = 1, 37, 22
    time = str(da.time.values[t])[:10]
    with io.Reader(str(path), variable="data", group="0", sel=[f"time={time}"]) as reader:
        assert reader.crs.to_epsg() == int(crs.split(":")[1])
        point = reader.point(*_lonlat(crs, da, x, y))
    assert point.data.tolist() == da.values[t, :, y, x].tolist()


@pytest.mark.parametrize(("name", "crs"), [("utm", UTM), ("lonlat", GEOGRAPHIC)])
def test_rio_tiler_xarray_reader_point_and_part_are_exact(stores, name: str, crs: str) -> None:
    import rio_tiler.io.xarray as reader_module
    path, da = stores[name]
    t = 2
    frame = xr.open_zarr(path, group="0")["data"].isel(time=t)
    with reader_module.XarrayReader(frame) as reader:
        assert reader.crs.to_epsg() == int(crs.split(":")[1])
        for x, y in ((0, 0), (49, 39), (13, 31)):
            assert reader.point(*_lonlat(crs, da, x, y)).data.tolist() == da.values[t, :, y, x].tolist()
        step = float(da.x[1] - da.x[0])
        bbox = (float(da.x[10]) - step / 2, float(da.y[29]) - step / 2, float(da.x[29]) + step / 2, float(da.y[10]) + step / 2)
        part = reader.part(bbox, dst_crs=reader.crs, bounds_crs=reader.crs, max_size=None)
    np.testing.assert_array_equal(part.data, da.values[t, :, 10:30, 10:30])
