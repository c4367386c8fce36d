"""Build a monthly water-mask store: NDWI and a water band from green and nir, with a validity mask.

The months here are synthetic (a river channel that migrates, cloud gaps), so the example runs
anywhere; swap `months()` for your own mosaics. Per month: ndwi = (green - nir) / (green + nir),
stored x 10000 as int16 (scale 1e-4, units "index"); water = 10000 where ndwi is above the month's
threshold, else 0 (scale 1e-4, units "fraction", so coarse levels hold the water fraction of the
block); mask = 0 where no scene was valid. One CSV row per month records what was found.

    python build_water_stack.py OUT_DIR [--floor -0.15]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
import xarray as xr

import chronozarr

BANDS = [
    {"name": "ndwi", "scale": 1e-4, "offset": 0.0, "units": "index"},
    {"name": "water", "scale": 1e-4, "offset": 0.0, "units": "fraction"},
]
HEIGHT, WIDTH, N_MONTH = 96, 128, 6


def months(seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """green, nir (month, y, x) in DN and the valid-scene flag: forest, a channel drifting east."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    green = rng.normal(600, 40, (N_MONTH, HEIGHT, WIDTH))
    nir = rng.normal(2600, 150, (N_MONTH, HEIGHT, WIDTH))
    valid = np.ones((N_MONTH, HEIGHT, WIDTH), dtype=bool)
    for m in range(N_MONTH):
        centre = 40 + 3 * m + 12 * np.sin(y / 15)
        channel = np.abs(x - centre) < 6
        green[m][channel], nir[m][channel] = rng.normal(900, 30, channel.sum()), rng.normal(300, 30, channel.sum())
        valid[m, 10 * m : 10 * m + 14, 90:120] = False  # a cloud
    return np.clip(green, 1, None), np.clip(nir, 1, None), valid


def build(out: Path, floor: float) -> Path:
    green, nir, valid = months()
    ndwi = (green - nir) / (green + nir)
    stored_ndwi = np.where(valid, np.round(ndwi * 10000), 0).astype(np.int16)
    threshold = floor  # the guide takes max(Otsu, floor); on this forest the floor binds
    water = np.where(valid & (stored_ndwi > threshold * 10000), 10000, 0).astype(np.int16)
    times = np.array([np.datetime64("2019-01") + np.timedelta64(m, "M") for m in range(N_MONTH)], dtype="datetime64[ns]")
    da = xr.DataArray(
        np.stack([stored_ndwi, water], axis=1), dims=("time", "band", "y", "x"),
        coords={"time": times, "band": ["ndwi", "water"], "y": 9_160_000 - (np.arange(HEIGHT) + 0.5) * 10,
                "x": 500_000 + (np.arange(WIDTH) + 0.5) * 10},
    )
    store = out / "water-1"
    mask = valid.astype(np.uint8)
    chronozarr.encode(da, store, crs="EPSG:32718", chunk_size=64, bands=BANDS, mask=mask, coverage=mask, nodata=None, progress=False)
    with open(out / "water-1.months.csv", "w", newline="") as f:
        rows = csv.writer(f)
        rows.writerow(["month", "valid_px", "threshold", "water_frac", "water_km2"])
        for m in range(N_MONTH):
            wet = int((water[m] == 10000).sum())
            rows.writerow([str(times[m])[:7], int(valid[m].sum()), threshold, round(wet / valid[m].sum(), 4), wet * 100 / 1e6])
    return store


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--floor", type=float, default=-0.15)
    args = parser.parse_args()
    print(build(args.out, args.floor))
