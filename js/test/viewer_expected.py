"""Expected values for the viewer's pure modules, computed without their code: pyproj for the
placement of points (lib/geo.js), numpy for percentiles (lib/stretch.js) and normalised
differences (lib/products.js).

Usage: python viewer_expected.py OUT_DIR -> OUT_DIR/index.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from pyproj import Geod, Transformer

# (CRS, lon/lat points inside its zone or domain)
PLACES = {
    "EPSG:32631": [(3.0, 0.0), (0.5, 45.2), (5.9, 60.1), (2.35, 48.85), (4.1, -33.9), (0.2, 80.0)],
    "EPSG:32633": [(15.0, 10.0), (12.1, 52.5), (17.9, -5.0), (13.4, 0.001)],
    "EPSG:32719": [(-69.0, -33.4), (-71.9, -10.0), (-66.1, -55.0), (-70.5, -0.01)],
    "EPSG:32660": [(177.0, 38.0), (179.9, -17.0), (174.1, 70.0)],
    "EPSG:3857": [(0.0, 0.0), (13.4, 52.5), (-122.4, 37.8), (151.2, -33.9), (179.0, 85.0)],
    "EPSG:4326": [(7.5, 46.9), (-58.4, -34.6)],
}


def places() -> list[dict]:
    out = []
    for crs, points in PLACES.items():
        forward = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        for lon, lat in points:
            x, y = forward.transform(lon, lat)
            out.append({"crs": crs, "lon": lon, "lat": lat, "x": x, "y": y})
    return out


def degree_lengths() -> list[dict]:
    """Ground metres of a degree of longitude along a parallel: a geodesic of 1e-4 degrees, scaled."""
    geod = Geod(ellps="WGS84")
    return [{"lat": lat, "metres": geod.inv(0.0, lat, 1e-4, lat)[2] * 1e4} for lat in (0.0, 12.5, 45.0, 60.0, -33.9, 80.0)]


def percentiles() -> list[dict]:
    rng = np.random.default_rng(7)
    cases = []
    for n in (1, 2, 37, 101, 1001, 5000):
        values = rng.normal(0.3, 0.2, n)
        for lo, hi in ((0.02, 0.98), (0.1, 0.9)):
            # The stretch takes the value at the nearest rank, round(f * (n - 1)) of the sorted values.
            cases.append({
                "values": values.tolist(), "lo": lo, "hi": hi,
                "range": [float(np.percentile(values, lo * 100, method="nearest")), float(np.percentile(values, hi * 100, method="nearest"))],
                "extent": [float(values.min()), float(values.max())],
            })
    return cases


def differences() -> list[dict]:
    rng = np.random.default_rng(11)
    a = np.concatenate([rng.uniform(-0.2, 1.2, 200), [0.0, 0.5, -0.3, 0.2]])
    b = np.concatenate([rng.uniform(-0.2, 1.2, 200), [0.0, -0.5, 0.1, -0.1]])
    s = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        nd = np.where(s == 0, 0.0, np.clip((a - b) / s, -1, 1))
    return [{"a": float(x), "b": float(y), "nd": float(v)} for x, y, v in zip(a, b, nd, strict=True)]


if __name__ == "__main__":
    expected = {"places": places(), "degrees": degree_lengths(), "percentiles": percentiles(), "differences": differences()}
    (Path(sys.argv[1]) / "index.json").write_text(json.dumps(expected))
