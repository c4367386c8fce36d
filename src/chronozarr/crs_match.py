"""A CRS without an EPSG code, matched against EPSG with pyproj.

Exports from ENVI, ArcGIS and older GDAL describe common CRSs in WKT without a code ("UTM Zone 25,
Southern Hemisphere" on GRS80 with an unnamed datum). A store records EPSG codes, so such a CRS is
recorded as the EPSG CRS it is equivalent to: the same projection method and parameters, ellipsoid,
prime meridian and units, and the same datum (an unnamed datum is taken as any datum on that
ellipsoid, since nothing else is known of it and the grid's coordinates do not depend on it).
When none is equivalent the error names the closest candidates and what differs in each, and the
example codes in the fixes are the ones computed for this input.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .errors import InputError

UNNAMED_DATUM = re.compile(r"(?i)^\s*(d_)?(unknown|undefined|unnamed|not[ _]specified|user[ _]defined|custom|none)(?![a-z0-9])|^\s*$")
CANDIDATES_SHOWN = 3
PYPROJ_EQUIVALENT = 90  # PROJ's identify(): 90 and above means equivalent, whatever the names


@dataclass(frozen=True)
class Candidate:
    """An EPSG CRS close to the input: its code, name, pyproj's confidence and what differs."""

    code: int
    name: str
    confidence: int
    differences: tuple[str, ...]
    unnamed_datum: bool = False
    deprecated: bool = False
    outside: bool = False  # its area of use does not hold the input's centre (known only with an extent)
    published: str = ""  # its datum's publication date in PROJ's database (ISO, "" when unknown)

    def rank(self) -> tuple[Any, ...]:
        """Closest first, and among equivalent CRSs one order whatever PROJ lists them in: in use (not
        deprecated), pyproj's confidence, used where the input is, the latest datum realisation (a
        GRS80 datum declared with a null shift to WGS 84 is today's, e.g. SIRGAS 2000 rather than
        SIRGAS 1995), then the lowest code."""
        return (len(self.differences), self.deprecated, -self.confidence, self.outside, _descending(self.published), self.code)

    @property
    def label(self) -> str:
        return f"EPSG:{self.code} ({self.name})"


@dataclass(frozen=True)
class Match:
    """The EPSG code recorded for a CRS that had none, and the sentence that says so."""

    code: str
    note: str


def match_epsg(crs: Any, where: str, extent: tuple[float, float, float, float] | None = None, pixel: float | None = None) -> Match:
    """The EPSG CRS equivalent to `crs` (a pyproj CRS without a code), or an InputError naming the
    closest ones; `extent` (west, south, east, north in the CRS's units) places the input, and the
    pixel size of raster files (`pixel`, in those units) adds the convert options that warp them."""
    candidates = _candidates(crs.to_wkt(), extent)
    equivalent = [c for c in candidates if not c.differences]
    if equivalent:
        return Match(f"EPSG:{equivalent[0].code}", _match_note(crs, where, equivalent))
    raise InputError(_no_match_message(crs, where, candidates, extent, pixel))


@lru_cache(maxsize=64)
def _candidates(wkt: str, extent: tuple[float, float, float, float] | None) -> tuple[Candidate, ...]:
    """pyproj's EPSG matches, then EPSG CRSs of the same method used where the input is, closest first."""
    from pyproj import CRS

    crs = CRS.from_wkt(wkt)
    centre = centre_lonlat(crs, extent) if extent is not None else None
    found: dict[int, Candidate] = {}
    for info in _base(crs).list_authority(auth_name="EPSG", min_confidence=0):
        code = int(info.code)
        found[code] = _candidate(crs, CRS.from_epsg(code), info.confidence, centre)
    for code in _nearby_codes(crs, extent):
        if code not in found:
            found[code] = _candidate(crs, CRS.from_epsg(code), 0, centre)
    return tuple(sorted(found.values(), key=Candidate.rank))


def _candidate(crs: Any, other: Any, confidence: int, centre: tuple[float, float] | None) -> Candidate:
    diffs, unnamed = differences(crs, other)
    if confidence >= PYPROJ_EQUIVALENT:
        diffs = [d for d in diffs if not d.startswith("datum")]
    area = other.area_of_use
    outside = centre is not None and area is not None and not (area.west <= centre[0] <= area.east and area.south <= centre[1] <= area.north)
    datum_id = (other.datum.to_json_dict().get("id") or {}) if other.datum is not None else {}
    published = _datum_published(str(datum_id.get("code", ""))) if datum_id.get("authority") == "EPSG" else ""
    return Candidate(int(other.to_epsg() or 0), other.name, confidence, tuple(diffs), unnamed, other.is_deprecated, outside, published)


@lru_cache(maxsize=256)
def _datum_published(code: str) -> str:
    """The publication date PROJ's database gives EPSG datum `code`, "" when it gives none (or
    the database cannot be read: the order then falls to the code)."""
    import os
    import sqlite3
    from contextlib import closing

    from pyproj.datadir import get_data_dir

    path = os.path.join(get_data_dir().split(os.pathsep)[0], "proj.db")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT publication_date FROM geodetic_datum WHERE auth_name = 'EPSG' AND code = ?", (code,)).fetchone()
    except sqlite3.Error:
        return ""
    return str(row[0]) if row and row[0] else ""


def _descending(date: str) -> tuple[int, ...]:
    """A sort key putting later ISO dates first and unknown ones last."""
    return tuple(-int(part) for part in date.split("-") if part.isdigit()) or (1,)


def differences(a: Any, b: Any) -> tuple[list[str], bool]:
    """What makes `a` and `b` different CRSs, in words, and whether `a`'s datum is unnamed (then
    taken as `b`'s). Names of the CRSs themselves never count; a BoundCRS is its source CRS plus
    the shift it declares, which `b` does not."""
    if a.is_bound and not b.is_bound:
        out, _ = differences(a.source_crs, b)
        values = ", ".join(f"{p.value:g}" for p in a.coordinate_operation.params) if a.coordinate_operation else "unknown"
        return out + [f"a declared shift to {_name(a.target_crs)} ({values}; {b.name} declares none)"], False
    if a.is_projected != b.is_projected or a.is_geographic != b.is_geographic:
        kind = "projected" if a.is_projected else "geographic" if a.is_geographic else "other"
        return [f"kind ({kind}, not {'projected' if b.is_projected else 'geographic'})"], False
    out = _projection_differences(a, b) if a.is_projected else []
    ea, eb = a.ellipsoid, b.ellipsoid
    if ea is None or eb is None or not (
        math.isclose(ea.semi_major_metre, eb.semi_major_metre, rel_tol=1e-12, abs_tol=1e-6)
        and math.isclose(ea.inverse_flattening, eb.inverse_flattening, rel_tol=1e-11, abs_tol=1e-9)
    ):
        out.append(f"ellipsoid ({_name(ea)}, not {_name(eb)})")
    if not math.isclose(a.prime_meridian.longitude, b.prime_meridian.longitude, abs_tol=1e-9):
        out.append(f"prime meridian ({a.prime_meridian.longitude}, not {b.prime_meridian.longitude})")
    units_a, units_b = _axis_units(a), _axis_units(b)
    if units_a[0] != units_b[0]:
        out.append(f"units ({units_a[1]}, not {units_b[1]})")
    unnamed = bool(UNNAMED_DATUM.search(_name(a.datum)))
    if not unnamed and _normal(_name(a.datum)) != _normal(_name(b.datum)):
        out.append(f"datum ({_name(a.datum)}, not {_name(b.datum)})")
    return out, unnamed


def null_shift_source(crs: Any) -> tuple[Any, str | None]:
    """The source CRS of a BoundCRS whose shift to its hub is the identity (a TOWGS84 of zeros, as
    GDAL writes for `+towgs84=0,0,0,0,0,0,0`), with the sentence saying so; any other CRS unchanged.
    A null shift adds nothing to the source CRS, so it is matched as that; a non-zero one names a
    datum of its own and the CRS stays bound, never equated with an EPSG CRS it is not."""
    operation = crs.coordinate_operation if crs.is_bound else None
    if operation is None or not operation.params or any(float(p.value) != 0.0 for p in operation.params):
        return crs, None
    hub = _name(crs.target_crs)
    return crs.source_crs, (f"it is bound to {hub} by a null {operation.method_name} (all {len(operation.params)} "
                            f"parameters 0, the identity), so its source CRS is the one compared")


def unknown_datum(crs: Any) -> bool:
    """True when the CRS's datum is none PROJ knows by name and it gives no shift (TOWGS84): nothing
    then ties it to another datum, so --crs may state which one it is without moving a pixel."""
    if crs.is_bound or crs.datum is None:
        return False
    from pyproj.crs import Datum

    try:
        Datum.from_name(crs.datum.name)
    except Exception:  # pyproj.exceptions.CRSError: no datum of that name
        return True
    return False


def _projection_differences(a: Any, b: Any) -> list[str]:
    op_a, op_b = a.coordinate_operation, b.coordinate_operation
    if op_a is None or op_b is None:
        return ["projection (undefined)"]
    if (op_a.method_code or op_a.method_name) != (op_b.method_code or op_b.method_name):
        return [f"projection ({op_a.method_name}, not {op_b.method_name})"]
    values_b = {_param_key(p): p for p in op_b.params}
    out = []
    for p in op_a.params:
        q = values_b.get(_param_key(p))
        if q is None or not math.isclose(_si(p), _si(q), rel_tol=1e-9, abs_tol=1e-6 if p.unit_category == "linear" else 1e-11):
            out.append(f"{p.name.lower()} ({p.value:g}, not {q.value:g})" if q is not None else f"{p.name.lower()}")
    return out


def _base(crs: Any) -> Any:
    """The CRS whose projection and datum a CRS has: a BoundCRS's source, else itself."""
    return crs.source_crs if crs.is_bound else crs


def _param_key(param: Any) -> str:
    return str(param.code) if param.code else param.name.lower()


def _si(param: Any) -> float:
    return float(param.value) * float(param.unit_conversion_factor or 1.0)


def _axis_units(crs: Any) -> tuple[float, str]:
    axis = crs.axis_info[0] if crs.axis_info else None
    return (round(float(axis.unit_conversion_factor), 12), axis.unit_name) if axis else (1.0, "unknown")


def _name(obj: Any) -> str:
    return getattr(obj, "name", None) or "unnamed"


def _normal(name: str) -> str:
    """A datum name without case, punctuation, ESRI's D_ prefix and PROJ's 'ensemble' suffix."""
    return re.sub(r"[^a-z0-9]", "", name.lower().removeprefix("d_").removesuffix(" ensemble"))


def _nearby_codes(crs: Any, extent: tuple[float, float, float, float] | None) -> list[int]:
    """EPSG projected CRSs with the input's projection method whose area of use holds the input."""
    crs = _base(crs)
    if not crs.is_projected or crs.coordinate_operation is None:
        return []
    from pyproj.aoi import AreaOfInterest
    from pyproj.database import query_crs_info
    from pyproj.enums import PJType

    lon, lat = centre_lonlat(crs, extent)
    if not (math.isfinite(lon) and math.isfinite(lat)):
        return []
    area = AreaOfInterest(lon - 0.01, max(lat - 0.01, -90), lon + 0.01, min(lat + 0.01, 90))
    method = crs.coordinate_operation.method_name
    infos = query_crs_info(auth_name="EPSG", pj_types=PJType.PROJECTED_CRS, area_of_interest=area, contains=False)
    return [int(i.code) for i in infos if i.projection_method_name == method and not i.deprecated]


def centre_lonlat(crs: Any, extent: tuple[float, float, float, float] | None) -> tuple[float, float]:
    """Longitude and latitude of the extent's centre, else of the projection's origin."""
    if extent is not None:
        from pyproj import Transformer

        west, south, east, north = extent
        to_lonlat = Transformer.from_crs(crs, crs.geodetic_crs, always_xy=True)
        lon, lat = to_lonlat.transform((west + east) / 2, (south + north) / 2)
        return float(lon), float(lat)
    crs = _base(crs)
    values = {int(p.code): p.value for p in crs.coordinate_operation.params if p.code} if crs.coordinate_operation else {}
    lon = next((values[c] for c in (8802, 8822, 8812, 8833) if c in values), 0.0)
    lat = next((values[c] for c in (8801, 8821, 8811, 8832) if c in values), 0.0)
    return float(lon), float(lat)


def utm_code(lon: float, lat: float) -> int:
    """The WGS 84 UTM zone (EPSG 326xx north, 327xx south) holding the point."""
    zone = min(int(((lon + 180) % 360) // 6) + 1, 60)
    return (32600 if lat >= 0 else 32700) + zone


def _match_note(crs: Any, where: str, equivalent: list[Candidate]) -> str:
    best = equivalent[0]
    datum = f"; its datum ({_name(crs.datum)}) is unnamed, so any datum on that ellipsoid fits" if best.unnamed_datum else ""
    others = ", ".join(c.label for c in equivalent[1:CANDIDATES_SHOWN + 1])
    latest = f", of the equivalent CRSs the one with the latest datum (published {best.published})" if others and best.published else ""
    also = f"; also equivalent: {others} (give --crs to record one of them)" if others else ""
    what = _describe(crs)
    return f"{where} ({crs.name}) has no EPSG code; recorded as {best.label}{latest}, equivalent: {what}{datum}{also}"


def _describe(crs: Any) -> str:
    parts = []
    if crs.is_projected and crs.coordinate_operation is not None:
        parts.append(f"the same {crs.coordinate_operation.method_name} parameters")
    parts.append(f"the {_name(crs.ellipsoid)} ellipsoid")
    return " and ".join(parts)


def _no_match_message(crs: Any, where: str, candidates: tuple[Candidate, ...], extent: Any, pixel: float | None) -> str:
    """The refusal: first the EPSG CRSs that --crs accepts as equivalent (they differ in the datum's
    name only, and the datum is unknown to PROJ), which store the data exactly; then the warp."""
    shown = candidates[:CANDIDATES_SHOWN]
    listing = "; ".join(
        f"{c.label}, pyproj confidence {c.confidence}%, differs in {_some(c.differences)}" for c in shown
    )
    closest = f"the closest are {listing}" if shown else "pyproj finds no EPSG CRS close to it"
    lon, lat = centre_lonlat(crs, extent)
    code = utm_code(lon, lat) if math.isfinite(lon) and math.isfinite(lat) else 4326
    target = f"EPSG:{code}"
    exact = [c for c in candidates if all(d.startswith("datum") for d in c.differences)] if unknown_datum(crs) else []
    if exact:
        codes = ", ".join(c.label for c in exact[:CANDIDATES_SHOWN + 2])
        declare = (f"Stored exactly, without resampling, with --crs naming one of the EPSG CRSs with the same projection, "
                   f"parameters, ellipsoid and units (its datum {_name(crs.datum)} is unknown to PROJ and declares no "
                   f"shift): {codes}, e.g. --crs EPSG:{exact[0].code}. If the datum is another, r")
    elif shown:
        declare = f"If the data is in fact on {shown[0].label}, say so with --crs EPSG:{shown[0].code}; otherwise r"
    else:
        declare = "R"
    size = _size_in(crs, code, extent, pixel) if pixel else None
    warp = f", or let convert warp the files: --grid {target} --resolution {size:.4g} --resampling bilinear" if size else ""
    return (
        f"{where} ({crs.name}) is not an EPSG CRS and no EPSG CRS is equivalent to it ({closest}). "
        f"{declare}eproject it onto an EPSG grid (here the UTM zone it lies in): gdalwarp -t_srs {target} -r bilinear IN OUT{warp}"
    )


def _some(differences: tuple[str, ...], shown: int = 3) -> str:
    more = len(differences) - shown
    return ", ".join(differences[:shown]) + (f" and {more} more" if more > 0 else "")


def _size_in(crs: Any, code: int, extent: Any, pixel: float) -> float | None:
    """About how long a pixel of `crs` at the input's centre is in the units of EPSG `code`."""
    from pyproj import CRS, Transformer

    if extent is None:
        return None
    west, south, east, north = extent
    x, y = (west + east) / 2, (south + north) / 2
    to_target = Transformer.from_crs(crs, CRS.from_epsg(code), always_xy=True)
    (x0, x1), (y0, y1) = to_target.transform([x, x + pixel], [y, y])
    size = math.hypot(x1 - x0, y1 - y0)
    return size if math.isfinite(size) and size > 0 else None
