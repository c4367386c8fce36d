"""Save half a year of Landsat Collection 2 Level-2 items over a lake shore as `items.json`, the
input of a monthly `chronozarr convert --composite month --mask-bits qa_pixel:...`.

Offline (the default) it writes a recorded answer in the shape of the `landsat-c2-l2` collection:
Landsat 8 and 9 passes eight days apart from May to October 2023, each with the 30 m surface
reflectance assets `blue`, `green`, `red` and `nir08` (uint16, scale 2.75e-05, offset -0.2,
nodata 0) and the `qa_pixel` bit mask (bit 0 fill, 1 dilated cloud, 2 cirrus, 3 cloud, 4 cloud
shadow, 5 snow, 6 clear, 7 water, then the confidence pairs), with small synthetic COGs in `cogs/`.
With `--live` it asks Earth Search for the collection instead; its assets sit in a requester-pays
bucket, so reading them needs AWS credentials (`AWS_REQUEST_PAYER=requester`).

    python fetch_items.py OUT_DIR
    python fetch_items.py OUT_DIR --live --bbox -122.9,39.0,-122.8,39.1 --datetime 2023-05-01/2023-10-31
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from rasterio.transform import from_origin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sentinel2_stac"))
import fetch_items as sentinel2  # noqa: E402  (its paged Earth Search client)

EPSG, SIZE, PIXEL = 32610, 80, 30
WEST, NORTH = 499_980, 4_320_000
FIRST, LAST, EVERY = date(2023, 5, 3), date(2023, 10, 30), 8
BANDS = {"blue": ("SR_B2", 0.48), "green": ("SR_B3", 0.56), "red": ("SR_B4", 0.655), "nir08": ("SR_B5", 0.865)}
REFLECTANCE = {"land": (0.05, 0.09, 0.08, 0.30), "water": (0.04, 0.05, 0.03, 0.01)}
BIT = {"fill": 0, "dilated": 1, "cirrus": 2, "cloud": 3, "shadow": 4, "snow": 5, "clear": 6, "water": 7}
LOW_CONFIDENCE = 0b0101_0101 << 8  # cloud, shadow, snow and cirrus confidence 'low', as on clear pixels
HIGH_CLOUD = 0b11 << 8


def dn(reflectance: np.ndarray) -> np.ndarray:
    """Collection 2 surface reflectance as stored: (reflectance + 0.2) / 2.75e-05."""
    return np.clip(np.round((reflectance + 0.2) / 2.75e-05), 1, 65535).astype(np.uint16)


def scene(day: date, index: int) -> dict[str, np.ndarray]:
    """One pass: a lake whose shore recedes over the summer, clouds and shadows in QA_PIXEL."""
    rng = np.random.default_rng(100 + index)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(float)
    shore = 30 + 10 * (day - FIRST).days / 180 + 4 * np.sin(y / 9)
    water = x < shore
    cloud = np.zeros((SIZE, SIZE), dtype=bool)
    for _ in range(rng.integers(0, 3)):
        cy, cx, r = rng.integers(0, SIZE), rng.integers(0, SIZE), rng.integers(4, 14)
        cloud |= (y - cy) ** 2 + (x - cx) ** 2 < r * r
    dilated = (np.roll(cloud, 2, 0) | np.roll(cloud, -2, 0) | np.roll(cloud, 2, 1) | np.roll(cloud, -2, 1)) & ~cloud
    shadow = np.roll(np.roll(cloud, 5, 0), -4, 1) & ~cloud & ~dilated
    qa = np.where(water, 1 << BIT["water"], 1 << BIT["clear"]).astype(np.uint16) | LOW_CONFIDENCE
    qa[dilated] = (1 << BIT["dilated"]) | LOW_CONFIDENCE
    qa[shadow] = (1 << BIT["shadow"]) | LOW_CONFIDENCE
    qa[cloud] = (1 << BIT["cloud"]) | HIGH_CLOUD
    out = {}
    for k, band in enumerate(BANDS):
        reflectance = np.where(water, REFLECTANCE["water"][k], REFLECTANCE["land"][k]) + rng.normal(0, 0.005, (SIZE, SIZE))
        reflectance[shadow] *= 0.4
        reflectance[cloud | dilated] = rng.normal(0.55, 0.05, int((cloud | dilated).sum()))
        out[band] = dn(reflectance)
    if index % 5 == 3:  # the scene edge: a fill wedge in the north-east corner
        edge = x - y > 50
        for values in out.values():
            values[edge] = 0
        qa[edge] = 1 << BIT["fill"]
    out["qa_pixel"] = qa
    return out


def asset(href: str, key: str) -> dict[str, Any]:
    common = {"href": href, "type": "image/tiff; application=geotiff; profile=cloud-optimized", "gsd": PIXEL}
    if key == "qa_pixel":
        return common | {
            "title": "Pixel Quality Assessment Band", "roles": ["cloud", "cloud-shadow", "snow-ice", "water-mask"],
            "raster:bands": [{"nodata": 1, "data_type": "uint16", "spatial_resolution": PIXEL, "unit": "bit index"}],
        }
    name, wavelength = BANDS[key]
    return common | {
        "title": f"{key} ({name})", "roles": ["data", "reflectance"],
        "eo:bands": [{"name": name, "common_name": "nir" if key == "nir08" else key, "center_wavelength": wavelength}],
        "raster:bands": [{"nodata": 0, "data_type": "uint16", "spatial_resolution": PIXEL, "scale": 2.75e-05, "offset": -0.2}],
    }


def acquisitions() -> list[tuple[date, str]]:
    days, day, k = [], FIRST, 0
    while day <= LAST:
        days.append((day, "landsat-8" if k % 2 == 0 else "landsat-9"))
        day, k = day + timedelta(days=EVERY), k + 1
    return days


def item(day: date, platform: str, hrefs: dict[str, str]) -> dict[str, Any]:
    box = [-122.9, 39.0, -122.872, 39.022]
    return {
        "type": "Feature", "stac_version": "1.0.0", "collection": "landsat-c2-l2",
        "id": f"LC0{platform[-1]}_L2SP_045033_{day.strftime('%Y%m%d')}_02_T1",
        "stac_extensions": [
            "https://stac-extensions.github.io/eo/v1.1.0/schema.json",
            "https://stac-extensions.github.io/raster/v1.1.0/schema.json",
            "https://stac-extensions.github.io/projection/v1.1.0/schema.json",
        ],
        "bbox": box,
        "geometry": {"type": "Polygon", "coordinates": [[[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]], [box[0], box[1]]]]},
        "properties": {
            "datetime": f"{day.isoformat()}T18:41:07Z", "platform": platform, "instruments": ["oli", "tirs"],
            "landsat:collection_number": "02", "landsat:correction": "L2SP", "landsat:wrs_path": "045", "landsat:wrs_row": "033",
            "proj:epsg": EPSG, "eo:cloud_cover": 12.0,
        },
        "links": [],
        "assets": {key: asset(href, key) for key, href in hrefs.items()},
    }


def recorded(out: Path, base_url: str | None) -> dict[str, Any]:
    (out / "cogs").mkdir(parents=True, exist_ok=True)
    features = []
    for index, (day, platform) in enumerate(acquisitions()):
        hrefs = {}
        for key, values in scene(day, index).items():
            name = f"cogs/045033_{day.isoformat()}_{BANDS[key][0] if key in BANDS else 'QA_PIXEL'}.tif"
            with rasterio.open(out / name, "w", driver="COG", width=SIZE, height=SIZE, count=1, dtype="uint16",
                               crs=f"EPSG:{EPSG}", transform=from_origin(WEST, NORTH, PIXEL, PIXEL),
                               nodata=1 if key == "qa_pixel" else 0) as dataset:
                dataset.write(values, 1)
            hrefs[key] = f"{base_url.rstrip('/')}/{name}" if base_url else name
        features.append(item(day, platform, hrefs))
    return {"type": "FeatureCollection", "features": features}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--live", action="store_true", help="search Earth Search's landsat-c2-l2 instead of the recorded answer")
    parser.add_argument("--bbox", default="-122.9,39.0,-122.8,39.1", help="west,south,east,north in degrees (--live)")
    parser.add_argument("--datetime", default="2023-05-01/2023-10-31", help="an RFC 3339 interval (--live)")
    parser.add_argument("--max-cloud", type=float, default=80, help="eo:cloud_cover below this, percent (--live)")
    parser.add_argument("--base-url", help="recorded: write asset hrefs under this URL (where OUT_DIR is served)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.live:
        found = sentinel2.live_search([float(v) for v in args.bbox.split(",")], args.datetime, args.max_cloud, "landsat-c2-l2")
    else:
        found = recorded(args.out, args.base_url)
    (args.out / "items.json").write_text(json.dumps(found, indent=1))
    print(f"{args.out / 'items.json'}: {len(found['features'])} items")
