"""The store of the MapLibre placement check: `python placement_stores.py OUTDIR` writes it, prints JSON facts.

utm.zarr  EPSG:32618 (80 km east of the zone's central meridian, so the grid is turned against the
          meridians), 10 m pixels, 320 x 384, chunk 64: levels 0 to 3. uint16 B02/B03/B04/B08 (scale
          1e-4, reflectance), 2 dates, no nodata. Each band is base + step x P with
          P = sum over k of 2^k x ((x >> k) + (y >> k)) & 1: the means of 2^L-blocks that level L
          holds keep P's checkers of order L and up, so two neighbouring texels of any level differ
          by an odd multiple of 2^L in P, and every texel boundary shows on the map.
"""

import json
import sys
from pathlib import Path

import numpy as np
import xarray as xr

from chronozarr.format.metadata import Band
from chronozarr.write.encode import encode

X0, Y0, RES, H, W = 580000.0, 4510000.0, 10.0, 320, 384
BANDS = [("B02", "blue", 400, 60), ("B03", "green", 600, 80), ("B04", "red", 500, 120), ("B08", "nir", 3000, -150)]


def pattern(h: int, w: int) -> np.ndarray:
    """P at level-0 pixels: checkers of 1, 2, 4 and 8 pixels weighted 1, 2, 4 and 8."""
    yy, xx = np.mgrid[0:h, 0:w]
    return sum((2**k) * (((xx >> k) + (yy >> k)) & 1) for k in range(4))


def utm(out: Path) -> dict:
    p = pattern(H, W)
    data = np.stack([np.stack([base + 10 * t + step * p for _, _, base, step in BANDS]) for t in range(2)]).astype(np.uint16)
    times = np.array(["2021-06-01", "2021-07-01"], dtype="datetime64[ns]")
    da = xr.DataArray(data, dims=("time", "band", "y", "x"), coords={
        "time": times, "band": [b[0] for b in BANDS],
        "y": Y0 - (np.arange(H) + 0.5) * RES, "x": X0 + (np.arange(W) + 0.5) * RES})
    bands = [Band(name, role, 1e-4, 0.0, "reflectance") for name, role, _, _ in BANDS]
    encode(da, out, crs="EPSG:32618", encoding="none", chunk_size=64, nodata=None, bands=bands, progress=False)
    return {"height": H, "width": W, "x0": X0, "y0": Y0, "res": RES}


if __name__ == "__main__":
    root = Path(sys.argv[1])
    root.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"utm": utm(root / "utm.zarr")}))
