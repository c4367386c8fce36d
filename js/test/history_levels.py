"""Stores for history-levels.test.js: one series written with a history at every level (format
1.3), without one, as a 1.2 store (level 0's history only) and with level 1's history damaged;
and the area's series at level 1 recomputed with numpy from the written arrays (the spec's block
means, tests/expected.py), never by the code under test.

Usage: python history_levels.py OUT_DIR  (prints the JSON)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from conftest import make_series  # noqa: E402
from expected import pyramid  # noqa: E402
from history_stores import as_version_1_2, damage_shards  # noqa: E402

import chronozarr  # noqa: E402

X0, Y0 = 500_000.0, 5_000_000.0
N_TIME, H, W, CS = 40, 128, 128, 32
BOX = [X0 + 100, Y0 - 1180, X0 + 1180, Y0 - 100]  # level 1 (20 m): rows and columns 5..58


def main(out: Path) -> None:
    da = make_series(n_time=N_TIME, n_band=2, height=H, width=W, seed=11)
    values = da.values.copy()
    values[np.random.default_rng(11).random(values.shape) < 0.1] = 0
    da = da.copy(data=values)
    common = {"crs": "EPSG:32631", "chunk_size": CS, "encoding": "star-delta", "anchor_interval": 6, "nodata": 0, "progress": False}
    chronozarr.encode(da, out / "with", history=True, **common)
    chronozarr.encode(da, out / "without", **common)
    for name in ("old", "damaged"):
        shutil.copytree(out / "with", out / name)
    as_version_1_2(out / "old")
    damage_shards(out / "damaged", "history_1")
    whole = pyramid(values, None, None, 0, 2)[1][0]
    pixel = {"y": 40, "x": 21, "values": whole[:, :, 40, 21].tolist()}
    level1 = whole[:, :, 5:59, 5:59].astype(np.float64)
    valid = level1 != 0
    count = valid.sum(axis=(2, 3))
    mean = np.where(valid, level1, 0).sum(axis=(2, 3)) / np.maximum(count, 1)
    print(json.dumps({"box": BOX, "lod": 1, "nTime": N_TIME, "validPixels": count.tolist(), "mean": mean.tolist(), "pixel": pixel}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
