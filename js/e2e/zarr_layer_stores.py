"""Stores for zarr-layer.test.mjs and what a correct drawing of them is.

The stores are tests/interop's (a `none` UTM store and a `none` EPSG:4326 one). For each it prints
the options zarr-layer needs (edge bounds in the store's CRS, a proj4 string for UTM), level-0
pixels on a grid with their WGS84 centre and stored value at the timestep and band drawn, and
points just outside the footprint. Positions come from pyproj on the input grid, not from the store.
`utm_as_3857` is the UTM store placed where its coordinates are read as Web Mercator metres: where
zarr-layer 0.5.0 draws a store whose x exceeds 360 when it is given no proj4.
Usage: python e2e/zarr_layer_stores.py OUTDIR   (prints JSON)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "interop")]

import pyproj  # noqa: E402
from interop_stores import UTM, write_stores  # noqa: E402

T, BAND, EVERY = 1, 0, 3


def describe(name: str, da, crs: str, read_as: str | None = None) -> dict:
    """The store's facts, its positions those of its coordinates read in `read_as` (default: its CRS)."""
    to_wgs84 = pyproj.Transformer.from_crs(read_as or crs, "EPSG:4326", always_xy=True)
    xs, ys = da.x.values, da.y.values
    step = float(xs[1] - xs[0])
    left, right, top, bottom = xs[0] - step / 2, xs[-1] + step / 2, ys[0] + step / 2, ys[-1] - step / 2
    values = da.values[T, BAND]
    inside = []
    for y in range(1, len(ys) - 1, EVERY):
        for x in range(1, len(xs) - 1, EVERY):
            lon, lat = to_wgs84.transform(float(xs[x]), float(ys[y]))
            inside.append({"x": x, "y": y, "lon": lon, "lat": lat, "value": int(values[y, x])})
    margin = 3 * step
    middle = ((left + right) / 2, (top + bottom) / 2)
    outside = [to_wgs84.transform(px, py) for px, py in (
        (left - margin, middle[1]), (right + margin, middle[1]), (middle[0], top + margin), (middle[0], bottom - margin)
    )]
    return {
        "store": name,
        "crs": crs,
        "bounds": [float(left), float(bottom), float(right), float(top)],
        "size": [len(xs), len(ys)],
        "proj4": pyproj.CRS(crs).to_proj4() if crs == UTM else None,
        "t": T,
        "band": BAND,
        "clim": [int(values.min()), int(values.max())],
        "lonlat_bbox": _lonlat_bbox(to_wgs84, left, bottom, right, top),
        "corners": [list(to_wgs84.transform(x, y)) for x in (left, right) for y in (bottom, top)],
        "inside": inside,
        "outside": [list(p) for p in outside],
    }


def _lonlat_bbox(to_wgs84, left: float, bottom: float, right: float, top: float) -> list[list[float]]:
    """[[west, south], [east, north]] around the footprint's corners, for the map to fit."""
    corners = [to_wgs84.transform(x, y) for x in (left, right) for y in (bottom, top)]
    return [[min(c[0] for c in corners), min(c[1] for c in corners)], [max(c[0] for c in corners), max(c[1] for c in corners)]]


def main(out: Path) -> None:
    stores = write_stores(out)
    facts = {name: describe(name, da, UTM if name == "utm" else "EPSG:4326") for name, (_, da) in stores.items()}
    facts["utm_as_3857"] = describe("utm", stores["utm"][1], UTM, read_as="EPSG:3857")
    print(json.dumps(facts))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
