"""The periods of a temporal composite: which period an acquisition falls in, and its label.

A period is labelled with its start at UTC midnight: a calendar day, an ISO week (from Monday),
a month, a quarter (from January, April, July, October), a year, or a fixed run of N days counted
from an origin (the first acquisition's day, or the date the user gives). One label per period is
one timestep of the store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

CALENDAR = ("day", "week", "month", "quarter", "year")
_ADJECTIVE = {"day": "daily", "week": "weekly (ISO week)", "month": "monthly", "quarter": "quarterly", "year": "yearly"}
_FIXED = re.compile(r"^(\d+)\s*[dD]$")


@dataclass(frozen=True)
class Period:
    """A kind of period: one of CALENDAR, or `days` long (kind "days") from an origin."""

    kind: str
    days: int = 0

    @property
    def adjective(self) -> str:
        """How provenance names it: "monthly", "16-day"."""
        return _ADJECTIVE.get(self.kind) or f"{self.days}-day"

    @property
    def text(self) -> str:
        """The form the user writes: "month", "16D"."""
        return self.kind if self.kind in CALENDAR else f"{self.days}D"


def parse_period(text: str) -> Period:
    """`day`, `week`, `month`, `quarter`, `year` or `NND` (a fixed number of days)."""
    value = text.strip().lower()
    if value in CALENDAR:
        return Period(value)
    fixed = _FIXED.match(value)
    if fixed and int(fixed.group(1)) > 0:
        return Period("days", int(fixed.group(1)))
    raise InputError(f"--composite {text!r} is no period; give one of {', '.join(CALENDAR)}, or a number of days such as 16D")


def midnight(stamp: np.datetime64 | np.ndarray) -> np.ndarray:
    """The UTC day of each time, as datetime64[ns] at midnight."""
    return np.asarray(stamp).astype("datetime64[D]").astype("datetime64[ns]")


def period_starts(times: np.ndarray, period: Period, origin: np.datetime64 | None = None) -> np.ndarray:
    """The start (UTC midnight, datetime64[ns]) of the period each time falls in. `origin` counts
    fixed periods (default: the earliest time's day); calendar periods do not use it."""
    values = np.asarray(times, dtype="datetime64[ns]")
    days = values.astype("datetime64[D]")
    if period.kind == "day":
        starts = days
    elif period.kind == "week":
        number = days.astype(np.int64)
        starts = (number - (number + 3) % 7).astype("datetime64[D]")  # 1970-01-01 was a Thursday
    elif period.kind == "month":
        starts = values.astype("datetime64[M]").astype("datetime64[D]")
    elif period.kind == "quarter":
        months = values.astype("datetime64[M]").astype(np.int64)
        starts = (months - months % 3).astype("datetime64[M]").astype("datetime64[D]")
    elif period.kind == "year":
        starts = values.astype("datetime64[Y]").astype("datetime64[D]")
    else:
        first = np.datetime64(origin, "D") if origin is not None else days.min()
        offset = (days - first).astype(np.int64)
        starts = first + (offset // period.days) * period.days
    return np.asarray(starts, dtype="datetime64[ns]")


def composite_name(period: Period, reducer: str) -> str:
    """What provenance.composite says: "monthly median"."""
    return f"{period.adjective} {reducer}"
