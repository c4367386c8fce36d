"""Temporal encoding: anchors, references, modular residuals, volatility (spec 4, 5)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import DocumentError, FieldTypeError, InputTypeError, SettingError
from ..limits import STAR_DELTA_DATA_TYPES

NONE = "none"
STAR_DELTA = "star-delta"
ENCODINGS = (NONE, STAR_DELTA)
STAR_DELTA_DTYPES = STAR_DELTA_DATA_TYPES
AUTO_THRESHOLD = 0.85
NOMINAL_ANCHOR_INTERVAL = 6
VOLATILITY_DIVISOR = 10000.0


def star_delta_allowed(dtype: str) -> bool:
    """Star-delta stores only unsigned integers, whose residuals wrap (spec 4.1, 4.2.4)."""
    return dtype in STAR_DELTA_DTYPES


def auto_keeps_star_delta(ratio: float) -> bool:
    """Auto keeps star-delta where the sample compresses to at most AUTO_THRESHOLD of plain (spec 4.3)."""
    return ratio <= AUTO_THRESHOLD


def anchor_indices(n_time: int, anchor_interval: int) -> list[int]:
    """[0, k, 2k, ...] below n_time (spec 4.2.1)."""
    if anchor_interval < 1:
        raise SettingError(f"anchor_interval must be >= 1, got {anchor_interval}")
    return list(range(0, n_time, anchor_interval))


def nearest_anchor(t: int, anchors: Iterable[int]) -> int:
    """The anchor nearest to t by index distance, ties toward the earlier one."""
    return min(anchors, key=lambda a: (abs(t - a), a))


def nearest_references(timesteps: Iterable[int], anchors: list[int]) -> dict[int, int]:
    """Reference anchor of each non-anchor timestep under the nearest-anchor rule (spec 4.2.2)."""
    anchor_set = set(anchors)
    return {t: nearest_anchor(t, anchors) for t in timesteps if t not in anchor_set}


def reference_is_valid(t: int, anchor: int, anchors: Iterable[int], anchor_interval: int) -> bool:
    """A reference names an anchor at distance 0 < d < anchor_interval (spec 4.2.2)."""
    return anchor in set(anchors) and 0 < abs(t - anchor) < anchor_interval


def schedule_problems(
    n_time: int, anchor_interval: int | None, anchors: Iterable[int], references: Mapping[int, Any]
) -> Iterator[tuple[str, str, str]]:
    """(spec section, field of chronozarr.temporal, what is wrong) for each way a star-delta
    schedule breaks spec 4.1 or 4.2; the reader refuses such a store and the validator lists them."""
    if not isinstance(anchor_interval, int) or isinstance(anchor_interval, bool) or anchor_interval < 1:
        yield "4.1", "anchor_interval", f"must be an integer >= 1, got {anchor_interval!r}"
        return
    expected = anchor_indices(n_time, anchor_interval)
    listed = list(anchors)
    if listed != expected:
        yield "4.2", "anchor_indices", f"is {short_repr(listed)}, expected {short_repr(expected)} for anchor_interval {anchor_interval} and {n_time} timesteps"
    anchor_set = set(expected)
    for t, a in sorted(references.items()):
        field = f"delta_reference[{str(t)!r}]"
        if t in anchor_set:
            yield "4.1", field, f"timestep {t} is an anchor and must not be referenced"
        elif not isinstance(a, int) or isinstance(a, bool):
            yield "4.1", field, f"value {a!r} is not an integer anchor index"
        elif a not in anchor_set:
            yield "4.2", field, f"references {a}, which is not an anchor (anchors {short_repr(expected)})"
        elif not reference_is_valid(t, a, anchor_set, anchor_interval):
            yield "4.2", field, f"references anchor {a} at distance {abs(t - a)}; it must be 0 < d < anchor_interval ({anchor_interval})"
    missing = [t for t in range(n_time) if t not in anchor_set and t not in references]
    if missing:
        yield "4.1", "delta_reference", f"gives non-anchor timesteps {short_repr(missing)} no reference"


def short_repr(value: Any, limit: int = 120) -> str:
    """repr(value), cut to `limit` characters for a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def references_to_json(references: Mapping[int, int]) -> dict[str, int]:
    return {str(t): int(a) for t, a in sorted(references.items())}


def references_from_json(mapping: Mapping[str, Any]) -> dict[int, int]:
    """delta_reference with int keys; ValueError or TypeError naming an entry that is not
    '<timestep>': <anchor index>."""
    out = {}
    for t, a in mapping.items():
        if not isinstance(t, str) or not _DECIMAL.fullmatch(t):
            raise DocumentError(f"chronozarr.temporal.delta_reference key {t!r} is not a timestep index in decimal")
        if not isinstance(a, int) or isinstance(a, bool):
            raise FieldTypeError(f"chronozarr.temporal.delta_reference[{t!r}] must be an anchor index, got {a!r}")
        out[int(t)] = a
    return out


_DECIMAL = re.compile(r"0|[1-9]\d*")


def residual(source: np.ndarray, anchor: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(source - anchor) mod 2^bits in the stored unsigned dtype (spec 4.2.4), into `out` when given."""
    if source.dtype != anchor.dtype or not star_delta_allowed(source.dtype.name):
        raise InputTypeError(f"residuals need matching uint8/uint16 arrays, got {source.dtype} and {anchor.dtype}")
    return np.subtract(source, anchor, out=out, dtype=source.dtype)


def reconstruct(anchor: np.ndarray, stored: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(anchor + residual) mod 2^bits, no clamp (spec 4.2 decoding); into `out` when given."""
    return np.add(anchor, stored, out=out, dtype=stored.dtype)


def abs_difference_sum(source: np.ndarray, reference: np.ndarray, scratch: np.ndarray | None = None) -> float:
    """Exact sum of |source - reference| (spec 5).

    Integers (8 and 16 bits) are differenced in int32, where every difference is exact, and
    summed in int64: one widening pass is cheaper than the casts of an unsigned 64-bit sum; the
    differences go to `scratch` (int32, of the inputs' shape) when given. Floats are differenced
    in float64.
    """
    if source.dtype.kind == "f":
        return float(np.abs(source.astype(np.float64) - reference.astype(np.float64)).sum())
    distance = np.subtract(source, reference, out=scratch, dtype=np.int32)
    np.abs(distance, out=distance)
    return float(distance.sum(dtype=np.int64))


def volatility_value(abs_sum: float, count: int) -> float:
    """clip(mean |difference| / 10000, 0, 1); 0.0 when there is nothing to average (spec 5)."""
    if count == 0:
        return 0.0
    return float(min(max(abs_sum / count / VOLATILITY_DIVISOR, 0.0), 1.0))
