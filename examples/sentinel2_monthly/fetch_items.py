"""Save six months of Sentinel-2 L2A items over a river as `items.json`, the input of a monthly
`chronozarr convert --composite month`.

Offline (the default) it writes a recorded Earth Search answer: a scene every five days from
November 2021 to April 2022 over one reach of a meandering river, each with the 10 m `blue`,
`green`, `red` and `nir` assets and the 20 m `scl` scene classification, partly cloudy (clouds,
cirrus and their shadows in SCL and in the bands), one pass clipped by the swath edge (nodata 0),
and the processing-baseline change of 2022-01-25: later items say `s2:processing_baseline` 04.00
and `earthsearch:boa_offset_applied` false, and their pixels carry the +1000 DN offset. Small
synthetic COGs beside it in `cogs/` stand in for the 10980 x 10980 originals. With `--live` it asks
Earth Search for the same collection instead (no key; the assets are public COGs).

    python fetch_items.py OUT_DIR
    python fetch_items.py OUT_DIR --live --bbox -74.52,-8.52,-74.46,-8.46 --datetime 2021-11-01/2022-04-30
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
import fetch_items as sentinel2_stac  # noqa: E402  (the paged Earth Search client of the other example)

EPSG, WIDTH, HEIGHT = 32718, 128, 96  # 10 m pixels; SCL is 20 m, half of each
WEST, NORTH = 500_000, 9_160_960
FIRST, LAST, EVERY = date(2021, 11, 2), date(2022, 4, 27), 5
BASELINE_CHANGE = date(2022, 1, 25)  # processing baseline 04.00: DN = reflectance x 10000 + 1000
BANDS = {"blue": ("B02", 0.49), "green": ("B03", 0.56), "red": ("B04", 0.665), "nir": ("B08", 0.842)}
SURFACE = {  # mean DN (old convention) of forest, bare sand bars and water per band
    "forest": {"blue": 300, "green": 600, "red": 350, "nir": 3200},
    "sand": {"blue": 1300, "green": 1600, "red": 1900, "nir": 2400},
    "water": {"blue": 800, "green": 1000, "red": 950, "nir": 500},
}
SCL_CLASS = {"forest": 4, "sand": 5, "water": 6}
CLOUDY_SPOT = (slice(10, 40), slice(80, 120))  # every pass of February 2022 is cloudy here (10 m pixels)


def acquisitions() -> list[date]:
    """A scene every five days; two passes are missing, as in a real archive."""
    days, day = [], FIRST
    while day <= LAST:
        if day not in (date(2021, 12, 2), date(2022, 3, 17)):
            days.append(day)
        day += timedelta(days=EVERY)
    return days


def surface(day: date) -> np.ndarray:
    """The land cover at 10 m: a meander whose width follows the wet season, sand bars on its bends."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(float)
    season = (day - FIRST).days / 180
    centre = 64 + 22 * np.sin(y / 15 + 0.4)
    half_width = 6 + 5 * np.sin(np.pi * season)  # the river is widest in February
    cover = np.full((HEIGHT, WIDTH), "forest", dtype=object)
    distance = np.abs(x - centre)
    cover[(distance < half_width + 5) & (np.cos(y / 15 + 0.4) * (x - centre) > 0)] = "sand"
    cover[distance < half_width] = "water"
    return cover


def clouds(day: date, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cloud, cirrus and shadow at 20 m: a few round clouds, their shadows cast south-east."""
    y, x = np.mgrid[0 : HEIGHT // 2, 0 : WIDTH // 2]
    cloud = np.zeros(y.shape, dtype=bool)
    for _ in range(rng.integers(0, 4)):
        cy, cx, r = rng.integers(0, HEIGHT // 2), rng.integers(0, WIDTH // 2), rng.integers(3, 9)
        cloud |= (y - cy) ** 2 + (x - cx) ** 2 < r * r
    if day.year == 2022 and day.month == 2:
        rows, cols = (slice(s.start // 2, s.stop // 2) for s in CLOUDY_SPOT)
        cloud[rows, cols] = True
    cirrus = cloud & (rng.random(cloud.shape) < 0.2)
    shadow = np.roll(np.roll(cloud, 3, axis=0), 2, axis=1) & ~cloud
    return cloud & ~cirrus, cirrus, shadow


def scene(day: date, index: int) -> dict[str, np.ndarray]:
    """The DN of each band at 10 m and the SCL at 20 m of one pass."""
    rng = np.random.default_rng(index)
    cover = surface(day)
    cloud, cirrus, shadow = clouds(day, rng)
    scl = np.zeros((HEIGHT // 2, WIDTH // 2), dtype=np.uint8)
    for kind, code in SCL_CLASS.items():
        scl[(cover[::2, ::2] == kind)] = code
    scl[rng.random(scl.shape) < 0.01] = 7  # unclassified, kept
    scl[shadow], scl[cloud], scl[cirrus] = 3, 9, 10
    up = lambda mask: np.repeat(np.repeat(mask, 2, axis=0), 2, axis=1)  # noqa: E731
    out: dict[str, np.ndarray] = {}
    for band in BANDS:
        mean = np.vectorize(lambda kind, b=band: SURFACE[kind][b], otypes=[float])(cover)
        dn = rng.normal(mean, 0.06 * mean)
        dn[up(shadow)] *= 0.35
        dn[up(cloud | cirrus)] = rng.normal(6500, 400, int(up(cloud | cirrus).sum()))
        if day >= BASELINE_CHANGE:
            dn += 1000
        out[band] = np.clip(np.round(dn), 1, 20000).astype(np.uint16)
    if day == date(2021, 11, 22):  # the swath edge: no data in the east quarter
        for values in out.values():
            values[:, 96:] = 0
        scl[:, 48:] = 0
    out["scl"] = scl
    return out


def asset(href: str, key: str, offset: float) -> dict[str, Any]:
    common = {"href": href, "type": "image/tiff; application=geotiff; profile=cloud-optimized"}
    if key == "scl":
        return common | {
            "title": "Scene classification map (SCL)", "roles": ["data"], "gsd": 20,
            "raster:bands": [{"nodata": 0, "data_type": "uint8", "spatial_resolution": 20, "unit": "none"}],
        }
    name, wavelength = BANDS[key]
    return common | {
        "title": f"{key.capitalize()} ({name}) - 10m", "roles": ["data", "reflectance"], "gsd": 10,
        "eo:bands": [{"name": key, "common_name": key, "center_wavelength": wavelength}],
        "raster:bands": [{"nodata": 0, "data_type": "uint16", "spatial_resolution": 10, "scale": 0.0001, "offset": offset}],
    }


def item(day: date, index: int, hrefs: dict[str, str]) -> dict[str, Any]:
    platform = "sentinel-2a" if index % 2 == 0 else "sentinel-2b"
    new_baseline = day >= BASELINE_CHANGE
    stamp = f"{day.isoformat()}T15:12:{40 + index % 7:02d}Z"
    box = [-74.5, -8.47, -74.488, -8.461]
    return {
        "type": "Feature", "stac_version": "1.0.0", "collection": "sentinel-2-l2a",
        "id": f"S2{platform[-1].upper()}_18LUQ_{day.strftime('%Y%m%d')}_0_L2A",
        "stac_extensions": [
            "https://stac-extensions.github.io/eo/v1.1.0/schema.json",
            "https://stac-extensions.github.io/raster/v1.1.0/schema.json",
            "https://stac-extensions.github.io/projection/v1.1.0/schema.json",
        ],
        "bbox": box,
        "geometry": {"type": "Polygon", "coordinates": [[[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]], [box[0], box[1]]]]},
        "properties": {
            "datetime": stamp, "platform": platform, "constellation": "sentinel-2", "instruments": ["msi"],
            "eo:cloud_cover": round(float(np.random.default_rng(index).uniform(5, 60)), 1),
            "proj:epsg": EPSG, "mgrs:utm_zone": 18, "mgrs:latitude_band": "L", "mgrs:grid_square": "UQ",
            "s2:processing_baseline": "04.00" if new_baseline else "03.01",
            "earthsearch:boa_offset_applied": False,
        },
        "links": [],
        "assets": {key: asset(href, key, -0.1 if new_baseline else 0.0) for key, href in hrefs.items()},
    }


def write_cog(path: Path, values: np.ndarray, pixel: int) -> None:
    with rasterio.open(path, "w", driver="COG", width=values.shape[1], height=values.shape[0], count=1, dtype=values.dtype,
                       crs=f"EPSG:{EPSG}", transform=from_origin(WEST, NORTH, pixel, pixel), nodata=0) as dataset:
        dataset.write(values, 1)


def recorded(out: Path, base_url: str | None) -> dict[str, Any]:
    """The recorded answer and its COGs; hrefs relative to items.json, or under `base_url`."""
    (out / "cogs").mkdir(parents=True, exist_ok=True)
    features = []
    for index, day in enumerate(acquisitions()):
        hrefs = {}
        for key, values in scene(day, index).items():
            name = f"cogs/18LUQ_{day.isoformat()}_{BANDS[key][0] if key in BANDS else 'SCL'}.tif"
            write_cog(out / name, values, 20 if key == "scl" else 10)
            hrefs[key] = f"{base_url.rstrip('/')}/{name}" if base_url else name
        features.append(item(day, index, hrefs))
    return {"type": "FeatureCollection", "features": features}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--live", action="store_true", help="search Earth Search instead of the recorded answer")
    parser.add_argument("--bbox", default="-74.52,-8.52,-74.46,-8.46", help="west,south,east,north in degrees (--live)")
    parser.add_argument("--datetime", default="2021-11-01/2022-04-30", help="an RFC 3339 interval (--live)")
    parser.add_argument("--max-cloud", type=float, default=80, help="eo:cloud_cover below this, percent (--live); the SCL mask does the rest")
    parser.add_argument("--base-url", help="recorded: write asset hrefs under this URL (where OUT_DIR is served)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.live:
        found = sentinel2_stac.live_search([float(v) for v in args.bbox.split(",")], args.datetime, args.max_cloud)
    else:
        found = recorded(args.out, args.base_url)
    (args.out / "items.json").write_text(json.dumps(found, indent=1))
    print(f"{args.out / 'items.json'}: {len(found['features'])} items")
