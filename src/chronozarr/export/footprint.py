"""Where a store lies on the globe: its level-0 outline in WGS84 longitude/latitude, for STAC."""

from __future__ import annotations

from typing import Any

Bounds = tuple[float, float, float, float]
POINTS_PER_EDGE = 16  # a projected straight edge is a curve in longitude/latitude


def wgs84_footprint(crs: str, bounds: Bounds) -> tuple[list[float], dict[str, Any]]:
    """(bbox, GeoJSON Polygon) in WGS84 of the rectangle `bounds` (xmin, ymin, xmax, ymax) in `crs`.

    Every edge is densified before reprojection, so the polygon follows the curved edges of a UTM
    footprint and the bbox holds all of it. The ring runs counterclockwise (RFC 7946). Footprints
    across the antimeridian are not split.
    """
    import pyproj

    transformer = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    xs, ys = _ring(bounds)
    lons, lats = transformer.transform(xs, ys)
    ring = [[float(lon), float(lat)] for lon, lat in zip(lons, lats, strict=False)]
    ring.append(ring[0])
    bbox = [min(lons), min(lats), max(lons), max(lats)]
    return [float(v) for v in bbox], {"type": "Polygon", "coordinates": [ring]}


def _ring(bounds: Bounds) -> tuple[list[float], list[float]]:
    """Points along the rectangle's edges, counterclockwise from the lower left, not closed."""
    xmin, ymin, xmax, ymax = bounds
    corners = [(xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax)]
    xs: list[float] = []
    ys: list[float] = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1], strict=False):
        for i in range(POINTS_PER_EDGE):
            f = i / POINTS_PER_EDGE
            xs.append(x0 + (x1 - x0) * f)
            ys.append(y0 + (y1 - y0) * f)
    return xs, ys
