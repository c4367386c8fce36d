"""Stores for the viewer's history e2e test: `python history_stores.py OUTDIR` writes them and
prints JSON: per store the numpy source's history of a few pixels.

hist.zarr        uint16 B04/B03/B02 (reflectance, scale 1e-4), no nodata, star-delta, 120 monthly
                 dates (a decade), 96 x 128 pixels, chunk 32, written by `encode(history=True)`.
hist-zarrpy.zarr the same series without the writer's history; zarr-python adds the array
                 (js/test/history_zarr.py), a second writer.
hist-mask.zarr   the same series with a mask (about one date in four invalid, per pixel), written
                 by `encode(history=True)`: the history has its mask copy (version 1.1).
hist-mask-none.zarr  the same masked store without the history arrays (the baseline of the figure
                 in docs/history.md).
"""

import json
import sys
from pathlib import Path

import numpy as np
import xarray as xr

from chronozarr.format.metadata import Band
from chronozarr.write.encode import encode

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))
from history_zarr import add_history  # noqa: E402

PIXELS = [(70, 40), (120, 5), (0, 95)]  # level-0 pixels (x, y)


def mask_of(da: xr.DataArray) -> xr.DataArray:
    """A (time, y, x) mask: about one date in four invalid at each pixel."""
    values = (np.random.default_rng(26).random((da.sizes["time"], da.sizes["y"], da.sizes["x"])) > 0.25).astype(np.uint8)
    return xr.DataArray(values, dims=("time", "y", "x"))


def series() -> xr.DataArray:
    rng = np.random.default_rng(25)
    n, h, w = 120, 96, 128
    yy, xx = np.mgrid[0:h, 0:w]
    season = np.sin(np.arange(n) * 2 * np.pi / 12)
    data = np.empty((n, 3, h, w), np.uint16)
    for t in range(n):
        for b in range(3):
            data[t, b] = (800 + 300 * b + 400 * season[t] + (xx * 5 + yy * 3) % 900 + rng.integers(0, 60, (h, w))).astype(np.uint16)
    times = np.array([f"{2015 + t // 12}-{t % 12 + 1:02d}-01" for t in range(n)], dtype="datetime64[ns]")
    return xr.DataArray(data, dims=("time", "band", "y", "x"), coords={"time": times, "band": ["B04", "B03", "B02"],
                        "y": 9000000 - (np.arange(h) + 0.5) * 10, "x": 500000 + (np.arange(w) + 0.5) * 10})


def main(out: Path) -> None:
    da = series()
    bands = [Band("B04", "red", 1e-4, 0.0, "reflectance"), Band("B03", "green", 1e-4, 0.0, "reflectance"), Band("B02", "blue", 1e-4, 0.0, "reflectance")]
    common = {"crs": "EPSG:32718", "encoding": "star-delta", "anchor_interval": 6, "chunk_size": 32, "nodata": None, "bands": bands, "progress": False}
    encode(da, out / "hist.zarr", history=True, **common)
    encode(da, out / "hist-zarrpy.zarr", **common)
    add_history(out / "hist-zarrpy.zarr", da.values, 128, 16, 32)
    mask = mask_of(da)
    encode(da, out / "hist-mask.zarr", history=True, mask=mask, **common)
    encode(da, out / "hist-mask-none.zarr", mask=mask, **common)
    pixels = [{"x": x, "y": y, "history": da.values[:, :, y, x].tolist(), "mask": mask.values[:, y, x].tolist()} for x, y in PIXELS]
    print(json.dumps({"times": len(da.time), "pixels": pixels}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
