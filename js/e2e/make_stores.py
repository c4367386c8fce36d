"""Stores for the viewer e2e test: `python make_stores.py OUTDIR` writes them and prints JSON facts.

s2.zarr   uint16 B02/B03/B04/B08 (scale 1e-4, reflectance), mask + coverage, star-delta, 10 monthly
          dates with a two-month gap, 150 x 200 pixels, chunk 32 (3 levels shown at once).
rgb.zarr  uint8 red/green/blue, scale 1, no nodata, no mask, 6 dates, 60 x 80, chunk 32.
geo.zarr  uint16 red/nir (scale 1e-4) in EPSG:4326, 0.001 degree pixels from 10 E, 45.5 N, nodata 0,
          4 dates, 40 x 60, chunk 32.
"""

import json
import sys
from pathlib import Path

import numpy as np
import xarray as xr

from chronozarr.format.metadata import Band
from chronozarr.write.encode import encode


def s2(out: Path) -> dict:
    rng = np.random.default_rng(7)
    months = [f"2020-{m:02d}-01" for m in (1, 2, 3, 4, 5, 8, 9, 10, 11, 12)]
    n, h, w = len(months), 150, 200
    yy, xx = np.mgrid[0:h, 0:w]
    data = np.empty((n, 4, h, w), np.uint16)
    for t in range(n):
        for b in range(4):
            data[t, b] = (300 + 40 * b + 10 * t + (xx * 7 + yy * 3) % 2000 + rng.integers(0, 50, (h, w))).astype(np.uint16)
    mask = np.ones((n, h, w), np.uint8)
    mask[:, 10:30, 40:70] = 0  # a masked block at every date
    mask[3, 100:140, 150:190] = 0
    coverage = np.where(mask == 1, 1 + (xx + yy) % 3, 0).astype(np.uint8)
    times = np.array(months, dtype="datetime64[ns]")
    da = xr.DataArray(data, dims=("time", "band", "y", "x"), coords={"time": times, "band": ["B02", "B03", "B04", "B08"],
                      "y": 9000000 - (np.arange(h) + 0.5) * 10, "x": 500000 + (np.arange(w) + 0.5) * 10})
    dims = ("time", "y", "x")
    bands = [Band("B02", "blue", 1e-4, 0.0, "reflectance"), Band("B03", "green", 1e-4, 0.0, "reflectance"),
             Band("B04", "red", 1e-4, 0.0, "reflectance"), Band("B08", "nir", 1e-4, 0.0, "reflectance")]
    encode(da, out, crs="EPSG:32718", encoding="star-delta", anchor_interval=4, chunk_size=32,
           mask=xr.DataArray(mask, dims=dims), coverage=xr.DataArray(coverage, dims=dims), bands=bands, progress=False)
    return {"times": months, "height": h, "width": w}


def rgb(out: Path) -> dict:
    n, h, w = 6, 60, 80
    yy, xx = np.mgrid[0:h, 0:w]
    data = np.empty((n, 3, h, w), np.uint8)
    for t in range(n):
        data[t, 0] = (xx * 3 + t * 20) % 256
        data[t, 1] = (yy * 4 + t * 7) % 256
        data[t, 2] = (xx + yy + t * 40) % 256
    times = np.array([f"2021-{m:02d}-01" for m in range(1, n + 1)], dtype="datetime64[ns]")
    da = xr.DataArray(data, dims=("time", "band", "y", "x"), coords={"time": times, "band": ["red", "green", "blue"],
                      "y": 1000 - (np.arange(h) + 0.5), "x": (np.arange(w) + 0.5)})
    bands = [Band("red", "red", 1, 0), Band("green", "green", 1, 0), Band("blue", "blue", 1, 0)]
    encode(da, out, crs="EPSG:3857", encoding="none", chunk_size=32, nodata=None, bands=bands, progress=False)
    return {"height": h, "width": w}


def geo(out: Path) -> dict:
    n, h, w = 4, 40, 60
    yy, xx = np.mgrid[0:h, 0:w]
    data = np.empty((n, 2, h, w), np.uint16)
    for t in range(n):
        data[t, 0] = 400 + 10 * xx + 5 * t
        data[t, 1] = 2500 + 20 * yy + 30 * t
    data[:, :, :4, :4] = 0  # nodata in a corner
    times = np.array([f"2022-0{m}-01" for m in range(1, n + 1)], dtype="datetime64[ns]")
    da = xr.DataArray(data, dims=("time", "band", "y", "x"), coords={"time": times, "band": ["B04", "B08"],
                      "y": 45.5 - (np.arange(h) + 0.5) * 0.001, "x": 10 + (np.arange(w) + 0.5) * 0.001})
    bands = [Band("B04", "red", 1e-4, 0.0, "reflectance"), Band("B08", "nir", 1e-4, 0.0, "reflectance")]
    encode(da, out, crs="EPSG:4326", encoding="none", chunk_size=32, nodata=0, bands=bands, progress=False)
    return {"height": h, "width": w}


if __name__ == "__main__":
    root = Path(sys.argv[1])
    root.mkdir(parents=True, exist_ok=True)
    facts = {"s2": s2(root / "s2.zarr"), "rgb": rgb(root / "rgb.zarr"), "geo": geo(root / "geo.zarr")}
    print(json.dumps(facts))
