"""Open one input file or store with xarray, lazily and one timestep per read, choosing the engine
from what is on disk (inputs/input_formats: NetCDF by its signature, Zarr by its metadata files)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import xarray as xr

from ..errors import InputError
from .input_formats import NETCDF_GRANULES, accepted, input_format
from .timeaxis import standard_time_axis


def open_xarray(
    path: str | os.PathLike[str], group: str | None = None, undecoded: list[str] | None = None, time_from: str | None = None,
) -> xr.Dataset:
    """The input as a lazy Dataset, chunked one timestep per dask chunk when dask is installed.

    The `undecoded` variables are read as stored, without CF masking and scaling (inputs/cf.py). A glob
    of NetCDF or HDF5 granules is opened file by file and joined on time (inputs/granules.py), each
    dated by `time_from` or what it declares.
    """
    if input_format(os.fspath(path)) is NETCDF_GRANULES:
        from .granules import open_granules

        return _standard(open_granules(os.fspath(path), group, undecoded, time_from, open_one))
    if time_from is not None:
        raise InputError("--time-from dates the files of a glob of NetCDF or HDF5 granules ('granules/*.nc'); this input is one dataset")
    return _standard(open_one(path, group, undecoded))


def _standard(ds: xr.Dataset) -> xr.Dataset:
    try:
        return standard_time_axis(ds)
    except BaseException:
        ds.close()
        raise


def open_one(path: str | os.PathLike[str], group: str | None, undecoded: list[str] | None, chunks: Any = "time") -> xr.Dataset:
    """One file or store as a lazy Dataset (`chunks` "time": one timestep per dask chunk)."""
    kind, engine = _format(path)
    chunks = time_chunks() if chunks == "time" else chunks
    where = f"{path}" + (f" (group {group!r})" if group else "")
    options: dict[str, Any] = {"mask_and_scale": {n: False for n in undecoded}} if undecoded else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)  # zarr's consolidated-metadata notice
            # xarray's fallback to per-array metadata works; its advice is for the input's author
            warnings.filterwarnings("ignore", message="Failed to open Zarr store with consolidated metadata", category=RuntimeWarning)
            ds = xr.open_dataset(path, engine=engine, group=group, chunks=chunks, **options)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        if group and (isinstance(exc, (KeyError, FileNotFoundError)) or "group" in str(exc).lower()):
            raise InputError(f"group {group!r} is not in {path}; check --group") from None
        if isinstance(exc, FileNotFoundError):
            raise InputError(f"cannot open {where}: not found") from None
        raise InputError(f"cannot open {where} as {kind}: {exc}") from None
    except Exception as exc:  # zarr and netCDF4 raise their own error types for damaged inputs
        raise InputError(f"cannot open {where} as {kind}: {type(exc).__name__}: {exc}") from None
    return ds


def _format(path: str | os.PathLike[str]) -> tuple[str, str]:
    """(what the input is, xarray engine), from what is on disk (INPUT_FORMATS) rather than the name."""
    text = os.fspath(path)
    if "://" not in text and not Path(text).exists():
        raise InputError(f"input {text} does not exist")
    found = input_format(text)
    if found is not None and not found.per_date:
        return found.name, _engine(found.engines, text)
    if Path(text).is_dir():
        raise InputError(f"{text} is a directory but not a Zarr store (it has no zarr.json or .zgroup)")
    raise InputError(
        f"{text} is neither a NetCDF file nor a Zarr store; encode reads {accepted(per_date=False)}. "
        "GeoTIFF, COG and PNG files are read by `chronozarr convert` from a manifest (a .csv or .json list of them)"
    )


def _engine(candidates: tuple[str, ...], path: str) -> str:
    """The first installed xarray engine that reads the file (h5netcdf needs h5py or pyfive)."""
    modules = {"netcdf4": ("netCDF4",), "h5netcdf": ("h5netcdf", "h5py"), "scipy": ("scipy",)}
    for engine in candidates:
        try:
            for module in modules.get(engine, ()):
                __import__(module)
        except ImportError:
            continue
        return engine
    raise InputError(f"reading the NetCDF file {path} needs netCDF4: pip install 'chronozarr[netcdf]'")


def time_chunks() -> dict[str, int] | None:
    """Dask chunks of one timestep for lazy inputs, or None when dask is not installed."""
    try:
        import dask.array  # noqa: F401
    except ImportError:
        return None  # lazily indexed backend arrays: still one timestep per read
    return {"time": 1}
