"""Write small stores with the Python writer and the series Python's reader gives for a few
areas on each, as JSON, for region.test.js to read through the JS reader.

Usage: python region_series.py OUT_DIR  (prints the JSON)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import xarray as xr

import chronozarr

X0, Y0, RES = 500_000.0, 5_000_000.0, 10.0
BANDS = [{"name": "B04", "common_name": "red", "scale": 1e-4, "offset": -0.1}, {"name": "B03", "common_name": "green", "scale": 1e-4},
         {"name": "B08", "common_name": "nir", "scale": 2e-4}]
STORES = {
    "nodata-star-sharded": {"nodata": 0, "encoding": "star-delta", "anchor_interval": 2, "shard": True, "shard_time": 2},
    "mask-none": {"encoding": "none"},
    "null-nodata": {"nodata": None, "encoding": "none"},
    "mask-history": {"encoding": "star-delta", "anchor_interval": 2, "history": True},
    "nodata-history": {"nodata": 0, "encoding": "none", "history": True},
    # the level-1 area first on a fresh handle: a coarse level's history (format 1.3), cold
    "nodata-history-coarse-first": {"nodata": 0, "encoding": "star-delta", "anchor_interval": 2, "history": True, "coarse_first": True},
}
AREAS = [
    ("box-on-centres", [X0 + 35, Y0 - 305, X0 + 205, Y0 - 45], None),
    ("polygon-hole", {"type": "Polygon", "coordinates": [
        [[X0 + 12, Y0 - 7], [X0 + 268, Y0 - 7], [X0 + 268, Y0 - 344], [X0 + 12, Y0 - 344], [X0 + 12, Y0 - 7]],
        [[X0 + 100, Y0 - 100], [X0 + 150, Y0 - 100], [X0 + 150, Y0 - 200], [X0 + 100, Y0 - 200], [X0 + 100, Y0 - 100]]]}, None),
    ("triangle-level-1", {"type": "Polygon", "coordinates": [[[X0 + 20, Y0 - 20], [X0 + 260, Y0 - 40], [X0 + 60, Y0 - 330]]]}, 1),
    ("point", {"type": "Point", "coordinates": [X0 + 57, Y0 - 123]}, None),
]


def main(out: Path) -> None:
    rng = np.random.default_rng(5)
    n_time, h, w = 5, 37, 29
    values = rng.integers(1, 5000, size=(n_time, 3, h, w)).astype(np.uint16)
    times = np.array([np.datetime64("2024-01-01", "M") + np.timedelta64(i, "M") for i in range(n_time)], dtype="datetime64[ns]")
    result = {}
    for name, options in STORES.items():
        v = values.copy()
        opts = dict(options)
        areas = sorted(AREAS, key=lambda area: area[2] is None) if opts.pop("coarse_first", False) else AREAS
        if name.startswith("nodata"):
            v[rng.random(v.shape) < 0.2] = 0
            v[2] = 0
        if name.startswith("mask"):
            mask = (rng.random((n_time, h, w)) > 0.3).astype(np.uint8)
            mask[2] = 0
            opts["mask"] = mask
        da = xr.DataArray(v, dims=("time", "band", "y", "x"), coords={
            "time": times, "band": [b["name"] for b in BANDS],
            "y": Y0 - (np.arange(h) + 0.5) * RES, "x": X0 + (np.arange(w) + 0.5) * RES})
        path = out / name
        chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, bands=BANDS, progress=False, **opts)
        series = []
        with chronozarr.open_dataset(path) as store:
            for label, geometry, lod in areas:
                for bands in (None, ["ndvi", "water"]):
                    before = store.stats.requests  # the first area on a fresh handle: what a cold read costs
                    ds = store.read_region_series(tuple(geometry) if isinstance(geometry, list) else geometry, lod=lod, bands=bands)
                    stats = {k: [[None if np.isnan(x) else float(x) for x in row] for row in ds[k].values] for k in ("mean", "std", "min", "max")}
                    water = ds.get("water_km2")
                    series.append({
                        "label": label, "geometry": geometry, "lod": lod, "bands": bands, "level": ds.attrs["level"], "source": ds.attrs["source"],
                        "requests": store.stats.requests - before,
                        "regionPixels": ds.attrs["region_pixels"], "validPixels": ds["valid_pixels"].values.tolist(), **stats,
                        "waterKm2": None if water is None else [[None if np.isnan(x) else float(x) for x in row] for row in water.values],
                    })
        result[name] = {"path": str(path), "series": series}
    result["pixels"] = pixel_cases()
    print(json.dumps(result))


def pixel_cases() -> list[dict]:
    """Random star-shaped polygons (half their corners on pixel centres, so edges run through
    centres) and the pixels Python's rule gives them on one level, for JS to match exactly."""
    from chronozarr.format.geometry import Level
    from chronozarr.format.region import area_of, holds

    rng = np.random.default_rng(9)
    transform = (10.0, 0.0, X0, 0.0, -10.0, Y0)
    level = Level(0, 40, 50, 16, transform)
    out = []
    for _ in range(30):
        n = int(rng.integers(3, 12))
        angles = np.sort(rng.uniform(0, 2 * np.pi, n))
        radius = rng.uniform(30, 200, n)
        cx, cy = X0 + rng.uniform(100, 400), Y0 - rng.uniform(100, 300)
        xs, ys = cx + radius * np.cos(angles), cy + radius * np.sin(angles)
        snap = rng.random(n) < 0.5
        xs = np.where(snap, X0 + (np.round((xs - X0) / 10 - 0.5) + 0.5) * 10, xs)
        ys = np.where(snap, Y0 - (np.round((Y0 - ys) / 10 - 0.5) + 0.5) * 10, ys)
        ring = [[float(x), float(y)] for x, y in zip(xs, ys, strict=True)]
        geometry = {"type": "Polygon", "coordinates": [ring + [ring[0]]]}
        try:
            area = area_of(geometry)
        except ValueError:
            continue  # snapping made it cross itself or collapse
        held = holds(area, level, slice(0, 40), slice(0, 50))
        out.append({"geometry": geometry, "held": held.astype(int).ravel().tolist()})
    return out


if __name__ == "__main__":
    main(Path(sys.argv[1]))
