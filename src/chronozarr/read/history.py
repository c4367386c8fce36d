"""A pixel's history from the time-major history arrays (docs/format-history.md): the data, and
the mask copy when the store declares one (version 1.1).

Per time block: the shard's index (one bounded range when `shard_bytes` lists the shard, else a
suffix range; cached per store handle), then one range for the pixel's inner chunk. A declaration
the reader cannot use is never an error: `usable_history` says why once and the store reads
histories from level 0.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import HistoryWarning as HistoryWarning  # lives in errors.py; re-exported for old imports
from ..errors import StoreError
from ..format.array_doc import ArrayDocument
from ..format.history import HistoryLayout, HistoryPart
from ..format.history_rules import level_problems
from ..format.root_block import RootBlock
from ..format.shard_index import EMPTY
from ..store import ObjectStore
from ..store.deadline import submit
from .cache import ByteLRU
from .decode import decode_chunk, fill_chunk, parse_shard_index

INDEX_BUDGET = 16 * 2**20


RUN_BYTES = 16 * 2**20  # one range read of neighbouring inner chunks holds at most this much


def runs(chunks: Sequence[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
    """(offset, length, position) sorted by offset, grouped where each starts where the last ended."""
    out: list[list[tuple[int, int, int]]] = []
    for chunk in chunks:
        last = out[-1] if out else None
        if last is not None and last[-1][0] + last[-1][1] == chunk[0] and chunk[0] + chunk[1] - last[0][0] <= RUN_BYTES:
            last.append(chunk)
        else:
            out.append([chunk])
    return out


@dataclass(frozen=True)
class DatasetHistory:
    """A usable history: its declaration and its parsed documents (the mask copy's when declared),
    for level 0; `coarse` holds the same per coarser level whose history is usable (version 1.3),
    `coarse_problems` why a declared one is not."""

    layout: HistoryLayout
    array: ArrayDocument
    mask_array: ArrayDocument | None = None
    coarse: Mapping[int, DatasetHistory] = field(default_factory=dict)
    coarse_problems: tuple[tuple[int, str], ...] = ()  # (level, why)

    def at(self, level: int) -> DatasetHistory | None:
        """The history of `level`, None when it has none a reader can use."""
        return self if level == 0 else self.coarse.get(level)


def usable_history(
    block: RootBlock, node: Callable[[str], Any], level0: ArrayDocument, mask0: ArrayDocument | None = None,
    coarser: Sequence[tuple[ArrayDocument, ArrayDocument | None]] = (),
) -> tuple[DatasetHistory | None, str | None]:
    """(the history, None) when the store declares one a reader can use; (None, why) when it
    declares one it cannot, a broken mask copy included; (None, None) when it declares none.
    `coarser`: the data and mask documents of levels 1, 2...; a coarser level whose history is
    broken is left out (named in coarse_problems), never level 0's."""
    if block.history_problem is not None:
        return None, block.history_problem
    layout = block.history
    if layout is None:
        return None, None
    top, why = _level_history(layout, node, level0, mask0)
    if top is None:
        return None, why
    coarse: dict[int, DatasetHistory] = {}
    problems: list[tuple[int, str]] = []
    for own in layout.coarse:
        if own.level > len(coarser):
            problems.append((own.level, f"chronozarr.history.levels.{own.level}: the store has no level {own.level}"))
            continue
        found, why = _level_history(own, node, *coarser[own.level - 1])
        if found is None:
            problems.append((own.level, str(why)))
        else:
            coarse[own.level] = found
    return DatasetHistory(layout, top.array, top.mask_array, coarse, tuple(problems)), None


def _level_history(
    layout: HistoryLayout, node: Callable[[str], Any], data: ArrayDocument, mask: ArrayDocument | None
) -> tuple[DatasetHistory | None, str | None]:
    """One level's history when its documents agree with the declaration and the level's arrays."""
    field_of = (lambda name: name) if layout.level == 0 else (lambda name: f"levels.{layout.level}.{name}")
    try:
        array = ArrayDocument.from_json(layout.path, node(layout.path))
    except StoreError as exc:
        return None, f"chronozarr.history.{field_of('path')}: the history array's document cannot be used: {exc}"
    copy = layout.mask
    mask_array = None
    if copy is not None and mask is not None:
        try:
            mask_array = ArrayDocument.from_json(copy.path, node(copy.path))
        except StoreError as exc:
            return None, f"chronozarr.history.{field_of('mask_path')}: the mask copy's document cannot be used: {exc}"
    problems = level_problems(layout, data, array, mask, mask_array)
    if problems:
        name, rule = problems[0]
        return None, f"chronozarr.history.{name}: {rule}"
    return DatasetHistory(layout, array, mask_array), None


def warn_unusable(why: str, where: str, level: int = 0) -> None:
    what, instead = (("the history array", "pixel histories are read from level 0") if level == 0
                     else (f"level {level}'s history array", "its series are read from its chunks"))
    warnings.warn(f"{where}: {what} is not used ({why}); {instead}", HistoryWarning, stacklevel=3)


def history_readers(source: ObjectStore, history: DatasetHistory, pool: Executor) -> tuple[HistoryReader, HistoryReader | None]:
    """Readers of the data history and of its mask copy (None when the history has none)."""
    data = HistoryReader(source, history.layout, history.layout.data, history.array, pool)
    mask_part = history.layout.mask
    if mask_part is None or history.mask_array is None:
        return data, None
    return data, HistoryReader(source, history.layout, mask_part, history.mask_array, pool)


class HistoryReader:
    """Pixel histories from one history array (data or mask copy) of one store handle; shard
    indexes are cached for the handle's life."""

    def __init__(self, source: ObjectStore, layout: HistoryLayout, part: HistoryPart, array: ArrayDocument, pool: Executor) -> None:
        self.source, self.layout, self.part, self.array, self.pool = source, layout, part, array, pool
        self.indexes = ByteLRU(INDEX_BUDGET)
        self._missing: set[str] = set()
        self._lock = threading.Lock()

    def point(self, y: int, x: int, steps: Sequence[int]) -> np.ndarray:
        """Values of pixel (y, x) at the timesteps `steps`: (len(steps), band) from the data
        history, (len(steps),) from the mask copy."""
        layout = self.layout
        row, col, position = layout.locate(y, x)
        blocks = layout.blocks_of(steps)
        jobs = {tb: submit(self.pool, self.inner_chunk, tb, row, col, position) for tb in blocks}
        at = {t: i for i, t in enumerate(steps)}
        out = np.empty((len(steps), *self.part.lead), dtype=self.array.dtype)
        iy, ix = y % layout.inner, x % layout.inner
        for tb, job in jobs.items():
            chunk = job.result()
            for t in blocks[tb]:
                out[at[t]] = chunk[t - tb * layout.time_cap, ..., iy, ix]
        return out

    def window(self, rows: slice, cols: slice, steps: Sequence[int]) -> np.ndarray:
        """Values over rows x cols at `steps`: (len(steps), band, h, w) from the data history,
        (len(steps), h, w) from the mask copy. Per shard and time block, the inner chunks it needs
        whose bytes lie next to each other are one range (`runs`), shards read concurrently."""
        layout, p = self.layout, self.layout.inner
        blocks = layout.blocks_of(steps)
        at = {t: i for i, t in enumerate(steps)}
        out = np.empty((len(steps), *self.part.lead, rows.stop - rows.start, cols.stop - cols.start), dtype=self.array.dtype)
        by_shard: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}
        for y in range(rows.start // p * p, rows.stop, p):
            for x in range(cols.start // p * p, cols.stop, p):
                row, col, position = layout.locate(y, x)
                by_shard.setdefault((row, col), {})[position] = (y, x)
        jobs = {(tb, shard): submit(self.pool, self.inner_chunks, tb, *shard, sorted(places)) for tb in blocks for shard, places in by_shard.items()}
        for (tb, shard), job in jobs.items():
            for position, chunk in job.result().items():
                y, x = by_shard[shard][position]
                top, left = max(y, rows.start), max(x, cols.start)
                bottom, right = min(y + p, rows.stop), min(x + p, cols.stop)
                src = (slice(top - y, bottom - y), slice(left - x, right - x))
                dst = (slice(top - rows.start, bottom - rows.start), slice(left - cols.start, right - cols.start))
                for t in blocks[tb]:
                    out[(at[t], ..., *dst)] = chunk[(t - tb * layout.time_cap, ..., *src)]
        return out

    def inner_chunks(self, tb: int, row: int, col: int, positions: Sequence[int]) -> dict[int, np.ndarray]:
        """The decoded inner chunks at `positions` of shard (tb, row, col): one range read per run
        of chunks stored back to back (at most RUN_BYTES each), fill for chunks not stored."""
        key = self.part.shard_key(tb, row, col)
        index = self._index(key, self.part.shard_bytes.get(self.layout.shard_id(tb, row, col)))
        out: dict[int, np.ndarray] = {}
        stored = []
        for position in positions:
            offset, length = (EMPTY, EMPTY) if index is None else (int(v) for v in index[position])
            if offset == EMPTY and length == EMPTY:
                out[position] = fill_chunk(self.array)
            else:
                stored.append((offset, length, position))
        where = self.source.describe(key)
        for run in runs(sorted(stored)):
            start, end = run[0][0], run[-1][0] + run[-1][1]
            raw = self.source.get_range(key, start, end - start)
            if raw is None:
                raise StoreError(f"{where} disappeared while it was being read")
            view = memoryview(raw)
            for offset, length, position in run:
                out[position] = decode_chunk(self.array, bytes(view[offset - start : offset - start + length]), where)
        return out

    def inner_chunk(self, tb: int, row: int, col: int, position: int) -> np.ndarray:
        """The decoded ([T, band | T], p, p) inner chunk at `position` of shard (tb, row, col)."""
        key = self.part.shard_key(tb, row, col)
        index = self._index(key, self.part.shard_bytes.get(self.layout.shard_id(tb, row, col)))
        offset, length = (EMPTY, EMPTY) if index is None else (int(v) for v in index[position])
        if offset == EMPTY and length == EMPTY:
            return fill_chunk(self.array)
        raw = self.source.get_range(key, offset, length)
        if raw is None:
            raise StoreError(f"{self.source.describe(key)} disappeared while it was being read")
        return decode_chunk(self.array, raw, self.source.describe(key))

    def _index(self, key: str, length: int | None) -> np.ndarray | None:
        """The shard's checked index, from cache or one range read; None for a shard not stored."""
        cached = self.indexes.get(key)
        if cached is not None:
            return cached
        with self._lock:
            if key in self._missing:
                return None
        n = self.layout.index_nbytes
        where = self.source.describe(key)
        if length is not None and length < n:
            raise StoreError(f"{where}: chronozarr.history.{self.part.field} gives {length} bytes, less than its {n}-byte index")
        raw = self.source.get_suffix(key, n) if length is None else self.source.get_range(key, length - n, n)
        if raw is None:
            with self._lock:
                self._missing.add(key)
            return None
        index = parse_shard_index(self.array, raw, length, where)
        self.indexes.put(key, index)
        return index
