"""The CRS of an input, as 'EPSG:<code>', from what CF and GDAL-style writers leave.

Stores record one EPSG code (spec 3.3), so everything found here is reduced to a code: a CRS that
names none is matched against EPSG (crs_match.py), and the match is said in a note the commands
print and the store's provenance keeps. `--crs` is the CRS the store is in and the CRS of inputs that
declare none; an input declaring an equivalent CRS is relabelled (`against_target`), any other is
warped (raster files) or refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from .errors import InputError

GEOGRAPHIC = "EPSG:4326"
CRS_FIX = "pass the CRS explicitly with --crs EPSG:<code>, the EPSG code of the CRS the data is in"

# Variables that hold a CRS in their attributes when no `grid_mapping` points to one:
# rioxarray writes `spatial_ref`, many CF writers `crs`.
_HOLDERS = ("spatial_ref", "crs")
_TEXT_KEYS = ("crs_wkt", "spatial_ref")
_CODE_KEYS = ("epsg_code", "epsg", "proj:epsg", "proj:code")
_PLAIN_KEYS = ("crs",) + _CODE_KEYS
_EPSG_TEXT = re.compile(
    r"(?i)\s*(?:epsg:{1,2}|urn:ogc:def:crs:epsg:[^:]*:|https?://www\.opengis\.net/def/crs/epsg/0/)?(\d+)\s*"
)
Extent = tuple[float, float, float, float]


@dataclass(frozen=True)
class Resolved:
    """The EPSG code recorded, and the note saying how it was matched when the input named none."""

    code: str
    note: str | None = None


@dataclass(frozen=True)
class Declared:
    """A CRS as an input declares it: an EPSG code, WKT or PROJ text, or CF grid-mapping attributes."""

    value: Any
    where: str

    def resolve(self, extent: Extent | None = None, pixel: float | None = None) -> Resolved:
        if isinstance(self.value, Mapping):
            return _from_cf(self.value, self.where, extent)
        return resolve(self.value, self.where, extent, pixel)


def epsg(value: Any, where: str) -> str:
    """'EPSG:<code>' for a code, an 'EPSG:n' string, a WKT or PROJ string; `where` names its origin."""
    return resolve(value, where).code


def resolve(value: Any, where: str, extent: Extent | None = None, pixel: float | None = None) -> Resolved:
    """The EPSG code of `value`, matched by pyproj when it names none; `extent` (in the CRS's
    units) places the input for the suggestions of an error, and the pixel size of raster files
    (`pixel`) adds convert's options that warp them."""
    if isinstance(value, bool):
        raise InputError(f"{where}: {value!r} is not a CRS; {CRS_FIX}")
    if isinstance(value, int) or (hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0 and value.dtype.kind in "iu"):
        return Resolved(_known(int(value), where))
    text = str(value).strip()
    match = _EPSG_TEXT.fullmatch(text)
    if match:
        return Resolved(_known(int(match.group(1)), where))
    return _code(parse(text, where), where, extent, pixel)


def parse(value: Any, where: str) -> Any:
    """A pyproj CRS from any text or code pyproj reads, or CF grid-mapping attributes."""
    CRS = _pyproj_crs(where)
    try:
        return CRS.from_cf(dict(value)) if isinstance(value, Mapping) else CRS.from_user_input(value)
    except Exception:  # pyproj raises CRSError and others for text it cannot parse
        shown = "its CF parameters" if isinstance(value, Mapping) else repr(str(value)[:80])
        raise InputError(f"{where}: cannot read a CRS from {shown}; {CRS_FIX}") from None


@dataclass(frozen=True)
class AgainstTarget:
    """How a CRS an input declares stands to --crs: `equivalent` inputs are relabelled (`note`
    says by which equivalence, None when only the names differ); others are warped or refused."""

    equivalent: bool
    note: str | None


def against_target(declared: Declared, code: str) -> AgainstTarget:
    """Whether the input's CRS is the --crs `code` in all but name: the same projection method and
    parameters, ellipsoid, prime meridian and units, and no datum shift (the same datum, or an
    unnamed one, which names no shift); tolerances are those of crs_match.differences."""
    from .crs_match import differences, null_shift_source, unknown_datum

    try:
        own, unbound = null_shift_source(parse(declared.value, declared.where))
    except InputError:
        return AgainstTarget(False, f"{declared.where} cannot be read by pyproj")
    given = parse(code, "--crs")
    shift = f"; {unbound}" if unbound else ""
    if own.to_epsg(min_confidence=100) == given.to_epsg():
        return AgainstTarget(True, f"{declared.where} ({own.name}) is relabelled as {code}{shift}" if unbound else None)
    diffs, unnamed = differences(own, given)
    loose = unnamed or unknown_datum(own)
    if loose:
        diffs = [d for d in diffs if not d.startswith("datum")]
    if diffs:
        return AgainstTarget(False, f"{declared.where} ({own.name}) differs from --crs {code} in {', '.join(diffs)}")
    name = own.datum.name if own.datum else "unnamed"
    datum = f"its datum ({name}) is unnamed or unknown to PROJ and gives no shift, so none applies" if loose else "the same datum"
    return AgainstTarget(True, f"{declared.where} ({own.name}) is relabelled as {code}, not warped: the same projection "
                         f"method and parameters, ellipsoid, prime meridian and units, and {datum}{shift}")


def series_crs(
    ds: xr.Dataset, names: list[str], geographic: bool, data: xr.DataArray, crs: Any, default_crs: str | None
) -> tuple[str, tuple[str, ...]]:
    """The EPSG code of a NetCDF or Zarr series (--crs `crs` is the target and must be equivalent
    to what the input declares, `default_crs` is taken when nothing names one) and what to say of it."""
    declared = declared_crs(ds, names, geographic)
    if crs is not None:
        code = resolve(crs, "--crs").code
        if declared is None:
            return code, ()
        against = against_target(declared, code)
        if not against.equivalent:
            raise InputError(
                f"--crs {code} is the CRS to store in, and {against.note}: relabelling would move every "
                "pixel, and a NetCDF or Zarr input is not warped. Drop --crs to keep the declared CRS, or warp "
                f"it first (gdalwarp -t_srs {code} -r bilinear IN OUT); if the declared CRS is wrong, correct the file"
            )
        return code, (against.note,) if against.note else ()
    if declared is not None:
        found = declared.resolve(extent=_extent(data))
        return found.code, (found.note,) if found.note else ()
    if default_crs is not None:
        return default_crs, ()  # append: an input without a CRS is on the store's grid
    raise InputError(
        f"the input grid of {', '.join(repr(n) for n in names)} is projected (dims y/x) and declares "
        f"no CRS (no CF grid_mapping, spatial_ref or crs attribute); {CRS_FIX}"
    )


def _extent(data: xr.DataArray) -> Extent | None:
    """The (west, south, east, north) of the pixel centres, for the suggestions of a CRS error."""
    try:
        x, y = np.asarray(data["x"].values, dtype=float), np.asarray(data["y"].values, dtype=float)
    except (KeyError, TypeError, ValueError):
        return None
    if not x.size or not y.size:
        return None
    return float(x.min()), float(y.min()), float(x.max()), float(y.max())


def crs_unit(code: str | None) -> str:
    """The unit of a CRS's coordinates for a sentence ("m", "degree", "US survey foot"), or
    "CRS units" when it cannot be told."""
    try:
        from pyproj import CRS

        name = CRS.from_user_input(code).axis_info[0].unit_name
    except Exception:  # no pyproj, no code, or a code pyproj does not know
        return "CRS units"
    return {"metre": "m", "meter": "m", "degree": "degree"}.get(name, name)


def _known(code: int, where: str) -> str:
    """'EPSG:<code>', refused when pyproj is installed and does not know the code."""
    try:
        from pyproj import CRS
    except ImportError:
        return f"EPSG:{code}"
    try:
        CRS.from_epsg(code)
    except Exception:  # pyproj.exceptions.CRSError
        raise InputError(f"{where}: EPSG:{code} is not a known EPSG code; {CRS_FIX}") from None
    return f"EPSG:{code}"


def find_crs(ds: xr.Dataset, names: Iterable[str], geographic: bool) -> str | None:
    """The EPSG code of the CRS the input declares for the variables `names`, or None."""
    found = declared_crs(ds, names, geographic)
    return found.resolve().code if found is not None else None


def declared_crs(ds: xr.Dataset, names: Iterable[str], geographic: bool) -> Declared | None:
    """The CRS the input declares for the variables `names`, or None when it declares none.

    Order: the variables' CF `grid_mapping`, then a `spatial_ref` or `crs` variable, then
    CRS attributes on the variables or the dataset, then EPSG:4326 when the grid was lat/lon.
    """
    names = list(names)
    for name in names:
        holder = _grid_mapping_name(ds[name])
        if holder is None:
            continue
        if holder not in ds.variables:
            raise InputError(
                f"variable {name!r} names the grid mapping {holder!r}, which is not in the input; {CRS_FIX}"
            )
        return _in_grid_mapping(ds[holder].attrs, f"grid mapping {holder!r}")
    for holder in _HOLDERS:
        if holder in ds.variables and _has_crs_attrs(ds[holder].attrs):
            return _in_grid_mapping(ds[holder].attrs, f"variable {holder!r}")
    for attrs, where in [(ds[n].attrs, f"variable {n!r}") for n in names] + [(ds.attrs, "the input's attributes")]:
        for key in _PLAIN_KEYS:
            if key in attrs and isinstance(attrs[key], (str, int)):
                return Declared(attrs[key], f"{where} attribute {key!r}")
    return Declared(GEOGRAPHIC, "the lat/lon grid") if geographic else None


def _grid_mapping_name(var: xr.DataArray) -> str | None:
    """The grid mapping variable of `var`; CF allows 'crs' and the extended 'crs: x y' form."""
    value = var.attrs.get("grid_mapping") or var.encoding.get("grid_mapping")
    if not value or not isinstance(value, str):
        return None
    extended = re.findall(r"(\S+):", value)
    return extended[0] if extended else value.strip()


def _has_crs_attrs(attrs: Mapping[str, Any]) -> bool:
    return any(k in attrs for k in _TEXT_KEYS + _CODE_KEYS + ("grid_mapping_name",))


def _in_grid_mapping(attrs: Mapping[str, Any], where: str) -> Declared:
    for key in _CODE_KEYS + _TEXT_KEYS:
        if key in attrs:
            return Declared(attrs[key], f"{where} attribute {key!r}")
    if attrs.get("grid_mapping_name") == "latitude_longitude":
        return Declared(GEOGRAPHIC, where)
    if "grid_mapping_name" in attrs:
        return Declared(dict(attrs), where)
    raise InputError(f"{where} has no crs_wkt, spatial_ref or epsg_code attribute; {CRS_FIX}")


def _pyproj_crs(where: str) -> Any:
    try:
        from pyproj import CRS
    except ImportError:
        raise InputError(
            f"{where} is not an EPSG code; reading it needs pyproj (pip install 'chronozarr[geo]'), or {CRS_FIX}"
        ) from None
    return CRS


def _from_cf(attrs: Mapping[str, Any], where: str, extent: Extent | None) -> Resolved:
    return _code(parse(attrs, where), where, extent, None)


def _code(crs: Any, where: str, extent: Extent | None, pixel: float | None) -> Resolved:
    """The code `crs` carries (its EPSG identifier, or CRS84 as 4326), else its EPSG match; a
    BoundCRS with a null shift is taken as its source CRS, and the note says so."""
    from .crs_match import match_epsg, null_shift_source

    crs, unbound = null_shift_source(crs)
    code = crs.to_epsg(min_confidence=100)
    if code is None and crs.to_authority() == ("OGC", "CRS84"):
        code = 4326  # the same datum and coordinates; only the axis order differs, and x is longitude here
    if code is not None:
        return Resolved(f"EPSG:{code}", f"{where} ({crs.name}) is recorded as EPSG:{code}: {unbound}" if unbound else None)
    found = match_epsg(crs, where, extent, pixel)
    return Resolved(found.code, f"{found.note}; {unbound}" if unbound else found.note)
