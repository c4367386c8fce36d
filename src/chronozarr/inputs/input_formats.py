"""The inputs encode, append and convert read, as one table in the order they are told apart.

A new input format is one entry here (how it is recognised, whether it is one raster file per date
or one dataset holding the series, the xarray engines that open it) plus its reader; the openers,
the messages that list what is accepted and `--help` read the table.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .dated_files import is_glob
from .manifest import is_manifest

_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_CLASSIC_SIGNATURES = (b"CDF\x01", b"CDF\x02", b"CDF\x05")
_ZARR_MARKERS = ("zarr.json", ".zgroup", ".zarray", ".zmetadata")


def _is_zarr_directory(location: str) -> bool:
    path = Path(location)
    return path.is_dir() and any((path / marker).exists() for marker in _ZARR_MARKERS)


def _head(location: str) -> bytes:
    path = Path(location)
    if "://" in location or not path.is_file():
        return b""
    with path.open("rb") as f:
        return f.read(8)


@dataclass(frozen=True)
class InputFormat:
    """One kind of input: `per_date` inputs are raster files read one per timestep (inputs/open),
    the others one dataset opened with the first installed of `engines` (inputs/dataset_files)."""

    name: str
    told_by: str
    per_date: bool
    matches: Callable[[str, bytes], bool]  # (location, its first 8 bytes: empty unless a local file)
    engines: tuple[str, ...] = ()


def first_match(pattern: str) -> str | None:
    """The first file (in name order) a glob matches, None when it matches none."""
    import glob

    return next((p for p in sorted(glob.glob(os.path.expanduser(pattern))) if os.path.isfile(p)), None)


def _is_netcdf_glob(location: str) -> bool:
    first = first_match(location) if is_glob(location) else None
    return first is not None and (_head(first).startswith(_HDF5_SIGNATURE) or _head(first)[:4] in _CLASSIC_SIGNATURES)


NETCDF_GRANULES = InputFormat(
    "NetCDF or HDF5 granules", "a quoted glob such as 'granules/*.nc' whose files are NetCDF or HDF5, one timestep each", False,
    lambda loc, _: _is_netcdf_glob(loc), ("netcdf4", "h5netcdf"),
)
DATED_FILES = InputFormat("dated raster files", "a quoted glob such as 'scenes/*.tif', each file dated by its name", True, lambda loc, _: is_glob(loc))
LISTING = InputFormat("a manifest or STAC items", "a .csv or .json file or URL listing one raster file per date", True, lambda loc, _: is_manifest(loc))
ZARR = InputFormat(
    "a Zarr store", "a directory holding zarr.json or .zgroup, or a URL", False,
    lambda loc, _: "://" in loc or _is_zarr_directory(loc), ("zarr",),  # NetCDF is read from local files only
)
NETCDF4 = InputFormat(
    "a NetCDF-4 file", "a local file starting with the HDF5 signature", False,
    lambda _, head: head.startswith(_HDF5_SIGNATURE), ("netcdf4", "h5netcdf"),
)
CLASSIC_NETCDF = InputFormat(
    "a classic NetCDF file", "a local file starting with CDF and version byte 1, 2 or 5", False,
    lambda _, head: head[:4] in _CLASSIC_SIGNATURES, ("netcdf4", "scipy"),
)
INPUT_FORMATS: tuple[InputFormat, ...] = (NETCDF_GRANULES, DATED_FILES, LISTING, ZARR, NETCDF4, CLASSIC_NETCDF)


def input_format(location: str | os.PathLike[str]) -> InputFormat | None:
    """The first format of the table that `location` matches, None when it matches none."""
    text = os.fspath(location)
    head = _head(text)  # read once for every entry that looks at the signature
    return next((f for f in INPUT_FORMATS if f.matches(text, head)), None)


def accepted(per_date: bool | None = None) -> str:
    """The formats of the table (only those with `per_date`, when given), for messages."""
    return "; ".join(f"{f.name} ({f.told_by})" for f in INPUT_FORMATS if per_date is None or f.per_date == per_date)
