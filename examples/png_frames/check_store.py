"""Check a store converted from PNG frames against the frames: for every date the store's red,
green and blue equal the PNG's channels and its mask equals alpha != 0, bit for bit, and the
grid is where the world files put it (its upper-left corner is printed, to compare with --bounds).

    python check_store.py STORE FRAMES_DIR/manifest.csv
"""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

import numpy as np
import rasterio
from rasterio.errors import NotGeoreferencedWarning

import chronozarr


def check(store_path: str, manifest: Path) -> None:
    assert chronozarr.validate(store_path).ok
    warnings.simplefilter("ignore", NotGeoreferencedWarning)  # frames without a sidecar are located by --bounds
    with open(manifest, newline="") as f:
        rows = list(csv.DictReader(f))
    with chronozarr.open_dataset(store_path) as store:
        print("bands:", ", ".join(f"{b.name} ({b.common_name})" for b in store.bands), "| dtype", store.dtype)
        assert [str(t)[:10] for t in store.times] == [row["datetime"] for row in rows], "one timestep per frame, in order"
        da = store.to_xarray(lod=0, physical=False)
        for t, row in enumerate(rows):
            with rasterio.open(manifest.parent / row["uri"]) as png:
                frame = png.read()
                located = None if png.transform.is_identity else (png.transform.c, png.transform.f)  # no world file: --bounds
            assert np.array_equal(store.read(t), frame[:3]), f"{row['uri']}: RGB differs"
            assert np.array_equal(store.read_mask(t), (frame[3] != 0).astype(np.uint8)), f"{row['uri']}: mask differs"
        size = float(da.x[1] - da.x[0])
        corner = (float(da.x[0]) - size / 2, float(da.y[0]) + size / 2)
        assert located in (None, corner), f"the store's upper-left corner {corner} is not the world file's {located}"
        print(f"upper-left corner {corner[0]:.0f}, {corner[1]:.0f}; {size:g} m pixels")
        masked = [f"{100 * (1 - store.read_mask(t).mean()):.1f}" for t in range(len(rows))]
    print(f"{len(rows)} frames bit-exact; masked % by frame: {' '.join(masked)}")
    print("ok")


if __name__ == "__main__":
    check(sys.argv[1], Path(sys.argv[2]))
