"""Which pixels of a level an area holds, and which level an area's series reads (issue 39).

An area is a box (west, south, east, north), a Polygon or MultiPolygon (holes honoured) or a
point, in the store's CRS (the read layer reprojects one given in another CRS before it gets
here). The rule, which js/src/reader/region.js repeats operation for operation in float64:

- a pixel belongs to an area when its centre `origin + (i + 0.5) * step` (spec 2.2) lies inside;
- the boundary is closed: a centre on an edge or vertex is inside, on a hole's edge too;
- a box compares `west <= x <= east` and `south <= y <= north`;
- a polygon ring counts crossings of the ray towards +x, an edge crossing when exactly one of its
  ends has `y > py`, at `x = x1 + (py - y1) * (x2 - x1) / (y2 - y1)`; odd crossings are inside.
  The same x decides the edge test (`px == x` with `py` between the ends, both included), and a
  horizontal edge holds `py == y1` with `px` between its ends;
- a point holds the one pixel whose area contains it (floor of its pixel coordinates).

The default level is the finest whose window (the rows and columns of the pixels whose centres lie
within the area's bounding box) holds at most PIXEL_BUDGET pixels; the window is what is read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from .geometry import Level

PIXEL_BUDGET = 512 * 512  # 262,144 pixels: the default level's window holds at most this many
BOX_SIDE_POINTS = 16  # points per side when a box is reprojected: its edges bend in another CRS

Ring = tuple[tuple[float, float], ...]
Polygon = tuple[Ring, ...]  # exterior ring first, then holes


@dataclass(frozen=True)
class Area:
    """One area in one CRS: exactly one of `box`, `polygons` (each exterior then holes) or `point`."""

    box: tuple[float, float, float, float] | None = None
    polygons: tuple[Polygon, ...] = ()
    point: tuple[float, float] | None = None

    def bounds(self) -> tuple[float, float, float, float]:
        """(west, south, east, north) of the area."""
        if self.box is not None:
            return self.box
        if self.point is not None:
            return (*self.point, *self.point)
        xs = [x for poly in self.polygons for x, _ in poly[0]]
        ys = [y for poly in self.polygons for _, y in poly[0]]
        return (min(xs), min(ys), max(xs), max(ys))

    def mapped(self, fn: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]) -> Area:
        """The area with every coordinate passed through fn(xs, ys) (a reprojection); a box becomes
        a polygon with BOX_SIDE_POINTS per side, since its sides are curves in another CRS."""
        if self.point is not None:
            x, y = fn(np.array([self.point[0]]), np.array([self.point[1]]))
            return Area(point=(float(x[0]), float(y[0])))
        polygons = self.polygons if self.box is None else (box_ring(self.box),)
        out = []
        for poly in polygons:
            rings = []
            for ring in poly:
                xs, ys = fn(np.array([p[0] for p in ring], dtype=np.float64), np.array([p[1] for p in ring], dtype=np.float64))
                rings.append(tuple((float(x), float(y)) for x, y in zip(xs, ys, strict=True)))
            out.append(tuple(rings))
        return area_of_polygons(out)


def box_ring(box: tuple[float, float, float, float]) -> Polygon:
    """A box as one closed ring, BOX_SIDE_POINTS per side, counter-clockwise."""
    w, s, e, n = box
    t = np.linspace(0.0, 1.0, BOX_SIDE_POINTS, endpoint=False)
    sides = [(w + (e - w) * t, np.full_like(t, s)), (np.full_like(t, e), s + (n - s) * t),
             (e - (e - w) * t, np.full_like(t, n)), (np.full_like(t, w), n - (n - s) * t)]
    pts = [(float(x), float(y)) for xs, ys in sides for x, y in zip(xs, ys, strict=True)]
    return (tuple(pts + [pts[0]]),)


def area_of(geometry: Any) -> Area:
    """An Area from a (west, south, east, north) sequence, a GeoJSON geometry (Polygon,
    MultiPolygon, Point; a Feature's geometry) or anything with `__geo_interface__` (shapely);
    an InputError naming what is wrong with it."""
    geo = getattr(geometry, "__geo_interface__", geometry)
    if isinstance(geo, Mapping):
        return _from_geojson(geo)
    if isinstance(geo, Sequence) and not isinstance(geo, str) and len(geo) == 4:
        w, s, e, n = (_number(v, "the box") for v in geo)
        if not (w < e and s < n):
            raise InputError(f"the box {tuple(geo)} is empty: give west < east and south < north")
        return Area(box=(w, s, e, n))
    raise InputError(f"{geometry!r} is not an area: give (west, south, east, north), a GeoJSON Polygon, MultiPolygon or Point")


def _from_geojson(geo: Mapping[str, Any]) -> Area:
    kind = geo.get("type")
    if kind == "Feature":
        return _from_geojson(geo.get("geometry") or {})
    coords = geo.get("coordinates")
    if kind == "Point":
        if not isinstance(coords, Sequence) or len(coords) < 2:
            raise InputError("the GeoJSON Point has no [x, y] coordinates: give \"coordinates\": [x, y]")
        return Area(point=(_number(coords[0], "the point"), _number(coords[1], "the point")))
    if kind == "Polygon":
        return area_of_polygons([_rings(coords)])
    if kind == "MultiPolygon":
        if not isinstance(coords, Sequence) or not coords:
            raise InputError("the GeoJSON MultiPolygon is empty: give it at least one polygon")
        return area_of_polygons([_rings(p) for p in coords])
    raise InputError(f"a GeoJSON {kind!r} is not an area: give a Polygon, MultiPolygon or Point")


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise InputError(f"{what} has the coordinate {value!r}: every coordinate must be a finite number")
    return float(value)


def _rings(coords: Any) -> Polygon:
    if not isinstance(coords, Sequence) or not coords:
        raise InputError("a GeoJSON polygon has no rings: give [[[x, y], ...]] with its exterior ring first")
    rings = []
    for ring in coords:
        if not isinstance(ring, Sequence):
            raise InputError("a polygon ring is not a list of [x, y] positions")
        pts = [(_number(p[0], "a polygon"), _number(p[1], "a polygon")) for p in ring if isinstance(p, Sequence) and len(p) >= 2]
        if len(pts) != len(ring):
            raise InputError("a polygon ring holds a position that is not [x, y]")
        if pts and pts[0] != pts[-1]:
            pts.append(pts[0])
        rings.append(tuple(pts))
    return tuple(rings)


def area_of_polygons(polygons: Sequence[Polygon]) -> Area:
    """An Area of checked polygons: each ring has three corners or more, encloses area and does not
    cross itself (an InputError naming the ring otherwise)."""
    for p, poly in enumerate(polygons):
        for r, ring in enumerate(poly):
            where = f"ring {r} of polygon {p}"
            if len(set(ring)) < 3:
                raise InputError(f"{where} is empty (fewer than three corners): draw it with at least three distinct corners")
            if _crosses_itself(ring):
                raise InputError(f"{where} crosses itself: redraw it so its edges meet only at its corners")
            if _ring_area(ring) == 0:
                raise InputError(f"{where} is empty (it encloses no area): draw it with corners that are not on one line")
    return Area(polygons=tuple(polygons))


def _ring_area(ring: Ring) -> float:
    return 0.5 * abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(ring, ring[1:], strict=False)))


def _crosses_itself(ring: Ring) -> bool:
    """Whether two edges of a ring that are not neighbours touch or cross."""
    edges = list(zip(ring, ring[1:], strict=False))
    n = len(edges)
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # the first and last edges share the closing corner
            if _segments_meet(*edges[i], *edges[j]):
                return True
    return False


def _segments_meet(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float], d: tuple[float, float]) -> bool:
    def orient(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> int:
        v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        return (v > 0) - (v < 0)

    def on(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> bool:
        return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])

    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    if o1 != o2 and o3 != o4:
        return True
    return (o1 == 0 and on(a, b, c)) or (o2 == 0 and on(a, b, d)) or (o3 == 0 and on(c, d, a)) or (o4 == 0 and on(c, d, b))


# -- pixels -----------------------------------------------------------------------------------


def centres(origin: float, step: float, span: slice) -> np.ndarray:
    """Centres of pixels span.start..span.stop-1: origin + (i + 0.5) * step, i absolute (spec 2.2)."""
    return origin + (np.arange(span.start, span.stop, dtype=np.float64) + 0.5) * step


def window(area: Area, level: Level) -> tuple[slice, slice] | None:
    """The rows and columns of `level` whose centres lie within the area's bounding box (for a point,
    its pixel); None when there are none."""
    if area.point is not None:
        pixel = point_pixel(area, level)
        return None if pixel is None else (slice(pixel[0], pixel[0] + 1), slice(pixel[1], pixel[1] + 1))
    w, s, e, n = area.bounds()
    a, _, c, _, d, f = level.transform
    cols = _span(centres(c, a, slice(0, level.width)), w, e)
    rows = _span(centres(f, d, slice(0, level.height)), s, n)
    return None if cols is None or rows is None else (rows, cols)


def _span(xs: np.ndarray, lo: float, hi: float) -> slice | None:
    inside = np.flatnonzero((xs >= lo) & (xs <= hi))
    return None if inside.size == 0 else slice(int(inside[0]), int(inside[-1]) + 1)


def point_pixel(area: Area, level: Level) -> tuple[int, int] | None:
    """(row, col) of the pixel whose area holds the point, None outside the level."""
    assert area.point is not None
    a, _, c, _, d, f = level.transform
    col, row = math.floor((area.point[0] - c) / a), math.floor((area.point[1] - f) / d)
    return (row, col) if 0 <= row < level.height and 0 <= col < level.width else None


def holds(area: Area, level: Level, rows: slice, cols: slice) -> np.ndarray:
    """(h, w) booleans: which pixels of rows x cols the area holds, by the module's rule."""
    a, _, c, _, d, f = level.transform
    xs, ys = centres(c, a, cols), centres(f, d, rows)
    if area.point is not None:
        pixel = point_pixel(area, level)
        out = np.zeros((ys.size, xs.size), dtype=bool)
        if pixel is not None and rows.start <= pixel[0] < rows.stop and cols.start <= pixel[1] < cols.stop:
            out[pixel[0] - rows.start, pixel[1] - cols.start] = True
        return out
    if area.box is not None:
        w, s, e, n = area.box
        return ((ys >= s) & (ys <= n))[:, None] & ((xs >= w) & (xs <= e))[None, :]
    out = np.zeros((ys.size, xs.size), dtype=bool)
    for poly in area.polygons:
        out |= _in_polygon(poly, xs, ys)
    return out


def _in_polygon(poly: Polygon, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    px, py = xs[None, :], ys[:, None]
    odd = np.zeros((ys.size, xs.size), dtype=bool)
    edge = np.zeros_like(odd)
    for ring in poly:
        for (x1, y1), (x2, y2) in zip(ring, ring[1:], strict=False):
            if y1 == y2:
                edge |= (py == y1) & (px >= min(x1, x2)) & (px <= max(x1, x2))
                continue
            at = x1 + (ys - y1) * (x2 - x1) / (y2 - y1)  # (h,): the edge's x on each centre row
            crossing = ((y1 > ys) != (y2 > ys))[:, None]
            odd ^= crossing & (px < at[:, None])
            between = ((ys >= min(y1, y2)) & (ys <= max(y1, y2)))[:, None]
            edge |= between & (px == at[:, None])
    return odd | edge


def choose_level(area: Area, levels: Sequence[Level], lod: int | None = None, budget: int = PIXEL_BUDGET) -> Level:
    """`levels[lod]`, or the finest level whose window holds at most `budget` pixels (the coarsest
    when none does; level 0 for a point); an InputError when the area is outside the store."""
    if lod is not None:
        if not 0 <= lod < len(levels):
            raise InputError(f"level {lod} does not exist: the store has levels 0..{len(levels) - 1}")
        return levels[lod]
    w, s, e, n = area.bounds()
    xmin, ymin, xmax, ymax = levels[0].bbox()
    if w > xmax or e < xmin or s > ymax or n < ymin:
        raise InputError(
            f"the area {area.bounds()} is outside the store, whose extent is {levels[0].bbox()}: "
            "give one that overlaps it, in the store's CRS or with its own CRS named"
        )
    if area.point is not None:
        return levels[0]
    for level in levels:
        span = window(area, level)
        if span is not None and (span[0].stop - span[0].start) * (span[1].stop - span[1].start) <= budget:
            return level
    return levels[-1]
