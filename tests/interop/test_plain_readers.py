"""Plain Zarr and GDAL readers on stores written today: what they read exactly, and where they stop
(the limits docs/interop.md lists)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
import zarr

import chronozarr
from conftest import make_series


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    root = tmp_path_factory.mktemp("plain")
    da = make_series(n_time=4, height=40, width=36, seed=4)
    for name, options in {
        "none": dict(encoding="none"),
        "star": dict(encoding="star-delta", anchor_interval=2),
        "sharded": dict(encoding="none", shard=True),
    }.items():
        chronozarr.encode(da, root / name, crs="EPSG:32631", chunk_size=16, progress=False, **options)
    floats = make_series(n_time=2, height=20, width=20, dtype="float32", seed=5)
    chronozarr.encode(floats, root / "float32", crs="EPSG:32631", chunk_size=16, progress=False)
    return root, da.values, floats.values


@pytest.mark.parametrize("layout", ["none", "sharded"])
def test_zarr_python_and_xarray_read_a_none_store_exactly(stores, layout: str) -> None:
    root, values, _ = stores
    np.testing.assert_array_equal(zarr.open_group(root / layout, mode="r")["0/data"][:], values)
    np.testing.assert_array_equal(xr.open_zarr(root / layout, group="0")["data"].values, values)


def test_a_plain_reader_sees_anchors_as_values_and_deltas_as_residuals(stores) -> None:
    root, values, _ = stores
    raw = zarr.open_group(root / "star", mode="r")["0/data"][:]
    np.testing.assert_array_equal(raw[[0, 2]], values[[0, 2]])
    np.testing.assert_array_equal(raw[1], (values[1].astype(np.int64) - values[0]) % 2**16)  # spec 4.2


def test_gdal_reads_float32_with_nodata_null_as_nodata_zero(stores) -> None:
    import rasterio
    root, _, floats = stores
    with rasterio.open(f'ZARR:"{root / "float32"}":/0/data') as src:
        assert src.nodata == 0.0  # the fill_value (spec 2.3), which GDAL takes as nodata
        np.testing.assert_array_equal(src.read().reshape(floats.shape), floats)


def test_gdal_reads_sharded_stores_from_3_13_only(stores) -> None:
    import rasterio
    root, values, _ = stores
    path = f'ZARR:"{root / "sharded"}":/0/data'
    if tuple(int(v) for v in rasterio.__gdal_version__.split(".")[:2]) < (3, 13):
        with pytest.raises(rasterio.errors.RasterioIOError):  # GDAL 3.12 knows no sharding_indexed codec
            with rasterio.open(path) as src:
                src.read(1)
    else:
        with rasterio.open(path) as src:
            np.testing.assert_array_equal(src.read().reshape(values.shape), values)


def test_gdal_refuses_a_checksummed_store_by_name_or_reads_it_exactly(tmp_path) -> None:
    """docs/reliability.md: which readers accept --checksum. GDAL 3.12's Zarr driver refuses the
    codec by name; a GDAL that knows it must read the stored values exactly."""
    import rasterio

    series = make_series(n_time=2, height=16, width=16)
    chronozarr.encode(series, tmp_path / "s", crs="EPSG:32631", chunk_size=16, progress=False, checksum=True)
    try:
        with rasterio.open(f'ZARR:"{tmp_path / "s"}":/0/data') as src:
            read = src.read()
    except rasterio.errors.RasterioIOError as exc:
        assert "crc32c" in str(exc)
        assert rasterio.__gdal_version__.startswith("3.12"), "docs/reliability.md names GDAL 3.12 as the one that refuses it"
    else:
        np.testing.assert_array_equal(read.reshape(series.shape), series.values)


def _without_crs_attribute(store, name: str) -> None:
    """Drop one attribute from every level's data array, in its zarr.json and in the consolidated root."""
    import json

    def strip(node: object) -> None:
        if isinstance(node, dict):
            if "_ARRAY_DIMENSIONS" in node and "proj:code" in node:  # a data array's attributes
                node.pop(name, None)
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    for doc in [store / "zarr.json", *store.glob("*/data/zarr.json")]:
        parsed = json.loads(doc.read_text())
        strip(parsed)
        doc.write_text(json.dumps(parsed))


def test_gdal_takes_the_crs_from_the_grid_mapping_when_crs_attribute_is_absent(stores, tmp_path) -> None:
    import shutil

    import rasterio
    root, _, _ = stores
    store = shutil.copytree(root / "none", tmp_path / "no-crs-attr")
    _without_crs_attribute(store, "_CRS")
    with rasterio.open(f'ZARR:"{store}":/0/data') as src:
        assert src.crs == rasterio.crs.CRS.from_epsg(32631)  # from grid_mapping -> spatial_ref
    _without_crs_attribute(store, "grid_mapping")
    with rasterio.open(f'ZARR:"{store}":/0/data') as src:
        assert src.crs is None  # proj:code alone is not read


def test_gdal_3_12_refuses_the_string_band_array(stores) -> None:
    import rasterio
    root, values, _ = stores
    with rasterio.open(f'ZARR:"{root / "none"}":/0/data') as src:
        assert src.count == values.shape[0] * values.shape[1]  # the data array opens: bands are numbered
    if tuple(int(v) for v in rasterio.__gdal_version__.split(".")[:2]) < (3, 13):
        with pytest.raises(rasterio.errors.RasterioIOError, match="data_type: string"):
            rasterio.open(f'ZARR:"{root / "none"}":/0/band')
