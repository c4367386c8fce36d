"""Factor-2 block reductions of the pyramid (spec 2.4, 2.5, 6).

Every function takes arrays whose last two axes are (y, x). Odd sizes are padded by edge
replication before blocking, so level k has ceil(H / 2) x ceil(W / 2) pixels.
"""

from __future__ import annotations

import numpy as np


def _quarters(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The four pixels of each 2 x 2 block (top-left, top-right, bottom-left, bottom-right).

    Edge replication is done by index, not by copying the array: the last block of an odd axis
    reads the last row or column twice.
    """
    h, w = a.shape[-2:]
    rows0 = slice(0, h, 2)
    cols0 = slice(0, w, 2)
    rows1 = np.minimum(np.arange(1, h + 1, 2), h - 1) if h % 2 else slice(1, h, 2)
    cols1 = np.minimum(np.arange(1, w + 1, 2), w - 1) if w % 2 else slice(1, w, 2)

    def take(r: slice | np.ndarray, c: slice | np.ndarray) -> np.ndarray:
        out = a[..., r, :] if isinstance(r, slice) else np.take(a, r, axis=-2)
        return out[..., c] if isinstance(c, slice) else np.take(out, c, axis=-1)

    return take(rows0, cols0), take(rows0, cols1), take(rows1, cols0), take(rows1, cols1)


def validity(data: np.ndarray, mask: np.ndarray | None, nodata: float | None) -> np.ndarray | None:
    """Validity of a (band, y, x) plane by the rule of spec 2.3, broadcastable to it.

    A mask gives (y, x) validity shared by every band; without one, a numeric nodata makes each
    value valid where it differs from nodata, band by band. None means everything is valid.
    """
    if mask is not None:
        return mask.astype(bool, copy=False)
    if nodata is None:
        return None
    return data != np.asarray(nodata, dtype=data.dtype)


def block_mean(data: np.ndarray, valid: np.ndarray | None, nodata: float | None) -> np.ndarray:
    """Mean of each 2 x 2 block over valid pixels of a (band, y, x) plane, in the data dtype.

    Integers: floor of the exact sum (uint32 or int32) by the valid count. float32: float64
    accumulation in block order (tl + tr) + bl + br. All-invalid blocks become nodata (0 if null).
    """
    dtype = data.dtype
    if dtype.kind == "f":
        wide = np.dtype(np.float64)
    elif dtype.kind == "u":
        wide = np.dtype(np.uint32)
    else:
        wide = np.dtype(np.int32)
    fill = np.asarray(0 if nodata is None else nodata, dtype=dtype)
    parts = _quarters(data)
    if valid is None:
        total = np.add(parts[0], parts[1], dtype=wide)
        total += parts[2]
        total += parts[3]
        if dtype.kind == "f":
            return (total / 4.0).astype(dtype)
        return (total // 4).astype(dtype)
    vparts = _quarters(valid)
    count = np.add(vparts[0], vparts[1], dtype=np.uint8)
    count += vparts[2]
    count += vparts[3]
    total = np.zeros(parts[0].shape, dtype=wide)
    for part, ok in zip(parts, vparts):
        total += np.where(ok, part, np.zeros((), dtype=dtype))
    empty = count == 0
    safe = np.where(empty, 1, count)
    if dtype.kind == "f":
        mean = (total / safe).astype(dtype)
    else:
        mean = (total // safe.astype(wide)).astype(dtype)
    return np.where(empty, fill, mean)


def block_max(mask: np.ndarray) -> np.ndarray:
    """Mask reduction: 1 where any pixel of the block is valid (spec 2.4)."""
    a, b, c, d = _quarters(mask)
    return np.maximum(np.maximum(a, b), np.maximum(c, d))


def block_rounded_mean(coverage: np.ndarray) -> np.ndarray:
    """Coverage reduction: (sum + 2) // 4, halves rounded up (spec 2.5)."""
    a, b, c, d = _quarters(coverage)
    total = np.add(a, b, dtype=np.uint16)
    total += c
    total += d
    return ((total + 2) // 4).astype(np.uint8)
