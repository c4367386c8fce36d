"""Open one input file or store with xarray, lazily and one timestep per read, choosing the engine
from what is on disk (NetCDF by its magic bytes, Zarr by its metadata files) rather than the name."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import xarray as xr

from ..errors import InputError
from .timeaxis import standard_time_axis

_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
_CLASSIC_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05")
_ZARR_MARKERS = ("zarr.json", ".zgroup", ".zarray", ".zmetadata")


def open_dataset(path: str | os.PathLike[str], group: str | None = None, undecoded: list[str] | None = None) -> xr.Dataset:
    """The input as a lazy Dataset, chunked one timestep per dask chunk when dask is installed.

    The `undecoded` variables are read as stored, without CF masking and scaling (io/cf.py).
    """
    kind, engine = _format(path)
    chunks = time_chunks()
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
    try:
        return standard_time_axis(ds)
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
        "(GeoTIFF, COG and PNG files are read by `chronozarr convert` from a manifest: a .csv or .json list of them)"
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


def time_chunks() -> dict[str, int] | None:
    """Dask chunks of one timestep for lazy inputs, or None when dask is not installed."""
    try:
        import dask.array  # noqa: F401
    except ImportError:
        return None  # lazily indexed backend arrays: still one timestep per read
    return {"time": 1}
