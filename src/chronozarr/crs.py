"""The CRS of a NetCDF or Zarr input, as 'EPSG:<code>', from what CF and GDAL-style writers leave.

Stores record one EPSG code (spec 3.3), so everything found here is reduced to a code, and a CRS
that has none is an error the user fixes with an explicit `crs`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import xarray as xr

from .errors import InputError

GEOGRAPHIC = "EPSG:4326"
CRS_FIX = "pass the CRS explicitly (--crs EPSG:<code>, e.g. --crs EPSG:32631)"

# Variables that hold a CRS in their attributes when no `grid_mapping` points to one:
# rioxarray writes `spatial_ref`, many CF writers `crs`.
_HOLDERS = ("spatial_ref", "crs")
_TEXT_KEYS = ("crs_wkt", "spatial_ref")
_CODE_KEYS = ("epsg_code", "epsg", "proj:epsg", "proj:code")
_PLAIN_KEYS = ("crs",) + _CODE_KEYS
_EPSG_TEXT = re.compile(
    r"(?i)\s*(?:epsg:{1,2}|urn:ogc:def:crs:epsg:[^:]*:|https?://www\.opengis\.net/def/crs/epsg/0/)?(\d+)\s*"
)


def epsg(value: Any, where: str) -> str:
    """'EPSG:<code>' for a code, an 'EPSG:n' string, a WKT or PROJ string; `where` names its origin."""
    if isinstance(value, bool):
        raise InputError(f"{where}: {value!r} is not a CRS; {CRS_FIX}")
    if isinstance(value, int) or (hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0 and value.dtype.kind in "iu"):
        return _known(int(value), where)
    text = str(value).strip()
    match = _EPSG_TEXT.fullmatch(text)
    if match:
        return _known(int(match.group(1)), where)
    return _epsg_from_pyproj(text, where)


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
        return _from_grid_mapping(ds[holder].attrs, f"grid mapping {holder!r}")
    for holder in _HOLDERS:
        if holder in ds.variables and _has_crs_attrs(ds[holder].attrs):
            return _from_grid_mapping(ds[holder].attrs, f"variable {holder!r}")
    for attrs, where in [(ds[n].attrs, f"variable {n!r}") for n in names] + [(ds.attrs, "the input's attributes")]:
        for key in _PLAIN_KEYS:
            if key in attrs and isinstance(attrs[key], (str, int)):
                return epsg(attrs[key], f"{where} attribute {key!r}")
    return GEOGRAPHIC if geographic else None


def _grid_mapping_name(var: xr.DataArray) -> str | None:
    """The grid mapping variable of `var`; CF allows 'crs' and the extended 'crs: x y' form."""
    value = var.attrs.get("grid_mapping") or var.encoding.get("grid_mapping")
    if not value or not isinstance(value, str):
        return None
    extended = re.findall(r"(\S+):", value)
    return extended[0] if extended else value.strip()


def _has_crs_attrs(attrs: Mapping[str, Any]) -> bool:
    return any(k in attrs for k in _TEXT_KEYS + _CODE_KEYS + ("grid_mapping_name",))


def _from_grid_mapping(attrs: Mapping[str, Any], where: str) -> str:
    for key in _CODE_KEYS:
        if key in attrs:
            return epsg(attrs[key], f"{where} attribute {key!r}")
    for key in _TEXT_KEYS:
        if key in attrs:
            return epsg(attrs[key], f"{where} attribute {key!r}")
    if attrs.get("grid_mapping_name") == "latitude_longitude":
        return GEOGRAPHIC
    if "grid_mapping_name" in attrs:
        return _epsg_from_cf(attrs, where)
    raise InputError(f"{where} has no crs_wkt, spatial_ref or epsg_code attribute; {CRS_FIX}")


def _pyproj_crs(where: str) -> Any:
    try:
        from pyproj import CRS
    except ImportError:
        raise InputError(
            f"{where} is not an EPSG code; reading it needs pyproj (pip install 'chronozarr[geo]'), or {CRS_FIX}"
        ) from None
    return CRS


def _epsg_from_pyproj(text: str, where: str) -> str:
    CRS = _pyproj_crs(where)
    try:
        crs = CRS.from_user_input(text)
    except Exception:  # pyproj raises CRSError and others for text it cannot parse
        raise InputError(f"{where}: cannot read a CRS from {text[:80]!r}; {CRS_FIX}") from None
    return _code(crs, where)


def _epsg_from_cf(attrs: Mapping[str, Any], where: str) -> str:
    CRS = _pyproj_crs(where)
    try:
        crs = CRS.from_cf(dict(attrs))
    except Exception:
        raise InputError(f"{where}: cannot read a CRS from its CF parameters; {CRS_FIX}") from None
    return _code(crs, where)


def _code(crs: Any, where: str) -> str:
    code = crs.to_epsg()
    if code is None and crs.to_authority() == ("OGC", "CRS84"):
        code = 4326  # the same datum and coordinates; only the axis order differs, and x is longitude here
    if code is None:
        raise InputError(f"{where} describes a CRS with no EPSG code ({crs.name}); chronozarr records EPSG codes; {CRS_FIX}")
    return f"EPSG:{code}"
