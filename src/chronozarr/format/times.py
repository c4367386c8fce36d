"""Timestamps: int64 milliseconds in the `time` array, ISO-8601 strings in the mirror (spec 2.2)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..errors import InputTypeError, TimeValueError

TIME_UNITS = "milliseconds since 1970-01-01T00:00:00"
TIME_CALENDAR = "proleptic_gregorian"


def to_millis(times: np.ndarray) -> np.ndarray:
    """datetime64 values as int64 milliseconds since the epoch (sub-millisecond parts must be zero)."""
    values = np.asarray(times)
    if values.dtype.kind != "M":
        raise InputTypeError(f"time coordinate must hold datetime64 values, got dtype {values.dtype}")
    ms = values.astype("datetime64[ms]")
    if np.any(ms.astype(values.dtype) != values):
        raise TimeValueError("time values finer than a millisecond cannot be stored: round them to milliseconds")
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
    """ISO strings (with or without the trailing Z) as datetime64[ms]; ValueError naming the first
    that is not a timestamp with a four-digit year (numpy reads longer years, wrapping silently)."""
    out = np.empty(len(values), dtype="datetime64[ms]")
    for i, text in enumerate(values):
        try:
            out[i] = iso_instant(text)
        except ValueError as exc:
            raise TimeValueError(f"[{i}] {text!r} is not an ISO-8601 timestamp ({exc})") from None
    return out


def iso_instant(text: str) -> np.datetime64:
    """One UTC ISO string (with or without the trailing Z) as datetime64[ms]; ValueError saying why not."""
    try:
        if not _YEAR.match(text):
            raise TimeValueError("the year must have four digits")
        return np.datetime64(text.rstrip("Z").replace("+00:00", ""), "ms")
    except OverflowError as exc:
        raise TimeValueError(str(exc)) from None


def as_nanoseconds(times: np.ndarray) -> np.ndarray:
    """Timestamps as datetime64[ns], the unit xarray and pandas index by; ValueError naming the
    first one outside the years 1678-2262 that the unit holds."""
    ms = np.asarray(times).astype("datetime64[ms]").astype(np.int64)
    outside = np.flatnonzero((ms < _NS_LIMITS[0]) | (ms > _NS_LIMITS[1]))
    if outside.size:
        i = int(outside[0])
        raise TimeValueError(f"[{i}] {iso(int(ms[i]))} is outside the years 1678-2262 that datetime64[ns] holds")
    return (ms * 1_000_000).astype("datetime64[ns]")


DAY_MS = 86_400_000
MONTH_STEPS = {1: "monthly", 3: "quarterly", 12: "yearly"}
DAY_STEPS = {1: "daily", 7: "weekly"}


def cadence(times: np.ndarray) -> str:
    """'monthly', 'daily', 'every 5 days', 'irregular (median 30 days)', ... of datetime64 values."""
    t = np.asarray(times).astype("datetime64[ms]")
    if len(t) < 2:
        return "single timestep"
    months = t.astype("datetime64[M]")
    offsets = t - months.astype("datetime64[ms]")
    steps = np.diff(months.astype(np.int64))
    if np.all(offsets == offsets[0]) and np.all(steps == steps[0]) and steps[0] > 0:
        step = int(steps[0])
        return MONTH_STEPS.get(step, f"every {step} months")
    diffs = np.diff(t.astype(np.int64))
    if np.all(diffs == diffs[0]) and diffs[0] > 0:
        if diffs[0] % DAY_MS == 0:
            days = int(diffs[0] // DAY_MS)
            return DAY_STEPS.get(days, f"every {days} days")
        return f"every {_duration(int(diffs[0]))}"
    return f"irregular (median {_duration(int(np.median(diffs)))})"


def _duration(ms: int) -> str:
    if ms >= DAY_MS:
        days = ms / DAY_MS
        return f"{days:g} days" if days != 1 else "1 day"
    hours = ms / 3_600_000
    return f"{hours:g} hours" if hours >= 1 else f"{ms / 1000:g} seconds"


_YEAR = re.compile(r"\d{4}-")
_NS_LIMITS = (-((2**63 - 1) // 10**6), (2**63 - 1) // 10**6)  # milliseconds datetime64[ns] can hold
