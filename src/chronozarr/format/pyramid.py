"""Factor-2 block reductions of the pyramid (spec 2.4, 2.5, 6).

Every function takes arrays whose last two axes are (y, x). Odd sizes are padded by edge
replication before blocking, so level k has ceil(H / 2) x ceil(W / 2) pixels. The replication is
done by reading the last row or column twice, never by copying the array.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Quarter = tuple[np.ndarray, ...]


def _block_reduce(reduce: Callable[[Quarter, Quarter, Quarter, Quarter], np.ndarray], *arrays: np.ndarray) -> np.ndarray:
    """reduce(top-left, top-right, bottom-left, bottom-right) over every 2 x 2 block.

    Each argument is a tuple holding that quarter of every array. The even interior is reduced
    through strided views; an odd last row or column is reduced as blocks that repeat it.
    """
    h, w = arrays[0].shape[-2:]
    he, we = h - h % 2, w - w % 2
    even_rows = (slice(0, he, 2), slice(1, he, 2))
    even_cols = (slice(0, we, 2), slice(1, we, 2))
    last_row = (slice(h - 1, h), slice(h - 1, h))
    last_col = (slice(w - 1, w), slice(w - 1, w))
    pieces = [((slice(0, he // 2), slice(0, we // 2)), even_rows, even_cols)]
    if w % 2:
        pieces.append(((slice(0, he // 2), slice(we // 2, we // 2 + 1)), even_rows, last_col))
    if h % 2:
        pieces.append(((slice(he // 2, he // 2 + 1), slice(0, we // 2)), last_row, even_cols))
    if h % 2 and w % 2:
        pieces.append(((slice(he // 2, he // 2 + 1), slice(we // 2, we // 2 + 1)), last_row, last_col))
    out: np.ndarray | None = None
    for (out_rows, out_cols), (r0, r1), (c0, c1) in pieces:
        if out_rows.stop == out_rows.start or out_cols.stop == out_cols.start:
            continue
        result = reduce(
            tuple(a[..., r0, c0] for a in arrays),
            tuple(a[..., r0, c1] for a in arrays),
            tuple(a[..., r1, c0] for a in arrays),
            tuple(a[..., r1, c1] for a in arrays),
        )
        if out is None:
            out = np.empty(result.shape[:-2] + ((h + 1) // 2, (w + 1) // 2), dtype=result.dtype)
        out[..., out_rows, out_cols] = result
    assert out is not None
    return out


def validity(data: np.ndarray, mask: np.ndarray | None, nodata: float | None) -> np.ndarray | None:
    """Validity of a (band, y, x) plane by the rule of spec 2.3, broadcastable to it.

    A mask gives (y, x) validity shared by every band; without one, a numeric nodata makes each
    value valid where it differs from nodata, band by band. None means everything is valid.
    """
    if mask is not None:
        return mask.astype(bool, copy=False)
    if nodata is None or not _may_hold(data, nodata):
        return None
    return data != np.asarray(nodata, dtype=data.dtype)


def _may_hold(data: np.ndarray, value: float) -> bool:
    """False when value lies outside [min, max] of data: two fast passes that spare the
    per-pixel comparison for imagery without nodata pixels (nodata sits at the dtype's edge)."""
    if data.size == 0:
        return False
    low, high = data.min(), data.max()
    return not (value < low or value > high)


def _wide(dtype: np.dtype) -> np.dtype:
    """The accumulator of block sums: float64, uint32 or int32 (spec 6)."""
    return np.dtype({"f": np.float64, "u": np.uint32}.get(dtype.kind, np.int32))


def _floor_mean(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    """floor(total / count) for integer sums; full blocks divide by 4 with a shift, which floors
    for negative sums too, and only partly valid blocks pay for a division."""
    mean = total >> 2
    partial = np.nonzero(count != 4)
    if partial[0].size:
        mean[partial] = total[partial] // np.maximum(count[partial], 1).astype(total.dtype)
    return mean


def block_mean(data: np.ndarray, valid: np.ndarray | None, nodata: float | None) -> np.ndarray:
    """Mean of each 2 x 2 block over valid pixels of a (band, y, x) plane, in the data dtype.

    Integers: floor of the exact sum (uint32 or int32) by the valid count. float32: float64
    accumulation in block order ((tl + tr) + bl) + br. All-invalid blocks become nodata (0 if null).
    """
    dtype = data.dtype
    wide = _wide(dtype)
    fill = np.asarray(0 if nodata is None else nodata, dtype=dtype)

    def all_valid(tl: Quarter, tr: Quarter, bl: Quarter, br: Quarter) -> np.ndarray:
        total = np.add(tl[0], tr[0], dtype=wide)
        total += bl[0]
        total += br[0]
        if dtype.kind == "f":
            total /= 4.0
        else:
            total >>= 2  # floor(total / 4), negative sums included
        return total.astype(dtype)

    def some_valid(tl: Quarter, tr: Quarter, bl: Quarter, br: Quarter) -> np.ndarray:
        quarters = (tl, tr, bl, br)
        count = np.add(tl[1], tr[1], dtype=np.uint8)
        count += bl[1]
        count += br[1]
        if zero_is_invalid:
            # Invalid values are 0 and add nothing, so the plain sum is the sum over valid pixels.
            total = np.add(tl[0], tr[0], dtype=wide)
            total += bl[0]
            total += br[0]
        else:
            total = np.zeros(np.broadcast_shapes(tl[0].shape, tl[1].shape), dtype=wide)
            for values, ok in quarters:
                total += np.where(ok, values, np.zeros((), dtype=dtype))
        empty = count == 0
        if dtype.kind == "f":
            mean = (total / np.maximum(count, 1)).astype(dtype)
        else:
            mean = _floor_mean(total, count).astype(dtype)
        if zero_is_invalid and dtype.kind != "f":
            return mean  # an empty block summed to 0, which is the fill
        return np.where(empty, fill, mean)

    if valid is None:
        return _block_reduce(all_valid, data)
    zero_is_invalid = nodata is not None and float(nodata) == 0 and valid.shape == data.shape
    return _block_reduce(some_valid, data, np.broadcast_to(valid, data.shape) if valid.ndim < data.ndim else valid)


def block_max(mask: np.ndarray) -> np.ndarray:
    """Mask reduction: 1 where any pixel of the block is valid (spec 2.4)."""
    return _block_reduce(lambda a, b, c, d: np.maximum(np.maximum(a[0], b[0]), np.maximum(c[0], d[0])), mask)


def block_rounded_mean(coverage: np.ndarray) -> np.ndarray:
    """Coverage reduction: (sum + 2) // 4, halves rounded up (spec 2.5)."""

    def rounded(a: Quarter, b: Quarter, c: Quarter, d: Quarter) -> np.ndarray:
        total = np.add(a[0], b[0], dtype=np.uint16)
        total += c[0]
        total += d[0]
        total += 2
        total //= 4
        return total.astype(np.uint8)

    return _block_reduce(rounded, coverage)
