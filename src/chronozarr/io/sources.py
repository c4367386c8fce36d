"""Open a Zarr store or NetCDF file as the lazy (time, band, y, x) series that `encode` takes.

Everything here is about the input's shape and names; what a valid series is (dtype, regular grid,
increasing time) stays the writer's check, so the two never disagree.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import InputError
from ..spec.metadata import DTYPES
from ..crs import CRS_FIX, epsg, find_crs

SPATIAL_NAMES = (("y", "x"), ("lat", "lon"), ("latitude", "longitude"))
PLANE_DIMS = ("time", "y", "x")
SERIES_DIMS = ("time", "band", "y", "x")
_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_CLASSIC_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05")
_ZARR_MARKERS = ("zarr.json", ".zgroup", ".zarray", ".zmetadata")


@dataclass(frozen=True)
class Source:
    """An opened input: the series, its CRS and optional mask and coverage planes.

    Use it as a context manager: the arrays read lazily from the file until it is closed.
    """

    data: xr.DataArray
    crs: str
    mask: xr.DataArray | None = None
    coverage: xr.DataArray | None = None
    dataset: xr.Dataset | None = field(default=None, repr=False)

    def encode_arguments(self) -> dict[str, Any]:
        """The keyword arguments of `chronozarr.encode` that come from the input."""
        return {"crs": self.crs, "mask": self.mask, "coverage": self.coverage}

    def close(self) -> None:
        if self.dataset is not None:
            self.dataset.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_source(
    path: str | os.PathLike[str],
    *,
    variable: str | None = None,
    variables: list[str] | None = None,
    mask_variable: str | None = None,
    coverage_variable: str | None = None,
    group: str | None = None,
    crs: Any = None,
    cast: str | None = None,
    default_crs: str | None = None,
) -> Source:
    """Open `path` (Zarr v2/v3 store or NetCDF file) for encode; raises InputError naming the fix.

    The series is one (time, band, y, x) `variable`, or (time, y, x) `variables` stacked as bands,
    or the input's only 4-D variable. lat/lon grids become y/x, south-up grids are flipped, and
    `cast` converts the dtype explicitly (an integer cast refuses values it would change).
    `default_crs` is taken when neither `crs` nor the input names one.
    """
    if variable is not None and variables:
        raise InputError("give either --variable (one (time, band, y, x) variable) or --variables, not both")
    ds = open_dataset(path, group)
    try:
        ds, geographic = _north_up(ds)
        mask = _plane(ds, mask_variable, "--mask-variable")
        coverage = _plane(ds, coverage_variable, "--coverage-variable")
        planes = [n for n in (mask_variable, coverage_variable) if n]
        data, names = _series(ds, variable, variables, planes, str(path))
        if cast is not None:
            data = cast_exactly(data, cast)
        resolved = epsg(crs, "--crs") if crs is not None else find_crs(ds, names, geographic)
        if resolved is None:
            resolved = default_crs  # append: an input without a CRS is on the store's grid
        if resolved is None:
            raise InputError(
                f"the input grid of {', '.join(repr(n) for n in names)} is projected (dims y/x) and declares "
                f"no CRS (no CF grid_mapping, spatial_ref or crs attribute); {CRS_FIX}"
            )
    except BaseException:
        ds.close()
        raise
    return Source(data=data, crs=resolved, mask=mask, coverage=coverage, dataset=ds)


def open_dataset(path: str | os.PathLike[str], group: str | None = None) -> xr.Dataset:
    """The input as a lazy Dataset, chunked one timestep per dask chunk when dask is installed."""
    kind, engine = _format(path)
    chunks = _chunks()
    where = f"{path}" + (f" (group {group!r})" if group else "")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)  # zarr's consolidated-metadata notice
            ds = xr.open_dataset(path, engine=engine, group=group, chunks=chunks)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        if group and (isinstance(exc, (KeyError, FileNotFoundError)) or "group" in str(exc).lower()):
            raise InputError(f"group {group!r} is not in {path}; check --group") from None
        if isinstance(exc, FileNotFoundError):
            raise InputError(f"cannot open {where}: not found") from None
        raise InputError(f"cannot open {where} as {kind}: {exc}") from None
    except Exception as exc:  # zarr and netCDF4 raise their own error types for damaged inputs
        raise InputError(f"cannot open {where} as {kind}: {type(exc).__name__}: {exc}") from None
    try:
        return _standard_time(ds)
    except BaseException:
        ds.close()
        raise


def _format(path: str | os.PathLike[str]) -> tuple[str, str]:
    """(kind, xarray engine), from what is on disk rather than the file name."""
    text = os.fspath(path)
    if "://" in text:
        return "zarr", "zarr"  # remote stores go through fsspec; NetCDF is read from local files
    p = Path(text)
    if not p.exists():
        raise InputError(f"input {text} does not exist")
    if p.is_dir():
        if any((p / m).exists() for m in _ZARR_MARKERS):
            return "zarr", "zarr"
        raise InputError(f"{text} is a directory but not a Zarr store (it has no zarr.json or .zgroup)")
    with p.open("rb") as f:
        head = f.read(8)
    if head.startswith(_HDF5_MAGIC):
        return "NetCDF", _engine(("netcdf4", "h5netcdf"), text)
    if head[:4] in _CLASSIC_MAGIC:
        return "NetCDF", _engine(("netcdf4", "scipy"), text)
    raise InputError(
        f"{text} is neither a NetCDF file nor a Zarr store; encode reads those two "
        "(GeoTIFF stacks are not read by this command)"
    )


def _engine(candidates: tuple[str, ...], path: str) -> str:
    """The first installed xarray engine that reads the file (h5netcdf needs h5py or pyfive)."""
    modules = {"netcdf4": ("netCDF4",), "h5netcdf": ("h5netcdf", "h5py"), "scipy": ("scipy",)}
    for engine in candidates:
        try:
            for module in modules[engine]:
                __import__(module)
        except ImportError:
            continue
        return engine
    raise InputError(f"reading the NetCDF file {path} needs netCDF4: pip install 'chronozarr[netcdf]'")


def _chunks() -> dict[str, int] | None:
    try:
        import dask.array  # noqa: F401
    except ImportError:
        return None  # lazily indexed backend arrays: still one timestep per read
    return {"time": 1}


def _standard_time(ds: xr.Dataset) -> xr.Dataset:
    """cftime dates (noleap and other CF calendars) as datetime64, which the store records."""
    index = ds.indexes.get("time")
    if index is None or isinstance(index, pd.DatetimeIndex) or not hasattr(index, "to_datetimeindex"):
        return ds
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ds.assign_coords(time=index.to_datetimeindex(unsafe=True))
    except (ValueError, TypeError) as exc:
        raise InputError(
            f"the time axis uses the {getattr(index, 'calendar', 'non-standard')} calendar and cannot be "
            f"expressed as standard dates ({exc}); convert it to a standard calendar first"
        ) from None


def _north_up(ds: xr.Dataset) -> tuple[xr.Dataset, bool]:
    """Rename lat/lon to y/x, flip a south-up grid and refuse x decreasing; True if it was lat/lon."""
    for y_name, x_name in SPATIAL_NAMES:
        if y_name in ds.dims and x_name in ds.dims:
            break
    else:
        return ds, False
    geographic = y_name != "y"
    if geographic:
        taken = [n for n in ("y", "x") if n in ds.variables or n in ds.dims]
        if taken:
            raise InputError(f"the input has dims {y_name}/{x_name} and also a variable {taken[0]!r}; rename it first")
        ds = ds.rename({y_name: "y", x_name: "x"})
    if "x" in ds.coords and ds.sizes["x"] > 1:
        x = ds["x"].values
        if x[-1] < x[0]:
            raise InputError(
                f"coordinate {x_name!r} decreases ({x[0]} to {x[-1]}); chronozarr needs x increasing west to "
                f"east. Reverse the x axis of the input (ds.isel({x_name}=slice(None, None, -1)))"
            )
    if "y" in ds.coords and ds.sizes["y"] > 1:
        y = ds["y"].values
        if y[-1] > y[0]:
            ds = ds.isel(y=slice(None, None, -1))  # south-up: the store's row 0 is the north edge
    return ds, geographic


def _series(
    ds: xr.Dataset, variable: str | None, variables: list[str] | None, planes: list[str], path: str
) -> tuple[xr.DataArray, list[str]]:
    """The (time, band, y, x) array and the input variables it came from."""
    if variables:
        names = _unique([n.strip() for n in variables if n.strip()], "--variables")
        return _stack(ds, names, path), names
    if variable is None:
        variable = _only_series_variable(ds, planes, path)
    var = _variable(ds, variable, "--variable", path)
    if var.ndim == 3 and set(var.dims) == set(PLANE_DIMS):
        return _stack(ds, [variable], path), [variable]
    extra = [d for d in var.dims if d not in PLANE_DIMS]
    if var.ndim != 4 or len(extra) != 1 or not set(PLANE_DIMS) <= set(var.dims):
        raise InputError(
            f"variable {variable!r} has dims {tuple(var.dims)}; --variable needs (time, band, y, x) or "
            "(time, y, x) with y/x, lat/lon or latitude/longitude as spatial dims. "
            "To stack (time, y, x) variables as bands use --variables A,B,C"
        )
    if extra[0] != "band":
        var = var.rename({extra[0]: "band"})
    return var.transpose(*SERIES_DIMS), [variable]


def _only_series_variable(ds: xr.Dataset, planes: list[str], path: str) -> str:
    """The input's one 4-D variable, or failing that its one (time, y, x) variable."""
    candidates = [n for n in ds.data_vars if n not in planes]
    four = [n for n in candidates if ds[n].ndim == 4 and set(PLANE_DIMS) <= set(ds[n].dims)]
    three = [n for n in candidates if ds[n].ndim == 3 and set(ds[n].dims) == set(PLANE_DIMS)]
    if len(four) == 1:
        return str(four[0])
    if not four and len(three) == 1:
        return str(three[0])
    if four:
        listing = ", ".join(map(str, four))
        raise InputError(f"{path} has several (time, band, y, x) variables ({listing}); choose one with --variable NAME")
    if three:
        listing = ",".join(map(str, three))
        raise InputError(
            f"{path} has no (time, band, y, x) variable; stack (time, y, x) variables as bands with "
            f"--variables {listing} (or pick one with --variable NAME)"
        )
    raise InputError(
        f"{path} has no variable with dims (time, band, y, x) or (time, y, x); its variables are "
        f"{_describe(ds)}. Spatial dims must be named y/x, lat/lon or latitude/longitude and time 'time'"
    )


def _stack(ds: xr.Dataset, names: list[str], path: str) -> xr.DataArray:
    """(time, y, x) variables as the bands of one array, band names = variable names."""
    arrays = []
    for name in names:
        var = _variable(ds, name, "--variables", path)
        if var.ndim != 3 or set(var.dims) != set(PLANE_DIMS):
            raise InputError(
                f"variable {name!r} has dims {tuple(var.dims)}; --variables stacks (time, y, x) variables. "
                "A (time, band, y, x) variable is given with --variable"
            )
        arrays.append(var.transpose(*PLANE_DIMS).drop_attrs())
    dtypes = {str(a.dtype) for a in arrays}
    if len(dtypes) > 1:
        found = ", ".join(f"{n}: {a.dtype}" for n, a in zip(names, arrays))
        raise InputError(f"variables stacked as bands must share one dtype, got {found}; convert them to one dtype first")
    try:
        stacked = xr.concat(arrays, dim="band", join="exact", coords="minimal", compat="override")
    except ValueError:
        raise InputError(
            f"variables {', '.join(names)} do not share the same time, y and x coordinates; "
            "only variables on one grid and time axis can be stacked as bands"
        ) from None
    stacked = stacked.assign_coords(band=("band", np.array(names, dtype=str)))
    return stacked.transpose(*SERIES_DIMS).rename(None)


def _plane(ds: xr.Dataset, name: str | None, option: str) -> xr.DataArray | None:
    if name is None:
        return None
    var = _variable(ds, name, option, "the input")
    if set(var.dims) != set(PLANE_DIMS) or var.ndim != 3:
        raise InputError(f"{option} {name!r} has dims {tuple(var.dims)}; it must be (time, y, x) like the data")
    return var.transpose(*PLANE_DIMS)


def _variable(ds: xr.Dataset, name: str, option: str, path: str) -> xr.DataArray:
    if name not in ds.data_vars:
        raise InputError(f"{option}: variable {name!r} is not in {path}; its variables are {_describe(ds)}")
    return ds[name]


def _describe(ds: xr.Dataset) -> str:
    if not ds.data_vars:
        return "(none)"
    return ", ".join(f"{n}{tuple(map(str, v.dims))}" for n, v in ds.data_vars.items())


def _unique(names: list[str], option: str) -> list[str]:
    if not names:
        raise InputError(f"{option} is empty; list variable names separated by commas")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(f"{option} lists {', '.join(repeated)} more than once")
    return names


def cast_exactly(da: xr.DataArray, dtype: str) -> xr.DataArray:
    """`da` as `dtype`; a float target rounds as asked, an integer target must hold every value exactly."""
    if dtype not in DTYPES:
        raise InputError(f"--cast {dtype!r} is not a dtype chronozarr stores; choose one of {', '.join(DTYPES)}")
    target = np.dtype(dtype)
    if da.dtype == target:
        return da
    if target.kind == "f":
        return da.astype(target)
    # Checked where the values are read (chunk by chunk), so a bad value fails the encode, never corrupts it.
    return xr.apply_ufunc(
        _exact_integers, da, kwargs={"dtype": target}, dask="parallelized", output_dtypes=[target], keep_attrs=True
    )


def _exact_integers(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        bad = (values < info.min) | (values > info.max)
        if values.dtype.kind == "f":
            bad |= ~np.isfinite(values) | (values != np.round(values))
    if np.any(bad):
        example = values[bad].flat[0]
        raise InputError(
            f"--cast {dtype.name} would change the value {example} (NaN, fractional or outside "
            f"{info.min}..{info.max}); cast to float32 instead, or fix those values in the input"
        )
    return values.astype(dtype)
