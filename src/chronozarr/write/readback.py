"""Reading back, as true values, what a store already holds at one level.

The levels above a block are built from the level below them, which earlier work units wrote;
append builds the pyramid of an anchor written by an earlier run. Both read that level back here,
a window at a time: chunks decoded with the store's codec, star-delta residuals added to their
anchor (spec 4.2), mask and coverage as stored. Only the chunks under the window are read.
"""

from __future__ import annotations

import threading
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
ANCHOR_CACHE = 4  # anchor windows kept: the threads reading one history shard's timesteps share a few


@dataclass
class StoredLevels:
    """Windows of one store's levels; `outputs` are searched in order (staging before the store).
    Threads may read windows at once (a history shard reads its timesteps on a pool): the caches
    are guarded by one lock, and what they hold is never changed once read."""

    plan: Plan
    outputs: tuple[Output, ...]
    _indexes: OrderedDict[tuple[int, str], ShardBase | None] = field(default_factory=OrderedDict, repr=False)
    # The last anchor windows read: nearby timesteps of one window share them (history shards).
    _anchors: OrderedDict[tuple[int, int, int, int, int, int], np.ndarray] = field(default_factory=OrderedDict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def window(self, t: int, level: Level, rows: slice, cols: slice, out: np.ndarray | None = None) -> WindowPlanes:
        """Timestep t of `level` over rows x cols: (data (band, y, x), mask, coverage); the data
        are written to `out` (band, y, x) when given, and the data returned is `out`."""
        data = self._variable(t, level, self.plan.variable, rows, cols)
        ref = self.plan.storage_reference(t)
        if ref is not None:
            data = reconstruct(self._anchor_window(ref, level, rows, cols), data, out)
        elif out is not None:
            out[...] = data
            data = out
        planes = {name: self._variable(t, level, name, rows, cols) for name in self.plan.plane_variables}
        return data, planes.get("mask"), planes.get("coverage")

    def _anchor_window(self, t: int, level: Level, rows: slice, cols: slice) -> np.ndarray:
        key = (t, level.index, rows.start, rows.stop, cols.start, cols.stop)
        with self._lock:
            found = self._anchors.get(key)
        if found is None:  # two threads may both read it: the same values, the cache keeps one
            found = self._variable(t, level, self.plan.variable, rows, cols)
            with self._lock:
                self._anchors[key] = found
                while len(self._anchors) > ANCHOR_CACHE:
                    self._anchors.popitem(last=False)
        return found

    def _variable(self, t: int, level: Level, name: str, rows: slice, cols: slice) -> np.ndarray:
        """Stored values of one variable over the window, assembled from the cells under it."""
        band = name == self.plan.variable
        dtype = np.dtype(self.plan.dtype) if band else np.dtype(np.uint8)
        lead = (self.plan.n_band,) if band else ()
        cells = level.cells_under(rows, cols)
        if len(cells) == 1:  # within one cell: a view of its freshly decoded chunk, copied only when read-only
            cy, cx, _, _ = level.overlap(*cells[0], rows, cols)
            chunk = self._chunk(t, level, name, *cells[0], lead, dtype)
            return (chunk if chunk.flags.writeable else chunk.copy())[..., cy, cx]
        out = np.empty(lead + (rows.stop - rows.start, cols.stop - cols.start), dtype=dtype)
        for row, col in cells:
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
            with self._lock:
                hit = cached in self._indexes
                found = self._indexes[cached] if hit else None
                if hit:
                    self._indexes.move_to_end(cached)
            if not hit:
                found = ShardBase.read(output, key, self.plan.shard_time)
                with self._lock:
                    self._indexes[cached] = found
                    while len(self._indexes) > INDEX_CACHE:
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
