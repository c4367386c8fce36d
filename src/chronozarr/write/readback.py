"""Reading back, as true values, what a store already holds at one level.

The levels above a block are built from the level below them, which earlier work units wrote;
append builds the pyramid of an anchor written by an earlier run. Both read that level back here,
a window at a time: chunks decoded with the store's codec, star-delta residuals added to their
anchor (spec 4.2), mask and coverage as stored. Only the chunks under the window are read.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import StoreError
from ..format.geometry import Level, time_shard
from ..format.shard_index import EMPTY
from ..format.temporal import reconstruct
from .objects import ShardBase
from .output import Output
from .plan import Plan

WindowPlanes = tuple[np.ndarray, np.ndarray | None, np.ndarray | None]  # data, mask, coverage of a pixel window
INDEX_CACHE = 64


@dataclass
class StoredLevels:
    """Windows of one store's levels; `outputs` are searched in order (staging before the store)."""

    plan: Plan
    outputs: tuple[Output, ...]
    _indexes: OrderedDict[tuple[int, str], ShardBase | None] = field(default_factory=OrderedDict, repr=False)
    # The last anchor window read: consecutive timesteps of one window share it (history shards).
    _anchor: tuple[tuple[int, int, int, int, int, int], np.ndarray] | None = field(default=None, repr=False)

    def window(self, t: int, level: Level, rows: slice, cols: slice) -> WindowPlanes:
        """Timestep t of `level` over rows x cols: (data (band, y, x), mask, coverage)."""
        data = self._variable(t, level, self.plan.variable, rows, cols)
        ref = self.plan.storage_reference(t)
        if ref is not None:
            data = reconstruct(self._anchor_window(ref, level, rows, cols), data)
        planes = {name: self._variable(t, level, name, rows, cols) for name in self.plan.plane_variables}
        return data, planes.get("mask"), planes.get("coverage")

    def _anchor_window(self, t: int, level: Level, rows: slice, cols: slice) -> np.ndarray:
        key = (t, level.index, rows.start, rows.stop, cols.start, cols.stop)
        if self._anchor is None or self._anchor[0] != key:
            self._anchor = (key, self._variable(t, level, self.plan.variable, rows, cols))
        return self._anchor[1]

    def _variable(self, t: int, level: Level, name: str, rows: slice, cols: slice) -> np.ndarray:
        """Stored values of one variable over the window, assembled from the cells under it."""
        band = name == self.plan.variable
        dtype = np.dtype(self.plan.dtype) if band else np.dtype(np.uint8)
        lead = (self.plan.n_band,) if band else ()
        out = np.empty(lead + (rows.stop - rows.start, cols.stop - cols.start), dtype=dtype)
        for row, col in level.cells_under(rows, cols):
            chunk = self._chunk(t, level, name, row, col, lead, dtype)
            cy, cx, oy, ox = level.overlap(row, col, rows, cols)
            out[..., oy, ox] = chunk[..., cy, cx]
        return out

    def _chunk(self, t: int, level: Level, name: str, row: int, col: int, lead: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        key = self.plan.timestep_key(level, name, t, row, col)
        cs = level.chunk_size
        fill = self.plan.fill if name == self.plan.variable else 0
        raw = self._shard_chunk(key, t) if self.plan.sharded else self._read(lambda o: o.get(key))
        if raw is None:
            return np.full(lead + (cs, cs), fill, dtype=dtype)
        nbytes = int(np.prod(lead + (cs, cs))) * dtype.itemsize
        try:
            decoded = np.frombuffer(self.plan.codec.decode(raw, nbytes, dtype), dtype=dtype.newbyteorder("<"))
        except ValueError as exc:
            raise StoreError(f"{key}: {exc}") from None
        if decoded.size != int(np.prod(lead + (cs, cs))):
            raise StoreError(f"{key} decodes to {decoded.size} values, not one {lead + (cs, cs)} chunk")
        return decoded.reshape(lead + (cs, cs)).astype(dtype, copy=False)

    def _shard_chunk(self, key: str, t: int) -> bytes | None:
        assert self.plan.shard_time is not None
        found = self._shard(key)
        if found is None:
            return None
        offset, length = (int(v) for v in found.index[time_shard(t, self.plan.shard_time)[1]])
        if offset == EMPTY and length == EMPTY:
            return None
        return found.output.get_range(key, offset, length)

    def _shard(self, key: str) -> ShardBase | None:
        """The shard's checked index from the first output that holds it, cached (LRU)."""
        assert self.plan.shard_time is not None
        for i, output in enumerate(self.outputs):
            cached = (i, key)
            if cached in self._indexes:
                self._indexes.move_to_end(cached)
                found = self._indexes[cached]
            else:
                found = ShardBase.read(output, key, self.plan.shard_time)
                self._indexes[cached] = found
                if len(self._indexes) > INDEX_CACHE:
                    self._indexes.popitem(last=False)
            if found is not None:
                return found
        return None

    def _read(self, get: Callable[[Output], bytes | None]) -> bytes | None:
        for output in self.outputs:
            data = get(output)
            if data is not None:
                return data
        return None
