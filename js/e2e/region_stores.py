"""Stores for the viewer's region e2e test, and the numpy oracle of a region's series.

`python region_stores.py OUTDIR` writes them and prints JSON {"times": [...]}:
reg.zarr       the masked decade of history_stores.py (uint16 B04/B03/B02, scale 1e-4, 120 monthly
               dates, 96 x 128 pixels of 10 m, about one date in four invalid per pixel), with the
               history arrays: a region's series at level 0 comes from them.
reg-none.zarr  the same without the history arrays: the series comes from the per-date chunks.

`python region_stores.py --oracle SHAPE BAND` prints the series of the region SHAPE (JSON: a box
[w, s, e, n] or a convex polygon's corners [[x, y], ...], in the store's CRS) for BAND, computed
here with numpy from the arrays the stores were written from: the level-0 pixels whose centres lie
in it (edges included), their valid values in physical units, per date.
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from history_stores import mask_of, series  # noqa: E402

from chronozarr.format.metadata import Band  # noqa: E402
from chronozarr.write.encode import encode  # noqa: E402


def inside(shape: list, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Centres in a box, or on the inner side of every edge of a convex polygon (either winding)."""
    if not isinstance(shape[0], list):
        w, s, e, n = shape
        return (x >= w) & (x <= e) & (y >= s) & (y <= n)
    pts = np.array(shape, dtype=float)
    nxt = np.roll(pts, -1, axis=0)
    cross = np.stack([(b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) for a, b in zip(pts, nxt, strict=True)])
    return np.all(cross >= 0, axis=0) | np.all(cross <= 0, axis=0)


def oracle(shape: list, band: str) -> dict:
    da = series()
    mask = mask_of(da).values.astype(bool)
    h, w = da.sizes["y"], da.sizes["x"]
    yy, xx = np.mgrid[0:h, 0:w]
    held = inside(shape, 500000 + (xx + 0.5) * 10, 9000000 - (yy + 0.5) * 10)
    values = da.sel(band=band).values.astype(np.float64) * 1e-4
    out: dict = {"region_pixels": int(held.sum()), "valid_pixels": [], "mean": [], "std": [], "min": [], "max": []}
    for t in range(da.sizes["time"]):
        v = values[t][held & mask[t]]
        out["valid_pixels"].append(int(v.size))
        for k, f in (("mean", np.mean), ("std", np.std), ("min", np.min), ("max", np.max)):
            out[k].append(float(f(v)) if v.size else None)
    return out


def main(out: Path) -> None:
    da = series()
    bands = [Band("B04", "red", 1e-4, 0.0, "reflectance"), Band("B03", "green", 1e-4, 0.0, "reflectance"), Band("B02", "blue", 1e-4, 0.0, "reflectance")]
    common = {"crs": "EPSG:32718", "encoding": "star-delta", "anchor_interval": 6, "chunk_size": 32, "nodata": None, "bands": bands, "progress": False}
    mask = mask_of(da)
    encode(da, out / "reg.zarr", history=True, mask=mask, **common)
    encode(da, out / "reg-none.zarr", mask=mask, **common)
    print(json.dumps({"times": [str(t)[:10] for t in da.time.values]}))


if __name__ == "__main__":
    if sys.argv[1] == "--oracle":
        print(json.dumps(oracle(json.loads(sys.argv[2]), sys.argv[3])))
    else:
        main(Path(sys.argv[1]))
