"""What a CF-encoded input variable declares, in a store's own terms (spec 2.3, 3.6).

xarray decodes CF encodings as it reads: values equal to `_FillValue` or `missing_value` become
NaN, and packed integers become floats (stored * scale_factor + add_offset). Written as decoded,
a uint16 band with a fill value would turn into float32 and a packed int16 into float64, larger
and no longer exact. A store says the same things natively: the fill value is its nodata and the
packing is each band's scale and offset, which readers apply the same way. So such variables are
read as stored, and their encoding becomes the store's nodata and band objects. Integers flagged
`_Unsigned = "true"` (NetCDF-3 has no unsigned types; GOES-R ABI radiances are stored so) are read
as the unsigned integers they mean, fill value included.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from ..errors import InputError
from ..format.metadata import DTYPES, Band

FILL_ATTRS = ("_FillValue", "missing_value")
PACKING_ATTRS = ("scale_factor", "add_offset")


def decoded_on_read(var: xr.DataArray) -> bool:
    """True when xarray changes the stored values of `var` and a store can hold them undecoded."""
    stored = np.dtype(var.encoding.get("dtype", var.dtype))
    if _flagged_unsigned(var.encoding):
        stored = _unsigned_twin(stored)
    return stored.name in DTYPES and any(key in var.encoding for key in FILL_ATTRS + PACKING_ATTRS + ("_Unsigned",))


def read_unsigned(ds: xr.Dataset, names: Sequence[str]) -> xr.Dataset:
    """`ds` with the variables among `names` flagged `_Unsigned` (and read undecoded) as unsigned integers."""
    for name in names:
        var = ds[name]
        if _flagged_unsigned(var.attrs) and var.dtype.kind == "i":
            ds[name] = var.copy(data=var.data.view(_unsigned_twin(var.dtype)))
    return ds


def _flagged_unsigned(attrs: Mapping[str, Any]) -> bool:
    return str(attrs.get("_Unsigned", "")).strip().lower() == "true"


def _unsigned_twin(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"u{dtype.itemsize}") if dtype.kind == "i" else dtype


@dataclass(frozen=True)
class Declared:
    """The nodata and band objects an input declares. Nodata "default" and bands None where it
    declares nothing (encode then picks by dtype and band name); nodata None is a declared null."""

    nodata: Any = "default"
    bands: tuple[Band, ...] | None = None


def declared(variables: Mapping[str, Mapping[str, Any]], labels: Sequence[str], dtype: str) -> Declared:
    """Nodata and bands from the raw CF attributes of the variables behind the series' bands.

    `variables` maps each input variable to its attributes: one variable for a (time, band, y, x)
    input (its packing applies to every band), or one per band for stacked variables.
    """
    fills = {name: _as_stored(fill_value(attrs, name), attrs, dtype) for name, attrs in variables.items()}
    distinct = sorted({v for v in fills.values() if v is not None})
    if len(distinct) > 1:
        listing = ", ".join(f"{n}: {v}" for n, v in fills.items() if v is not None)
        raise InputError(
            f"the variables mark missing values differently ({listing}) and a store has one nodata value. "
            "Re-run with --cast float32 to read each variable's own fill value as an invalid pixel"
        )
    packings = [_packing(attrs, name) for name, attrs in variables.items()]
    if len(packings) == 1:
        packings = packings * len(labels)
    bands = None
    if any(p[:2] != (1.0, 0.0) for p in packings):
        bands = tuple(band_with_packing(label, dtype, packing) for label, packing in zip(labels, packings, strict=False))
    return Declared(distinct[0] if distinct else "default", bands)


def fill_value(attrs: Mapping[str, Any], name: str) -> float | int | None:
    """The one value `_FillValue` and `missing_value` name as missing; NaN is no nodata (spec 2.3)."""
    values: set[float | int] = set()
    for key in FILL_ATTRS:
        for value in np.atleast_1d(attrs.get(key, [])).tolist():
            if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
                values.add(value)
    if len(values) > 1:
        raise InputError(
            f"variable {name!r} marks missing values with {sorted(values)} (_FillValue and missing_value) and a "
            "store has one nodata value. Re-run with --cast float32 to read all of them as invalid pixels"
        )
    return values.pop() if values else None


def _as_stored(value: float | int | None, attrs: Mapping[str, Any], dtype: str) -> float | int | None:
    """A fill value of an `_Unsigned` variable, given in its signed stored type, as the unsigned value it marks."""
    if value is None or not _flagged_unsigned(attrs) or not isinstance(value, int):
        return value
    return value % (1 << (8 * np.dtype(dtype).itemsize))


def _packing(attrs: Mapping[str, Any], name: str) -> tuple[float, float, str | None]:
    """(scale, offset, units) of a packed variable: physical = stored * scale + offset."""
    out = []
    for key, default in zip(PACKING_ATTRS, (1.0, 0.0), strict=False):
        value = np.asarray(attrs.get(key, default))
        if value.size != 1 or value.dtype.kind not in "iuf" or not np.isfinite(value).all():
            raise InputError(f"variable {name!r} has {key} {attrs.get(key)!r}; CF packing needs one finite number")
        out.append(float(value.reshape(())))
    units = attrs.get("units")
    return out[0], out[1], units if isinstance(units, str) and units else None


def band_with_packing(label: str, dtype: str, packing: tuple[float, float, str | None]) -> Band:
    """The band a name suggests (Sentinel-2 common names), with the input's own packing."""
    scale, offset, units = packing
    inferred = Band.infer(label, dtype)
    return dataclasses.replace(inferred, scale=scale, offset=offset, units=units or inferred.units)
