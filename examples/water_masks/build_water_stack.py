"""Build a monthly water-mask store from a monthly composite store: NDWI and a water band per month.

The input is a store that `chronozarr convert --composite month` made (see
examples/sentinel2_monthly), read through `chronozarr.open_dataset`, `green` and `nir` found by their
common name, one block at a time. Per month:

- reflectance = stored x scale + offset of each band, used as reflectance x 10000 (the composite is on the baseline 04.00
  convention, offset -0.1: NDWI of raw DN would be wrong by the offset). `--boa-offset-from
  YYYY-MM` is for a store that was not harmonised: from that month on, 1000 DN are taken off every
  valid pixel (clipped to DN 1) before the scale is applied.
- ndwi = (green - nir) / (green + nir) in float64, stored x 10000 as int16 (scale 1e-4, "index").
- dark pixels (valid, green and nir both at or below 5 DN of reflectance x 10000) are water and are
  left out of the histogram: NDWI of two clipped floor values says nothing.
- threshold = max(Otsu on the histogram of the month's valid stored ndwi, one bin per integer,
  --floor); water = 10000 where ndwi is above it (or dark), else 0 (scale 1e-4, "fraction"), so a
  coarse level holds the water fraction of each block.
- mask = the composite's mask where the pixel was observed that month: a carry-forward copy of an
  earlier month (coverage 0) is no observation of this one. Masked pixels hold 0. Coverage is the
  composite's scene count. A month without a valid pixel is left out.

One row per written month goes to OUT.months.csv.

    python build_water_stack.py STORE OUT [--floor 0.0] [--boa-offset-from YYYY-MM]
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dask
import dask.array as dsa
import numpy as np
import xarray as xr

import chronozarr

BANDS = [
    {"name": "ndwi", "scale": 1e-4, "offset": 0.0, "units": "index"},
    {"name": "water", "scale": 1e-4, "offset": 0.0, "units": "fraction"},
]
COLUMNS = ["month", "valid_px", "valid_frac", "dark_frac", "otsu_threshold", "threshold", "floored", "eta",
           "water_frac", "water_frac_otsu", "water_km2", "blue_median_dn"]
DARK_DN = 5  # green and nir at or below this (reflectance x 10000) count as water
BOA_OFFSET_DN = 1000  # the processing-baseline 04.00 offset
BLOCK = 512  # rows and columns read at once


@dataclass
class Source:
    """The composite store and what the derivation needs of it."""

    path: str
    store: Any
    green: int
    nir: int
    blue: int | None
    scale: dict[int, float]
    offset: dict[int, float]
    boa_from: int  # first timestep that carries the uncorrected offset (len(times) if none)

    @classmethod
    def open(cls, path: str, boa_offset_from: str | None) -> Source:
        store = chronozarr.open_dataset(path)
        names = {(b.common_name or b.name).lower(): i for i, b in enumerate(store.bands)}
        missing = [n for n in ("green", "nir") if n not in names]
        if missing:
            raise SystemExit(f"error: {path} has no band with common name {', '.join(missing)}; a water mask needs green and nir")
        months = [str(t)[:7] for t in store.times_iso]
        boa_from = len(months)
        if boa_offset_from is not None:
            if any(store.bands[names[n]].offset != 0 for n in ("green", "nir")):
                raise SystemExit(f"error: {path} already has a band offset (harmonised); drop --boa-offset-from")
            boa_from = next((t for t, m in enumerate(months) if m >= boa_offset_from), len(months))
        return cls(path, store, names["green"], names["nir"], names.get("blue"),
                   {i: b.scale for i, b in enumerate(store.bands)}, {i: b.offset for i, b in enumerate(store.bands)}, boa_from)

    def reflectance(self, stored: np.ndarray, band: int, t: int) -> np.ndarray:
        """Reflectance x 10000 (DN without offset), rounded to 1e-6 so that the same reflectance
        stored under either baseline convention gives the same float."""
        values = stored.astype(np.float64)
        if t >= self.boa_from:
            values = np.maximum(values - BOA_OFFSET_DN, 1)
        return np.round(values * (self.scale[band] * 10000) + self.offset[band] * 10000, 6)

    def observed(self, t: int, rows: slice, cols: slice) -> tuple[np.ndarray, np.ndarray]:
        """The water store's mask (observed this month) and coverage of one block."""
        mask = self.store.read_mask(t, window=(rows, cols))
        coverage = self.store.read_coverage(t, window=(rows, cols))
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        valid = np.ones(shape, dtype=bool) if mask is None else mask == 1
        if coverage is not None:
            valid &= coverage > 0
        return valid.astype(np.uint8), np.where(valid, coverage if coverage is not None else 1, 0).astype(np.uint8)

    def window(self, t: int, rows: slice, cols: slice) -> dict[str, np.ndarray]:
        """green, nir and blue reflectance x 10000, validity and coverage of one block of timestep t."""
        picked = [self.green, self.nir] + ([self.blue] if self.blue is not None else [])
        values = self.store.read(t, bands=picked, window=(rows, cols))
        valid, coverage = self.observed(t, rows, cols)
        out = {"green": self.reflectance(values[0], self.green, t), "nir": self.reflectance(values[1], self.nir, t),
               "valid": valid == 1, "coverage": coverage}
        if self.blue is not None:
            out["blue"] = self.reflectance(values[2], self.blue, t)
        return out


def stored_ndwi(green: np.ndarray, nir: np.ndarray) -> np.ndarray:
    """NDWI x 10000 as int16, clipped to -1..1; 0 where green + nir is 0."""
    total = green + nir
    with np.errstate(divide="ignore", invalid="ignore"):
        ndwi = np.where(total != 0, (green - nir) / total, 0.0)
    return np.rint(np.clip(ndwi, -1, 1) * 10000).astype(np.int16)


def dark(green: np.ndarray, nir: np.ndarray) -> np.ndarray:
    return (green <= DARK_DN) & (nir <= DARK_DN)


def otsu(counts: np.ndarray) -> tuple[int | None, float]:
    """Otsu's threshold over a histogram whose bin i is the stored value i - 10000 (class one is
    value <= threshold), and its separability eta; a tie across an empty gap takes its middle."""
    values = np.arange(counts.size, dtype=np.float64) - 10000
    n = counts.sum()
    if n == 0 or np.count_nonzero(counts) < 2:
        return None, 0.0
    w0 = np.cumsum(counts)[:-1].astype(np.float64)
    s0 = np.cumsum(counts * values)[:-1]
    w1, s1 = n - w0, (counts * values).sum() - s0
    usable = (w0 > 0) & (w1 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = np.where(usable, w0 * w1 * (s0 / w0 - s1 / w1) ** 2, -1.0) / (n * n)
    best = np.flatnonzero(between == between.max())
    threshold = int((best[0] + best[-1]) // 2) - 10000
    mean = (counts * values).sum() / n
    total_var = (counts * (values - mean) ** 2).sum() / n
    return threshold, float(between.max() / total_var) if total_var > 0 else 0.0


@dataclass
class Month:
    """What one month's first pass counted, block by block."""

    ndwi: np.ndarray = field(default_factory=lambda: np.zeros(20001, dtype=np.int64))  # valid, not dark
    blue: dict[int, int] = field(default_factory=dict)
    valid: int = 0
    dark: int = 0

    def add(self, block: dict[str, np.ndarray]) -> None:
        valid, is_dark = block["valid"], block["valid"] & dark(block["green"], block["nir"])
        self.valid += int(valid.sum())
        self.dark += int(is_dark.sum())
        self.ndwi += np.bincount(stored_ndwi(block["green"], block["nir"])[valid & ~is_dark].astype(np.int64) + 10000, minlength=20001)
        if "blue" in block:
            dn, counts = np.unique(np.rint(block["blue"][valid]).astype(np.int64), return_counts=True)
            for v, c in zip(dn.tolist(), counts.tolist(), strict=True):
                self.blue[v] = self.blue.get(v, 0) + c

    def blue_median(self) -> float:
        if not self.blue:
            return math.nan
        dn = np.array(sorted(self.blue))
        ends = np.cumsum([self.blue[v] for v in dn])
        n = int(ends[-1])
        low, high = (dn[np.searchsorted(ends, k, side="right")] for k in ((n - 1) // 2, n // 2))
        return float(low + high) / 2


def blocks(height: int, width: int) -> list[tuple[slice, slice]]:
    return [(slice(r, min(r + BLOCK, height)), slice(c, min(c + BLOCK, width)))
            for r in range(0, height, BLOCK) for c in range(0, width, BLOCK)]


def survey(source: Source, floor: float) -> list[dict[str, Any]]:
    """The first pass: each month's histogram and counts, then its threshold and CSV row."""
    level = source.store.level(0)
    pixel_km2 = abs(level.transform[0] * level.transform[4]) / 1e6
    rows = []
    for t, time in enumerate(source.store.times_iso):
        month = Month()
        for window in blocks(level.height, level.width):
            month.add(source.window(t, *window))
        if month.valid == 0:
            print(f"{time[:7]}: no valid pixel, left out", file=sys.stderr)
            continue
        raw, eta = otsu(month.ndwi)
        floor_stored = int(round(floor * 10000))
        applied = floor_stored if raw is None else max(raw, floor_stored)
        wet = month.dark + int(month.ndwi[applied + 10000 + 1:].sum())
        wet_otsu = month.dark + int(month.ndwi[raw + 10000 + 1:].sum()) if raw is not None else month.dark
        rows.append({
            "t": t, "stored_threshold": applied, "month": time[:7], "valid_px": month.valid,
            "valid_frac": round(month.valid / (level.height * level.width), 6), "dark_frac": round(month.dark / month.valid, 6),
            "otsu_threshold": "" if raw is None else raw / 10000, "threshold": applied / 10000,
            "floored": int(raw is None or floor_stored > raw), "eta": round(eta, 4),
            "water_frac": round(wet / month.valid, 6), "water_frac_otsu": round(wet_otsu / month.valid, 6),
            "water_km2": round(wet * pixel_km2, 4), "blue_median_dn": month.blue_median(),
        })
    return rows


def derive(source: Source, t: int, threshold: int, rows: slice, cols: slice) -> np.ndarray:
    """(ndwi, water) stored of one block: the second pass."""
    block = source.window(t, rows, cols)
    valid = block["valid"]
    ndwi = stored_ndwi(block["green"], block["nir"])
    water = valid & (dark(block["green"], block["nir"]) | (ndwi > threshold))
    return np.stack([np.where(valid, ndwi, 0), np.where(water, 10000, 0)]).astype(np.int16)


def lazy(source: Source, rows: list[dict[str, Any]]) -> tuple[dsa.Array, dsa.Array, dsa.Array]:
    """The derived stack, its mask and coverage as dask arrays, one task per (month, block), the
    planes apart from the bands (the writer reads each on its own): read as the writer goes."""
    level = source.store.level(0)
    spans = blocks(level.height, level.width)
    row_spans = sorted({r.start: r for r, _ in spans}.values(), key=lambda s: s.start)
    col_spans = sorted({c.start: c for _, c in spans}.values(), key=lambda s: s.start)
    data: list[dsa.Array] = []
    mask: list[dsa.Array] = []
    coverage: list[dsa.Array] = []
    for row in rows:
        t, bands_, planes = row["t"], [], []
        for r in row_spans:
            bands_.append([dsa.from_delayed(dask.delayed(derive, pure=False)(source, t, row["stored_threshold"], r, c),
                                            (2, r.stop - r.start, c.stop - c.start), np.int16) for c in col_spans])
            planes.append([dask.delayed(source.observed, nout=2, pure=False)(t, r, c) for c in col_spans])
        data.append(dsa.block(bands_))
        for k, out in ((0, mask), (1, coverage)):
            out.append(dsa.block([[dsa.from_delayed(p[k], (r.stop - r.start, c.stop - c.start), np.uint8)
                                   for p, c in zip(line, col_spans, strict=True)] for line, r in zip(planes, row_spans, strict=True)]))
    return dsa.stack(data), dsa.stack(mask), dsa.stack(coverage)


def build(store: str | Path, out: str | Path, floor: float = 0.0, boa_offset_from: str | None = None, shard: bool = False) -> Path:
    """Derive the water stack of the composite at `store` into the new store `out`; returns `out`."""
    source = Source.open(str(store), boa_offset_from)
    rows = survey(source, floor)
    if not rows:
        raise SystemExit(f"error: {store} has no month with a valid pixel")
    data, mask, coverage = lazy(source, rows)
    coords = source.store.coords(0, [r["t"] for r in rows])
    da = xr.DataArray(data, dims=("time", "band", "y", "x"),
                      coords={"time": coords["time"], "band": ["ndwi", "water"], "y": coords["y"], "x": coords["x"]})
    notes = f"from green and nir of {store}; threshold max(Otsu, {floor:g}); dark pixels (green and nir <= {DARK_DN} DN) are water"
    if boa_offset_from:
        notes += f"; {BOA_OFFSET_DN} DN taken off from {boa_offset_from} (--boa-offset-from)"
    chronozarr.encode(da, out, crs=source.store.crs, chunk_size=source.store.level(0).chunk_size,
                      bands=BANDS, mask=mask, coverage=coverage, nodata=None, progress=False, shard=shard,
                      provenance={"sources": [str(Path(store).resolve())], "composite": "monthly water mask", "gap_fill": "none", "notes": notes})
    with open(f"{out}.months.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return Path(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="the monthly composite store (convert --composite month)")
    parser.add_argument("out", type=Path, help="the new water store; the CSV goes to OUT.months.csv")
    parser.add_argument("--floor", type=float, default=0.0, help="lowest NDWI threshold (default 0.0)")
    parser.add_argument("--boa-offset-from", metavar="YYYY-MM", help="for a store that was not harmonised: months from this one carry +1000 DN")
    parser.add_argument("--shard", action="store_true", help="one object per cell holding every month (default: one per month and cell)")
    args = parser.parse_args()
    print(build(args.store, args.out, args.floor, args.boa_offset_from, args.shard))
