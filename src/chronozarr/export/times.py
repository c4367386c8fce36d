"""Which timesteps a command works on: `--times` as indices, ISO dates and ranges of either."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import InputError

_INDEX = re.compile(r"[+-]?\d+")
SYNTAX = "comma-separated indices (0, -1), ISO dates or prefixes (2024-03-01, 2024-03, 2024- for a year) and FROM..TO ranges of either"


def select_times(times_iso: Sequence[str], text: str | None) -> list[int]:
    """Indices of the timesteps `text` names, in store order without repeats; all when text is None.

    A bare integer is an index, so a year is written `2024-`. A date prefix names every timestep
    that starts with it (`2024-03` is all of March); a range includes both ends, and an open end
    (`2024-06..`) runs to the edge of the series.
    """
    n = len(times_iso)
    if text is None:
        return list(range(n))
    chosen: set[int] = set()
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if ".." in item:
            start, _, stop = item.partition("..")
            first = _bound(times_iso, start.strip(), item, last=False) if start.strip() else 0
            final = _bound(times_iso, stop.strip(), item, last=True) if stop.strip() else n - 1
            chosen.update(range(first, final + 1))
        elif _INDEX.fullmatch(item):
            chosen.add(_index(int(item), n, item))
        else:
            matches = [t for t, when in enumerate(times_iso) if when.startswith(item)]
            if not matches:
                raise InputError(f"--times {item!r} matches no timestep; the store runs from {times_iso[0]} to {times_iso[-1]}")
            chosen.update(matches)
    if not chosen:
        raise InputError(f"--times {text!r} selects no timestep; use {SYNTAX}")
    return sorted(chosen)


def _index(value: int, n: int, item: str) -> int:
    if not -n <= value < n:
        raise InputError(f"--times {item!r}: there is no timestep {value}; the store has {n} (0..{n - 1})")
    return value % n


def _bound(times_iso: Sequence[str], side: str, item: str, last: bool) -> int:
    """The first timestep at or after `side` (or, for the end, the last one at or before it)."""
    if _INDEX.fullmatch(side):
        return _index(int(side), len(times_iso), item)
    if last:
        inside = [t for t, when in enumerate(times_iso) if when[: len(side)] <= side]
        return inside[-1] if inside else -1
    inside = [t for t, when in enumerate(times_iso) if when[: len(side)] >= side]
    return inside[0] if inside else len(times_iso)
