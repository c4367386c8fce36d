"""Save the Sentinel-2 L2A items of a STAC search as `items.json`, the input of `chronozarr convert`.

Offline (the default) it writes a recorded search instead: four dates of two overlapping tiles in
the shape Earth Search answers (`sentinel-2-l2a`: assets `blue`, `green`, `red`, `nir` with their
`raster:bands` scale, offset and nodata and their `eo:bands` common names), with small synthetic
COGs beside it in `cogs/` in place of the 10980 x 10980 originals, so the example runs anywhere.
With `--live` it asks the Earth Search STAC API for the same collection over `--bbox` and
`--datetime` (no key or signing needed; the assets are public COGs on AWS).

    python fetch_items.py OUT_DIR                       # recorded response, small COGs
    python fetch_items.py OUT_DIR --live --bbox -74.52,-8.52,-74.46,-8.46 --datetime 2024-06-01/2024-08-31
"""

from __future__ import annotations

import argparse
import json
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from rasterio.transform import from_origin

EARTH_SEARCH = "https://earth-search.aws.element84.com/v1/search"
BANDS = {"blue": ("B02", 0.49), "green": ("B03", 0.56), "red": ("B04", 0.665), "nir": ("B08", 0.842)}
EPSG, SIZE = 32718, 64
TILES = {"18LUQ": 500_000, "18LVQ": 500_480}  # west edges (m): two tiles overlapping by 16 pixels
NORTH = 9_160_640
DATES = ["2024-06-03T15:12:41Z", "2024-06-13T15:12:39Z", "2024-06-23T15:12:44Z", "2024-07-03T15:12:40Z"]


def live_search(bbox: list[float], datetime: str, max_cloud: float, collection: str = "sentinel-2-l2a") -> dict[str, Any]:
    """Every page of an Earth Search search of one collection, as one FeatureCollection."""
    body: dict[str, Any] | None = {
        "collections": [collection], "bbox": bbox, "datetime": datetime, "limit": 100,
        "query": {"eo:cloud_cover": {"lt": max_cloud}}, "sortby": [{"field": "properties.datetime", "direction": "asc"}],
    }
    url, features = EARTH_SEARCH, []
    while body is not None:
        request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            page = json.load(answer)
        features += page["features"]
        following = next((link for link in page.get("links", []) if link.get("rel") == "next"), None)
        url, body = (following["href"], following.get("body")) if following else (url, None)
    return {"type": "FeatureCollection", "features": features}


def scene(tile: str, t: int) -> dict[str, np.ndarray]:
    """Surface reflectance DN of one tile at one date: forest, a river drifting east, a swath edge."""
    west = TILES[tile]
    rng = np.random.default_rng([t, list(TILES).index(tile)])
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    river = np.abs((west - 500_000) / 10 + x - (20 + 2 * t + 6 * np.sin(y / 9))) < 4
    dn = {
        "blue": rng.normal(400, 30, (SIZE, SIZE)), "green": rng.normal(700, 40, (SIZE, SIZE)),
        "red": rng.normal(450, 40, (SIZE, SIZE)), "nir": rng.normal(3000, 200, (SIZE, SIZE)),
    }
    for band, water in {"blue": 900, "green": 1100, "red": 1000, "nir": 600}.items():
        dn[band][river] = rng.normal(water, 40, river.sum())
    out = {band: np.clip(np.round(v), 1, 10000).astype(np.uint16) for band, v in dn.items()}
    if tile == "18LVQ" and t == 1:  # this pass clipped the tile: no data in its west third
        for v in out.values():
            v[:, :24] = 0
    return out


def asset(href: str, band: str) -> dict[str, Any]:
    name, wavelength = BANDS[band]
    return {
        "href": href, "type": "image/tiff; application=geotiff; profile=cloud-optimized",
        "title": f"{band.capitalize()} ({name}) - 10m", "roles": ["data", "reflectance"], "gsd": 10,
        "eo:bands": [{"name": band, "common_name": band, "center_wavelength": wavelength}],
        "raster:bands": [{"nodata": 0, "data_type": "uint16", "spatial_resolution": 10, "scale": 0.0001, "offset": -0.1}],
    }


def item(tile: str, t: int, hrefs: dict[str, str]) -> dict[str, Any]:
    day = DATES[t][:10].replace("-", "")
    west = TILES[tile]
    bbox_utm = [west, NORTH - SIZE * 10, west + SIZE * 10, NORTH]
    return {
        "type": "Feature", "stac_version": "1.0.0", "id": f"S2B_{tile}_{day}_0_L2A", "collection": "sentinel-2-l2a",
        "stac_extensions": [
            "https://stac-extensions.github.io/eo/v1.1.0/schema.json",
            "https://stac-extensions.github.io/raster/v1.1.0/schema.json",
            "https://stac-extensions.github.io/projection/v1.1.0/schema.json",
        ],
        "bbox": [-74.5, -8.47, -74.49, -8.46],
        "geometry": {"type": "Polygon", "coordinates": [[[-74.5, -8.47], [-74.49, -8.47], [-74.49, -8.46], [-74.5, -8.46], [-74.5, -8.47]]]},
        "properties": {
            "datetime": DATES[t], "platform": "sentinel-2b", "constellation": "sentinel-2", "instruments": ["msi"],
            "eo:cloud_cover": 3.1, "proj:epsg": EPSG, "proj:bbox": bbox_utm, "mgrs:grid_square": tile[3:],
        },
        "links": [],
        "assets": {band: asset(href, band) for band, href in hrefs.items()},
    }


def recorded(out: Path, base_url: str | None) -> dict[str, Any]:
    """The recorded response and its COGs; hrefs relative to items.json, or under `base_url`."""
    (out / "cogs").mkdir(parents=True, exist_ok=True)
    features = []
    for t in range(len(DATES)):
        for tile, west in TILES.items():
            hrefs = {}
            for band, values in scene(tile, t).items():
                name = f"cogs/{tile}_{DATES[t][:10]}_{BANDS[band][0]}.tif"
                with rasterio.open(out / name, "w", driver="COG", width=SIZE, height=SIZE, count=1, dtype="uint16",
                                   crs=f"EPSG:{EPSG}", transform=from_origin(west, NORTH, 10, 10), nodata=0) as ds:
                    ds.write(values, 1)
                hrefs[band] = f"{base_url.rstrip('/')}/{name}" if base_url else name
            features.append(item(tile, t, hrefs))
    return {"type": "FeatureCollection", "features": features}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--live", action="store_true", help="search Earth Search instead of the recorded response")
    parser.add_argument("--bbox", default="-74.52,-8.52,-74.46,-8.46", help="west,south,east,north in degrees (--live)")
    parser.add_argument("--datetime", default="2024-06-01/2024-08-31", help="an RFC 3339 interval (--live)")
    parser.add_argument("--max-cloud", type=float, default=20, help="eo:cloud_cover below this, percent (--live)")
    parser.add_argument("--base-url", help="recorded: write asset hrefs under this URL (where OUT_DIR is served)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.live:
        found = live_search([float(v) for v in args.bbox.split(",")], args.datetime, args.max_cloud)
    else:
        found = recorded(args.out, args.base_url)
    (args.out / "items.json").write_text(json.dumps(found, indent=1))
    print(f"{args.out / 'items.json'}: {len(found['features'])} items")
