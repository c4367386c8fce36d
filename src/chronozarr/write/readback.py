"""Reading back, as true values, what a store already holds at one level.

The levels above a block are built from the level below them, which earlier work units wrote;
append builds the pyramid of an anchor written by an earlier run. Both read that level back a
window at a time through the reader's region reader (read/region.py), fed from the plan: the
array documents the writer writes, and the anchor each timestep is stored against. Only the
chunks under the window are read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..format.geometry import Level
from ..format.temporal import STAR_DELTA
from ..read.region import RegionReader
from ..store import FirstHolding
from .layout import level_arrays
from .output import Output
from .plan import Plan
from .units import BLOCK_BYTES

WindowPlanes = tuple[np.ndarray, np.ndarray | None, np.ndarray | None]  # data, mask, coverage of a pixel window
# Decoded anchor chunks kept, about four default blocks' windows (units.BLOCK_BYTES): the deltas of
# a block read their anchor's window again and again, and one history shard's threads share them.
ANCHOR_BYTES = 4 * BLOCK_BYTES


@dataclass
class StoredLevels:
    """Windows of one store's levels; `outputs` are searched in order (staging before the store).
    Threads may read windows at once (a history shard reads its timesteps on a pool)."""

    plan: Plan
    outputs: tuple[Output, ...]
    _reader: RegionReader = field(init=False, repr=False)
    _levels: dict[int, Level] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        plan = self.plan
        stores = [output.store for output in self.outputs]
        schedule = plan.schedule
        star = (frozenset(schedule.anchors) | set(schedule.references.values()), plan.storage_reference) if plan.encoding == STAR_DELTA else None
        source = stores[0] if len(stores) == 1 else FirstHolding(stores)
        self._reader = RegionReader(
            source, concurrency=1, anchor_bytes=ANCHOR_BYTES, data_variable=plan.variable, star_delta=star, reuse_anchors=True
        )

    def window(
        self, t: int, level: Level, rows: slice, cols: slice, out: np.ndarray | None = None, *, mask: bool = True, coverage: bool = True
    ) -> WindowPlanes:
        """Timestep t of `level` over rows x cols: (data (band, y, x), mask, coverage); the data
        are written to `out` (band, y, x) when given, and the data returned is `out`. A plane not
        asked for (`mask`, `coverage` False) is None and not read: the history copies no coverage."""
        stored = self._stored(level)
        data = self._reader.read(stored, stored.data_array, [t], rows, cols, None if out is None else out[None])[0]
        wanted = ((stored.mask, mask), (stored.coverage, coverage))
        planes = [None if doc is None or not asked else self._reader.read(stored, doc, [t], rows, cols)[0] for doc, asked in wanted]
        return data, planes[0], planes[1]

    def _stored(self, level: Level) -> Level:
        """The level with the documents of its arrays as the plan writes them."""
        found = self._levels.get(level.index)
        if found is None:
            plan = self.plan
            found = self._levels[level.index] = level_arrays(
                level, variable=plan.variable, dtype=plan.dtype, shape=(plan.n_time, plan.n_band), codec=plan.codec,
                nodata=plan.nodata, plane_variables=plan.plane_variables, shard_time=plan.shard_time,
            )
        return found
