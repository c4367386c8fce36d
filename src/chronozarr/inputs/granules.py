"""A series kept as one NetCDF or HDF5 file per acquisition (SWOT raster granules, NISAR GCOV
products), opened file by file and joined on time.

A granule has no time dimension: its date is what `--time-from` names (a global attribute, or a
variable given by its path such as `/science/LSAR/identification/zeroDopplerStartTime`), else the
ACDD `time_coverage_start` it carries. Every granule must be on the first one's grid; one that is
not is named, never aligned or resampled.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import xarray as xr

from ..errors import InputError

ACDD_START = "time_coverage_start"


OpenFile = Callable[..., xr.Dataset]  # (path, group, undecoded, chunks=...): dataset_files.open_one


def open_granules(pattern: str, group: str | None, undecoded: list[str] | None, time_from: str | None, open_one: OpenFile) -> xr.Dataset:
    """The granules `pattern` matches as one lazy Dataset along `time`, in date order; each file is
    read in its own on-disk chunks (a plane at most), so memory is bounded by a timestep whatever
    the number of files."""
    paths = sorted(p for p in glob.glob(os.path.expanduser(pattern)) if os.path.isfile(p))
    parts: list[xr.Dataset] = []
    try:
        for path in paths:
            ds = open_one(path, group, undecoded, chunks={})
            parts.append(_dated(ds, path, granule_time(ds, path, group, time_from, open_one)))
        order = sorted(range(len(parts)), key=lambda i: parts[i]["time"].values[0])
        _check_dates(parts, paths, order)
        _check_grid(parts, paths)
        joined = xr.concat([parts[i] for i in order], dim="time", data_vars="minimal", coords="minimal",
                           compat="override", join="override", combine_attrs="override")
    except BaseException:
        for part in parts:
            part.close()
        raise

    def close() -> None:
        for part in parts:
            part.close()

    joined.set_close(close)
    return joined


def granule_time(ds: xr.Dataset, path: str, group: str | None, time_from: str | None, open_one: OpenFile) -> np.datetime64:
    """The date of one granule: `time_from` (an attribute, or a /path/to/variable), else its ACDD start."""
    if "time" in ds.dims:
        raise InputError(f"{path} has a time dimension; a glob of granules takes one file per timestep without one "
                         "(give a file holding the whole series on its own)")
    name = time_from or ACDD_START
    if name.startswith("/"):
        where, value = f"variable {name}", _variable_value(path, name, open_one)
    else:
        where, value = f"attribute {name!r}", _attribute(ds, path, group, name, open_one)
    if value is None:
        fix = "--time-from NAME: a global attribute holding the date, or the /path/to/a/variable that holds it"
        raise InputError(f"{path} has no {where}, so its date is unknown; say where it is with {fix}")
    return _as_date(value, path, where)


def _attribute(ds: xr.Dataset, path: str, group: str | None, name: str, open_one: OpenFile) -> Any:
    if name in ds.attrs or group is None:
        return ds.attrs.get(name)
    with open_one(path, None, None, chunks=None) as root:  # a global attribute sits on the root group
        return root.attrs.get(name)


def _variable_value(path: str, name: str, open_one: OpenFile) -> Any:
    group, _, variable = name.rpartition("/")
    try:
        with open_one(path, group or None, None, chunks=None) as holder:
            return holder[variable].values if variable in holder.variables else None
    except InputError:
        return None  # the group is not in the file: said as "no variable ..."


def _as_date(value: Any, path: str, where: str) -> np.datetime64:
    value = np.asarray(value)
    if value.dtype.kind == "M":
        return np.datetime64(value.reshape(-1)[0], "ns")
    text = value.reshape(-1)[0]
    text = text.decode() if isinstance(text, bytes) else str(text)
    try:
        return np.datetime64(text.strip().rstrip("Z"), "ns")
    except ValueError:
        raise InputError(f"{path}: {where} holds {text!r}, which is no ISO date (2024-01-30T00:10:22Z)") from None


def _dated(ds: xr.Dataset, path: str, stamp: np.datetime64) -> xr.Dataset:
    """The granule with a time axis of one step on its 2-D variables (a grid mapping stays scalar)."""
    planes = {name: var.expand_dims(time=[stamp]) for name, var in ds.data_vars.items() if var.ndim >= 2}
    if not planes:
        raise InputError(f"{path} holds no 2-D variable; its variables are {', '.join(map(str, ds.data_vars)) or '(none)'}")
    return ds.assign(planes)


def _check_dates(parts: list[xr.Dataset], paths: list[str], order: list[int]) -> None:
    for a, b in zip(order, order[1:], strict=False):
        if parts[a]["time"].values[0] == parts[b]["time"].values[0]:
            raise InputError(f"{paths[a]} and {paths[b]} have the same date {parts[a]['time'].values[0]}; "
                             "a store has one timestep per date: leave one out of the glob")


def _check_grid(parts: list[xr.Dataset], paths: list[str]) -> None:
    """Every granule on the first one's grid: the same spatial dimensions and coordinates."""
    first = parts[0]
    spatial = sorted({d for var in first.data_vars.values() if var.ndim >= 3 for d in var.dims if d != "time"}, key=str)
    for part, path in zip(parts[1:], paths[1:], strict=False):
        for dim in spatial:
            same = part.sizes.get(dim) == first.sizes[dim] and (
                dim not in first.coords or (dim in part.coords and np.array_equal(part[dim].values, first[dim].values))
            )
            if not same:
                raise InputError(f"{path} is not on the grid of {paths[0]} (its {dim!r} differs); every granule of a "
                                 "glob must share one grid: warp them onto one first (gdalwarp), or convert each grid apart")


def granules_note(path: Any, time_from: str | None, count: int) -> str | None:
    """How a glob's granules became the time axis, None for any other input."""
    from .input_formats import NETCDF_GRANULES, input_format

    if input_format(os.fspath(path)) is not NETCDF_GRANULES:
        return None
    source = f"{time_from} variable" if time_from and time_from.startswith("/") else f"{time_from or ACDD_START} attribute"
    return f"{count} granules ({os.fspath(path)}) joined on time, each dated by its {source}"
