"""Check one month of a water store against numpy: the month recomputed from the composite store's
raw Zarr arrays (zarr-python, nothing of build_water_stack.py) and the CSV's threshold, every pixel
of `ndwi`, `water` and `mask` compared, and level 1 `water` against the spec's block mean of level 0
over valid pixels (floor division of the exact sum by the valid count, mask by maximum).

    python check_water_stack.py OUT [--month YYYY-MM] [--boa-offset-from YYYY-MM] [--source STORE]

Without --month every month of the store is checked.

The composite is the one the water store names in `provenance.sources`, unless --source says.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import numpy as np
import zarr

import chronozarr


def plane(group: zarr.Group, name: str, t: int) -> np.ndarray:
    """Timestep t of one array of a level group, read alone."""
    array = group[name]
    assert isinstance(array, zarr.Array), f"{name} is not an array"
    return np.asarray(array[t])


def composite_month(source: Path, month: str, boa_offset_from: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """green and nir reflectance x 10000 (rounded to 1e-6) and the observed flag of a month, from
    the raw level-0 arrays."""
    attrs = json.loads((source / "zarr.json").read_text())["attributes"]["chronozarr"]
    t = [s[:7] for s in attrs["times"]].index(month)
    bands = {(b.get("common_name") or b["name"]): (i, b["scale"], b["offset"]) for i, b in enumerate(attrs["bands"])}
    root = zarr.open_group(str(source / "0"), mode="r")
    raw = plane(root, "data", t).astype(np.float64)
    shift = boa_offset_from is not None and month >= boa_offset_from
    refl = {}
    for name in ("green", "nir"):
        i, scale, offset = bands[name]
        dn = np.maximum(raw[i] - 1000, 1) if shift else raw[i]
        refl[name] = np.round(dn * scale * 1e4 + offset * 1e4, 6)  # reflectance x 10000
    observed = plane(root, "mask", t) == 1 if "mask" in root else np.ones(raw.shape[1:], bool)
    if "coverage" in root:
        observed &= plane(root, "coverage", t) > 0
    return refl["green"], refl["nir"], observed


def block_mean(values: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The spec's factor-2 block mean over valid pixels (edge-padded to even), and the max mask."""
    pad = ((0, values.shape[0] % 2), (0, values.shape[1] % 2))
    v, m = np.pad(values.astype(np.int64), pad, mode="edge"), np.pad(valid.astype(np.int64), pad, mode="edge")
    h, w = v.shape[0] // 2, v.shape[1] // 2
    sums = (v * m).reshape(h, 2, w, 2).sum(axis=(1, 3))
    counts = m.reshape(h, 2, w, 2).sum(axis=(1, 3))
    return np.where(counts > 0, sums // np.maximum(counts, 1), 0), (counts > 0).astype(np.uint8)


def picks(out: Path, month: str) -> dict[str, object]:
    """A water and a land pixel at level 0 and a part-water pixel at level 1 of `month`, with their
    stored values read by zarr-python: what viewer_check.mjs compares the inspector with."""
    attrs = json.loads((out / "zarr.json").read_text())["attributes"]["chronozarr"]
    t = [s[:7] for s in attrs["times"]].index(month)
    found: dict[str, object] = {"month": month, "t": t, "bands": [b["name"] for b in attrs["bands"]], "pixels": {}}
    for name, lod, rule in (("water", 0, lambda w: w == 10000), ("land", 0, lambda w: w == 0), ("coarse", 1, lambda w: (w > 0) & (w < 10000))):
        level = zarr.open_group(str(out / str(lod)), mode="r")
        data, mask = plane(level, "data", t), plane(level, "mask", t)
        ys, xs = np.nonzero(rule(data[1]) & (mask == 1))
        i = len(ys) // 2  # one from the middle of the list, away from the edges
        y, x = int(ys[i]), int(xs[i])
        found["pixels"][name] = {"lod": lod, "x": x, "y": y, "stored": [int(v) for v in data[:, y, x]]}  # type: ignore[index]
    return found


def check(out: Path, month: str, boa_offset_from: str | None, source: Path | None) -> None:
    store = chronozarr.open_dataset(str(out))
    source = source or Path(store.attrs.provenance["sources"][0])
    row = next(r for r in csv.DictReader(open(f"{out}.months.csv")) if r["month"] == month)
    threshold = int(round(float(row["threshold"]) * 10000))
    green, nir, observed = composite_month(source, month, boa_offset_from)
    with np.errstate(divide="ignore", invalid="ignore"):
        ndwi = np.where(green + nir != 0, (green - nir) / (green + nir), 0.0)
    ndwi = np.rint(np.clip(ndwi, -1, 1) * 10000).astype(np.int64)
    dark = (green <= 5) & (nir <= 5)
    water = observed & (dark | (ndwi > threshold))
    t = [s[:7] for s in store.times_iso].index(month)
    got, mask = store.read(t).astype(np.int64), store.read_mask(t)
    np.testing.assert_array_equal(mask, observed.astype(np.uint8), err_msg="mask")
    np.testing.assert_array_equal(got[0], np.where(observed, ndwi, 0), err_msg="ndwi")
    np.testing.assert_array_equal(got[1], np.where(water, 10000, 0), err_msg="water")
    valid = int(observed.sum())
    assert int(row["valid_px"]) == valid and float(row["water_frac"]) == round(water.sum() / valid, 6), "CSV row"
    print(f"{month}: threshold {threshold / 10000:g}, {valid} valid px, {int(dark[observed].sum())} dark, "
          f"{int(water.sum())} water px ({water.sum() / valid:.2%}): ndwi, water and mask equal at all {observed.size} pixels")
    if len(store.levels) > 1:
        expected, expected_mask = block_mean(got[1], mask == 1)
        np.testing.assert_array_equal(store.read_mask(t, lod=1), expected_mask, err_msg="level 1 mask")
        np.testing.assert_array_equal(store.read(t, lod=1)[1], expected, err_msg="level 1 water")
        between = int(((expected > 0) & (expected < 10000) & (expected_mask == 1)).sum())
        print(f"{month}: level 1 water is the block mean of level 0 at all {expected.size} blocks; {between} hold a fraction strictly between 0 and 1")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the water store build_water_stack.py wrote")
    parser.add_argument("--month", metavar="YYYY-MM", help="the month to check (default: every month)")
    parser.add_argument("--boa-offset-from", metavar="YYYY-MM", help="as given to build_water_stack.py")
    parser.add_argument("--source", type=Path, help="the composite store (default: the one in provenance.sources)")
    parser.add_argument("--picks", type=Path, help="write pixels to click for viewer_check.mjs to this JSON file (with --month)")
    args = parser.parse_args()
    if args.picks:
        args.picks.write_text(json.dumps(picks(args.out, args.month or "")))
    assert chronozarr.validate(str(args.out)).ok, f"{args.out} does not validate"
    with chronozarr.open_dataset(str(args.out)) as water:
        months = [args.month] if args.month else [s[:7] for s in water.times_iso]
    for month in months:
        check(args.out, month, args.boa_offset_from, args.source)
    print("ok")
