"""Recompute the monthly median composite of `items.json` with numpy alone and compare it with the
store `chronozarr convert --composite month` made, value for value.

    python check_store.py ITEMS_JSON STORE [--gap-fill carry-forward|none]

For each month: every scene's SCL (20 m) repeated onto the 10 m grid, an observation valid where
its class is 4, 5, 6, 7 or 11 and no band is 0 (nodata), the scenes of the old processing baseline
moved onto the new one (+1000 DN), the median of the valid observations in float64 rounded half to
even, the count of valid observations as coverage, and where none was valid either the last month's
value (carry-forward: mask 1, coverage 0) or nothing (mask 0). Prints one line per month and `ok`.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import rasterio

import chronozarr

KEPT = (4, 5, 6, 7, 11)
BANDS = ("blue", "green", "red", "nir")


def read(path: Path) -> np.ndarray:
    with rasterio.open(path) as dataset:
        return dataset.read(1)


def observation(item: dict, root: Path) -> tuple[np.ndarray, np.ndarray]:
    """The bands (band, y, x) on the new baseline's convention and where they are valid."""
    values = np.stack([read(root / item["assets"][b]["href"]).astype(np.float64) for b in BANDS])
    scl = read(root / item["assets"]["scl"]["href"])
    scl = np.repeat(np.repeat(scl, 2, axis=0), 2, axis=1)
    valid = np.isin(scl, KEPT) & (values != 0).all(axis=0)
    if float(item["properties"]["s2:processing_baseline"]) < 4:
        values = values + 1000
    return values, valid


def expected(items_json: Path, gap_fill: str) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    months: dict[str, list[dict]] = defaultdict(list)
    for item in json.loads(items_json.read_text())["features"]:
        months[item["properties"]["datetime"][:7]].append(item)
    labels, composites, masks, coverages = [], [], [], []
    last = None
    for month in sorted(months):
        stacked = [observation(item, items_json.parent) for item in months[month]]
        values = np.stack([v for v, _ in stacked])
        valid = np.stack([m for _, m in stacked])
        masked = np.where(valid[:, None], values, np.nan)
        count = valid.sum(axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a pixel no scene saw is an all-NaN slice
            median = np.rint(np.nanmedian(masked, axis=0))
        median = np.where(count > 0, median, 0)
        mask = count > 0
        if gap_fill == "carry-forward" and last is not None:
            fill = ~mask & last[1]
            median[:, fill] = last[0][:, fill]
            mask = mask | fill
        last = (median, mask)
        labels.append(month)
        composites.append(median.astype(np.uint16))
        masks.append(mask.astype(np.uint8))
        coverages.append(np.minimum(count, 255).astype(np.uint8))
    return labels, np.stack(composites), np.stack(masks), np.stack(coverages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("items", type=Path)
    parser.add_argument("store", type=Path)
    parser.add_argument("--gap-fill", default="carry-forward", choices=("carry-forward", "none"))
    args = parser.parse_args()
    labels, composites, masks, coverages = expected(args.items, args.gap_fill)
    with chronozarr.open_dataset(args.store) as store:
        assert [str(t)[:7] for t in store.times] == labels, (store.times, labels)
        for t, month in enumerate(labels):
            mask = store.read_mask(t)
            np.testing.assert_array_equal(mask, masks[t], err_msg=f"mask of {month}")
            np.testing.assert_array_equal(store.read_coverage(t), coverages[t], err_msg=f"coverage of {month}")
            got = store.read(t)
            np.testing.assert_array_equal(got[:, mask == 1], composites[t][:, masks[t] == 1], err_msg=f"composite of {month}")
            filled = int(((masks[t] == 1) & (coverages[t] == 0)).sum())
            print(f"{month}: {int((coverages[t] > 0).sum())} pixels observed, {filled} carried forward, median exact")
    print("ok")


if __name__ == "__main__":
    main()
