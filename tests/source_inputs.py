"""Small NetCDF and Zarr inputs for the io and CLI tests, built from numpy arrays in code."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import xarray as xr

TIMES = np.array(["2024-01-01", "2024-02-01", "2024-03-01"], dtype="datetime64[ns]")
HEIGHT, WIDTH = 20, 18
UTM_EPSG = 32631


def values(shape: tuple[int, ...], dtype: str = "uint16", seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.normal(0.3, 0.1, size=shape).astype(dtype)
    return rng.integers(1, 200, size=shape).astype(dtype)


def utm_coords(height: int = HEIGHT, width: int = WIDTH) -> dict[str, np.ndarray]:
    """North-up 10 m pixel centres in UTM 31N."""
    return {
        "time": TIMES,
        "y": 5_000_000 - (np.arange(height) + 0.5) * 10.0,
        "x": 500_000 + (np.arange(width) + 0.5) * 10.0,
    }


def grid_mapping(epsg: int = UTM_EPSG, key: str = "crs_wkt") -> xr.DataArray:
    """A CF grid-mapping variable holding the CRS as WKT (crs_wkt/spatial_ref) or as epsg_code."""
    if key == "epsg_code":
        return xr.DataArray(np.int32(0), attrs={"epsg_code": f"EPSG:{epsg}"})
    from pyproj import CRS

    return xr.DataArray(np.int32(0), attrs={key: CRS.from_epsg(epsg).to_wkt()})


def cube(dtype: str = "uint16", n_band: int = 2, band_dim: str = "band", crs_key: str | None = "crs_wkt") -> xr.Dataset:
    """One (time, band, y, x) variable `reflectance` on a UTM grid, CRS in a CF grid mapping."""
    data = values((len(TIMES), n_band, HEIGHT, WIDTH), dtype)
    var = xr.DataArray(data, dims=("time", band_dim, "y", "x"))
    coords = utm_coords() | {band_dim: [f"b{i}" for i in range(n_band)]}
    ds = xr.Dataset({"reflectance": var}, coords=coords)
    if crs_key is not None:
        ds["crs"] = grid_mapping(key=crs_key)
        ds["reflectance"].attrs["grid_mapping"] = "crs"
    return ds


def band_variables(names: tuple[str, ...] = ("B02", "B03", "B04"), dtype: str = "uint16") -> xr.Dataset:
    """Several (time, y, x) variables on one UTM grid, plus a (time, y, x) uint8 `valid` mask."""
    ds = xr.Dataset(coords=utm_coords())
    for i, name in enumerate(names):
        ds[name] = (("time", "y", "x"), values((len(TIMES), HEIGHT, WIDTH), dtype, seed=i))
        ds[name].attrs["grid_mapping"] = "crs"
    mask = np.ones((len(TIMES), HEIGHT, WIDTH), dtype="uint8")
    mask[1, :5, :7] = 0
    ds["valid"] = (("time", "y", "x"), mask)
    ds["crs"] = grid_mapping(key="epsg_code")
    return ds


def latlon(south_up: bool = True, names: tuple[str, str] = ("lat", "lon"), dtype: str = "uint16") -> xr.Dataset:
    """A (time, band, lat, lon) variable with no CRS attribute; latitude ascending when south-up."""
    lat = 10.0 + (np.arange(HEIGHT) + 0.5) * 0.01
    if not south_up:
        lat = lat[::-1]
    lon = 20.0 + (np.arange(WIDTH) + 0.5) * 0.01
    data = values((len(TIMES), 2, HEIGHT, WIDTH), dtype, seed=3)
    return xr.Dataset(
        {"ndvi": (("time", "band", names[0], names[1]), data)},
        coords={"time": TIMES, "band": ["a", "b"], names[0]: lat, names[1]: lon},
    )


def write(ds: xr.Dataset, path: Path) -> Path:
    """Write by suffix: .nc NetCDF4, .zarr Zarr v3, .zarr2 Zarr v2."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if path.suffix == ".nc":
            ds.to_netcdf(path, engine="netcdf4")
        elif path.suffix == ".zarr2":
            ds.to_zarr(path, zarr_format=2)
        else:
            ds.to_zarr(path, zarr_format=3)
    return path


def cf_encoded(
    dtype: str = "int16", fill: int | None = -32768, scale: float | None = 0.01, offset: float | None = 20.0,
    names: tuple[str, ...] = ("sst",), units: str = "degC",
) -> tuple[xr.Dataset, dict[str, np.ndarray]]:
    """(time, y, x) variables as a producer stores them: raw integers with CF fill value and packing
    attributes, on a UTM grid. Returns the dataset and each variable's raw stored values."""
    ds = xr.Dataset(coords=utm_coords())
    raw = {}
    for i, name in enumerate(names):
        stored = values((len(TIMES), HEIGHT, WIDTH), dtype, seed=10 + i)
        if fill is not None:
            stored[i, :2, :3] = fill
        attrs: dict[str, object] = {"grid_mapping": "crs", "units": units}
        if scale is not None:
            attrs["scale_factor"] = scale
        if offset is not None:
            attrs["add_offset"] = offset
        ds[name] = xr.DataArray(stored, dims=("time", "y", "x"), attrs=attrs)
        if fill is not None:
            ds[name].encoding["_FillValue"] = np.dtype(dtype).type(fill)
        raw[name] = stored
    ds["crs"] = grid_mapping(key="epsg_code")
    return ds, raw
