"""Timestamps: int64 milliseconds in the `time` array, ISO-8601 strings in the mirror (spec 2.2)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TIME_UNITS = "milliseconds since 1970-01-01T00:00:00"
TIME_CALENDAR = "proleptic_gregorian"


def to_millis(times: np.ndarray) -> np.ndarray:
    """datetime64 values as int64 milliseconds since the epoch (sub-millisecond parts must be zero)."""
    values = np.asarray(times)
    if values.dtype.kind != "M":
        raise TypeError(f"time coordinate must hold datetime64 values, got dtype {values.dtype}")
    ms = values.astype("datetime64[ms]")
    if np.any(ms.astype(values.dtype) != values):
        raise ValueError("time values finer than a millisecond cannot be stored: round them to milliseconds")
    return ms.astype(np.int64)


def iso(ms: int) -> str:
    """ISO-8601 UTC rendering of a millisecond timestamp, with milliseconds only when present."""
    text = str(np.datetime64(int(ms), "ms"))
    if text.endswith(".000"):
        text = text[:-4]
    return text + "Z"


def iso_list(millis: Sequence[int] | np.ndarray) -> list[str]:
    return [iso(int(m)) for m in millis]


def from_iso(values: Sequence[str]) -> np.ndarray:
    """ISO strings (with or without the trailing Z) as datetime64[ms]."""
    return np.array([np.datetime64(v.rstrip("Z").replace("+00:00", ""), "ms") for v in values])
