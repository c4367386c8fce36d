"""Per-pixel reducers of a temporal composite over the valid observations of a period.

`values` are (observation, band, y, x) in acquisition order and `valid` (observation, y, x) says
which observation counts at each pixel. The result has the stored dtype:

- `min`, `max`, `first`, `last` return an observed value as stored;
- `median` of an odd count returns the middle value; of an even count, and `mean` always, are
  computed in float64 and, for an integer store, rounded half to even (numpy's `rint`), which has
  no bias up or down; a float store takes the float64 result cast to its dtype;
- `medoid` returns, for all bands, the observation nearest (Euclidean, in stored units) to the
  per-band median, the earlier acquisition on a tie: every band of a pixel comes from one scene.

A pixel with no valid observation gets `fill`; `coverage` counts the valid ones, saturating at 255.
The carry-forward gap fill is `carry_forward`: a pixel without a value takes the last one before.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

NETWORK_AT_MOST = 64  # observations a pixel sorts through a sorting network; more go through np.sort
REDUCERS = ("median", "mean", "min", "max", "first", "last", "medoid")


def check_reducer(name: str) -> str:
    """The reducer called `name`, or an InputError listing them."""
    if name not in REDUCERS:
        raise InputError(f"--reducer {name!r} is not a reducer; choose one of {', '.join(REDUCERS)}")
    return name


def reduce_pixels(values: np.ndarray, valid: np.ndarray, reducer: str, fill: float | int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(composite (band, y, x) in values' dtype, count of valid observations (y, x) int64)."""
    check_reducer(reducer)
    dtype = values.dtype
    count = valid.sum(axis=0, dtype=np.int64)
    if values.shape[0] == 0:
        return np.full(values.shape[1:], fill, dtype=dtype), count
    if reducer in ("first", "last"):
        order = valid if reducer == "first" else valid[::-1]
        index = np.argmax(order, axis=0)
        chosen = index if reducer == "first" else values.shape[0] - 1 - index
        out = _take(values, chosen)
    elif reducer in ("min", "max"):
        out = _extreme(values, valid, reducer)
    elif reducer == "mean":
        total = np.where(valid[:, None], values, 0).sum(axis=0, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = to_stored(total / count, dtype)
    elif reducer == "median":
        out = to_stored(_median(values, valid, count), dtype)
    else:
        out = _take(values, _medoid_index(values, valid, count))
    return np.where(count > 0, out, np.asarray(fill, dtype=dtype)).astype(dtype, copy=False), count


def to_stored(result: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float64 result in the store's dtype: rounded half to even for integers (NaN, where no
    observation counts, becomes 0 and is replaced by the fill)."""
    if np.dtype(dtype).kind == "f":
        return result.astype(dtype)
    return np.nan_to_num(np.rint(result), nan=0.0).astype(dtype)


def coverage_of(count: np.ndarray) -> np.ndarray:
    """The coverage plane: valid observations per pixel, saturating at 255."""
    return np.minimum(count, 255).astype(np.uint8)


def carry_forward(
    values: np.ndarray, has: np.ndarray, previous: np.ndarray | None, previous_has: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(values, has) with each pixel that has no value taking the previous period's, if any."""
    if previous is None or previous_has is None:
        return values, has
    take = ~has & previous_has
    return np.where(take[None], previous, values), has | previous_has


def _take(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[index[y, x], :, y, x] for every pixel."""
    picked = np.take_along_axis(values, index[None, None], axis=0)
    return picked[0]


def _extreme(values: np.ndarray, valid: np.ndarray, which: str) -> np.ndarray:
    dtype = values.dtype
    if dtype.kind == "f":
        bound = np.asarray(np.inf if which == "min" else -np.inf, dtype=dtype)
    else:
        info = np.iinfo(dtype)
        bound = np.asarray(info.max if which == "min" else info.min, dtype=dtype)
    masked = np.where(valid[:, None], values, bound)
    return masked.min(axis=0) if which == "min" else masked.max(axis=0)


def _median(values: np.ndarray, valid: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The float64 median over the valid observations (NaN where there are none): the two middle
    values of the sorted observations averaged, as numpy's nanmedian does. The sort runs in the
    values' own dtype (a float64 copy of every observation would be four times a uint16 one),
    the invalid ones set to a value no valid one exceeds; only the two picked become float64."""
    ordered = _sorted(np.where(valid[:, None], values, _sorts_last(values.dtype)))
    last = values.shape[0] - 1
    low = np.clip((count - 1) // 2, 0, last)
    high = np.clip(count // 2, 0, last)
    a = np.take_along_axis(ordered, low[None, None], axis=0)[0].astype(np.float64)
    b = np.take_along_axis(ordered, high[None, None], axis=0)[0].astype(np.float64)
    return np.where(count > 0, (a + b) / 2, np.nan)


def _sorted(values: np.ndarray) -> np.ndarray:
    """`values` sorted along axis 0, in place. A few integer observations go through a sorting
    network of whole-plane minimum/maximum, which numpy runs vectorised; np.sort along axis 0
    sorts every pixel's handful of values on its own. Floats take np.sort, which puts NaN last."""
    if values.shape[0] > NETWORK_AT_MOST or values.dtype.kind not in "iu":
        return np.sort(values, axis=0)
    low = np.empty_like(values[0])
    for i, j in _network(values.shape[0]):
        np.minimum(values[i], values[j], out=low)
        np.maximum(values[i], values[j], out=values[j])
        values[i] = low
    return values


def _network(n: int) -> list[tuple[int, int]]:
    """Batcher's odd-even merge sort for n inputs as (lower, upper) comparators: the one for the
    next power of two, without the comparators that reach past n (those inputs would sort last)."""
    pairs = []
    p = 1
    while p < n:
        k = p
        while k >= 1:
            for j in range(k % p, n - k, 2 * k):
                for i in range(min(k, n - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        pairs.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return pairs


def _sorts_last(dtype: np.dtype) -> np.ndarray:
    """What an invalid observation becomes for the sort: the dtype's largest integer, or NaN
    (which numpy sorts after every number). A valid observation equal to it is the same value,
    so the first `count` sorted values are the valid ones whichever way the tie falls."""
    if dtype.kind in "iu":
        return np.asarray(np.iinfo(dtype).max, dtype=dtype)
    return np.asarray(np.nan, dtype=dtype if dtype.kind == "f" else np.float64)


def _medoid_index(values: np.ndarray, valid: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The index of the valid observation nearest the per-band median; argmin keeps the first of
    equal distances, the earlier acquisition."""
    median = _median(values, valid, count)
    distance = ((values.astype(np.float64) - median[None]) ** 2).sum(axis=1)
    distance = np.where(valid, distance, np.inf)
    return np.argmin(distance, axis=0)
