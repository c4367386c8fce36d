"""The input's time axis as a store records it: a dimension named `time` of standard dates."""

from __future__ import annotations

import warnings

import pandas as pd
import xarray as xr

from ..errors import InputError


def standard_time_axis(ds: xr.Dataset) -> xr.Dataset:
    """`ds` with its dated dimension named `time` and cftime dates converted to datetime64."""
    return _standard_calendar(_time_dimension(ds))


def _time_dimension(ds: xr.Dataset) -> xr.Dataset:
    """A time axis named `time`: another dimension whose coordinate holds dates (ERA5's
    `valid_time`) is renamed, and a scalar `time` coordinate (one date) becomes a dimension."""
    if "time" in ds.dims:
        return ds
    if "time" in ds.coords and ds["time"].ndim == 0:
        return ds.expand_dims("time")
    dated = [d for d in ds.dims if d in ds.coords and _holds_dates(ds[d])]
    if len(dated) == 1 and "time" not in ds.variables:
        return ds.rename({dated[0]: "time"})
    return ds


def _holds_dates(coord: xr.DataArray) -> bool:
    if coord.dtype.kind == "M" or coord.attrs.get("axis") == "T" or coord.attrs.get("standard_name") == "time":
        return True
    return coord.dtype.kind == "O" and coord.size > 0 and hasattr(coord.values.flat[0], "calendar")


def _standard_calendar(ds: xr.Dataset) -> xr.Dataset:
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
            f"expressed as standard dates ({exc}); convert it to a standard calendar first, for example "
            "with xarray: ds.convert_calendar('proleptic_gregorian', align_on='year')"
        ) from None
