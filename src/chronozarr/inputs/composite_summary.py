"""What each period of a written composite holds, counted from the store itself: a resumed run
(whose earlier periods another process wrote) and a cluster run (whose windows were reduced on
workers) then say what an uninterrupted local run says. Per period: the scenes used, the share of
pixels with a valid observation (`coverage` > 0) and the gap-filled pixels (`mask` 1, `coverage` 0,
spec 2.5). Read window by window, so memory is bounded by a window, not by the area.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..read.dataset import ChronoDataset

WINDOW = 4096  # pixels per side of the level-0 window counted at once (two uint8 planes: 32 MB)


def period_counts(store: ChronoDataset, t: int) -> tuple[int, int, int]:
    """(pixels with a valid observation, gap-filled pixels, pixels) of timestep t at level 0."""
    level = store.level(0)
    valid = filled = 0
    for top in range(0, level.height, WINDOW):
        for left in range(0, level.width, WINDOW):
            window = (slice(top, min(top + WINDOW, level.height)), slice(left, min(left + WINDOW, level.width)))
            coverage = store.read_coverage(t, window=window)
            mask = store.read_mask(t, window=window)
            assert coverage is not None and mask is not None  # a composite store has both planes
            observed = coverage > 0
            valid += int(np.count_nonzero(observed))
            filled += int(np.count_nonzero((mask != 0) & ~observed))
    return valid, filled, level.height * level.width


def period_lines(store: ChronoDataset, scenes: Sequence[int], first: int = 0) -> list[str]:
    """A line per period from timestep `first` on (an append's new ones), `scenes[i]` the scenes
    of period first + i: its start, scenes used, share of valid pixels, gap-filled pixels."""
    lines = []
    for i, used in enumerate(scenes):
        valid, filled, pixels = period_counts(store, first + i)
        stamp = store.times_iso[first + i][:10]
        lines.append(f"  {stamp}  {used} scene(s), {100 * valid / pixels:.1f} % valid, {filled} gap-filled")
    return lines
