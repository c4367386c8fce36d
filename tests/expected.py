"""Independent expectations for writer tests, in plain numpy.

Nothing here imports chronozarr: every rule is re-derived from the spec so that a test compares
the store against a second, separate reading of the format rather than against the writer itself.
The helpers that read stores use zarr-python and the JSON files directly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import zarr

VOLATILITY_SCALE = 10000.0


# --- schedule ---------------------------------------------------------------------------------


def anchors_for(n_time: int, interval: int) -> list[int]:
    """Anchor timesteps 0, k, 2k, ... below n_time."""
    return [t for t in range(n_time) if t % interval == 0]


def references_for(n_time: int, interval: int) -> dict[int, int]:
    """Nearest anchor of every non-anchor timestep, ties resolved to the earlier anchor."""
    anchors = anchors_for(n_time, interval)
    out: dict[int, int] = {}
    for t in range(n_time):
        if t in anchors:
            continue
        best = anchors[0]
        for a in anchors:
            if abs(t - a) < abs(t - best):
                best = a
        out[t] = best
    return out


# --- pyramid ----------------------------------------------------------------------------------


def level_count(height: int, width: int, cs: int) -> int:
    """Levels written by default: halve (ceil) until the cell grid is 1 x 1, that level included."""
    n = 1
    while math.ceil(height / cs) > 1 or math.ceil(width / cs) > 1:
        height, width = (height + 1) // 2, (width + 1) // 2
        n += 1
    return n


def _pad_even(a: np.ndarray) -> np.ndarray:
    """Replicate the last row and/or column so both trailing axes are even."""
    h, w = a.shape[-2:]
    pad = [(0, 0)] * (a.ndim - 2) + [(0, h % 2), (0, w % 2)]
    return np.pad(a, pad, mode="edge")


def _blocks(a: np.ndarray) -> np.ndarray:
    """(..., H, W) -> (..., H/2, W/2, 4): the four pixels of each 2 x 2 block (after edge padding)."""
    p = _pad_even(a)
    h, w = p.shape[-2:]
    lead = p.shape[:-2]
    b = p.reshape(lead + (h // 2, 2, w // 2, 2))
    b = np.moveaxis(b, -3, -2)  # (..., H/2, W/2, 2, 2)
    return b.reshape(lead + (h // 2, w // 2, 4))


def valid_pixels(data: np.ndarray, mask: np.ndarray | None, nodata: float | None) -> np.ndarray:
    """Spec 2.3 validity of a (band, y, x) plane, as a full (band, y, x) bool array."""
    if mask is not None:
        return np.broadcast_to(mask[None] == 1, data.shape)
    if nodata is not None:
        return data != np.asarray(nodata).astype(data.dtype)
    return np.ones(data.shape, dtype=bool)


def reduce_data(data: np.ndarray, valid: np.ndarray, nodata: float | None) -> np.ndarray:
    """2 x 2 mean over valid pixels of a (band, y, x) plane; integers floor an exact int64 sum."""
    values = _blocks(data)
    ok = _blocks(valid)
    count = ok.sum(axis=-1)
    fill = 0 if nodata is None else nodata
    if data.dtype.kind == "f":
        total = np.where(ok, values.astype(np.float64), 0.0).sum(axis=-1)
        mean = total / np.maximum(count, 1)
    else:
        total = np.where(ok, values.astype(np.int64), 0).sum(axis=-1)
        mean = np.floor_divide(total, np.maximum(count, 1))  # floors toward -inf
    mean = np.where(count == 0, fill, mean)
    return mean.astype(data.dtype)


def reduce_mask(mask: np.ndarray) -> np.ndarray:
    return _blocks(mask).max(axis=-1).astype(np.uint8)


def reduce_coverage(coverage: np.ndarray) -> np.ndarray:
    total = _blocks(coverage).astype(np.int64).sum(axis=-1)
    return ((total + 2) // 4).astype(np.uint8)


def pyramid(
    data: np.ndarray,
    mask: np.ndarray | None,
    coverage: np.ndarray | None,
    nodata: float | None,
    n_levels: int,
) -> list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]]:
    """Every level of a (time, band, y, x) series, each level built from the one below."""
    levels = [(data, mask, coverage)]
    for _ in range(1, n_levels):
        d, m, c = levels[-1]
        new_d = np.stack(
            [reduce_data(d[t], valid_pixels(d[t], None if m is None else m[t], nodata), nodata) for t in range(len(d))]
        )
        new_m = None if m is None else reduce_mask(m)
        new_c = None if c is None else reduce_coverage(c)
        levels.append((new_d, new_m, new_c))
    return levels


# --- temporal ---------------------------------------------------------------------------------


def modular_residual(source: np.ndarray, anchor: np.ndarray) -> np.ndarray:
    """(source - anchor) mod 2^bits computed in int64, returned in the unsigned dtype."""
    bits = source.dtype.itemsize * 8
    diff = (source.astype(np.int64) - anchor.astype(np.int64)) % (1 << bits)
    return diff.astype(source.dtype)


def volatility(data: np.ndarray, references: dict[int, int], cs: int) -> np.ndarray:
    """Mean |source[t] - source[ref(t)]| / 10000 per level-0 cell, clipped to [0, 1], float32."""
    _, _, h, w = data.shape
    rows, cols = math.ceil(h / cs), math.ceil(w / cs)
    wide = np.float64 if data.dtype.kind == "f" else np.int64
    out = np.zeros((rows, cols), dtype=np.float32)
    if not references:
        return out
    for r in range(rows):
        for c in range(cols):
            cell = data[:, :, r * cs : (r + 1) * cs, c * cs : (c + 1) * cs].astype(wide)
            diffs = np.stack([np.abs(cell[t] - cell[a]) for t, a in sorted(references.items())])
            out[r, c] = np.float32(min(max(float(diffs.mean(dtype=np.float64)) / VOLATILITY_SCALE, 0.0), 1.0))
    return out


# --- store access -----------------------------------------------------------------------------


def root_doc(path: Path) -> dict[str, Any]:
    return json.loads((Path(path) / "zarr.json").read_text())


def chronozarr_attrs(path: Path) -> dict[str, Any]:
    return root_doc(path)["attributes"]["chronozarr"]


def true_values(path: Path, level: int, variable: str = "data") -> np.ndarray:
    """Level data as true values: stored values, with star-delta residuals added back to anchors."""
    block = chronozarr_attrs(path)
    stored = zarr.open_group(Path(path), mode="r")[f"{level}/{variable}"][:]
    temporal = block["temporal"]
    if temporal["encoding"] == "none":
        return stored
    out = stored.copy()
    bits = stored.dtype.itemsize * 8
    for key, anchor in temporal["delta_reference"].items():
        t = int(key)
        out[t] = ((stored[anchor].astype(np.int64) + stored[t].astype(np.int64)) % (1 << bits)).astype(stored.dtype)
    return out


def store_files(path: Path) -> set[str]:
    """Every object key (file path relative to the store root)."""
    root = Path(path)
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
