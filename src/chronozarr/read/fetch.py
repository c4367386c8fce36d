"""Fetching stored chunks with the fewest requests the layout allows.

Unsharded: one GET per chunk. Sharded: the shard index once per shard and handle (a bounded range
when shard_bytes gives the length, else a suffix range), then one range per chunk, with adjacent
chunks of one shard merged into one range. Requests run concurrently in two phases at most
(indexes, then chunks), so a batch costs about one round trip per `concurrency` requests.

The calling thread works too: it and up to `concurrency - 1` pool threads take the next object as
each finishes one, so a read of one chunk runs where it was asked, with no handoff to a pool. Each
thread reads objects (from a directory) and decodes chunks into buffers of its own (buffers).
"""

from __future__ import annotations

import functools
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import StoreError
from ..format.array_doc import ArrayDocument
from ..format.geometry import cell_key, shard_id, time_shard
from ..format.shard_index import EMPTY
from ..store import ObjectStore
from ..store.deadline import submit
from .buffers import ThreadBuffers
from .cache import ByteLRU
from .decode import decode_chunk, parse_shard_index

MERGE_GAP = 0
MAX_RUN_BYTES = 8 * 2**20


@dataclass(frozen=True)
class ChunkRef:
    """One stored chunk: the array, the timestep and the cell."""

    array: ArrayDocument
    t: int
    row: int
    col: int

    @property
    def has_band(self) -> bool:
        return len(self.array.shape) == 4

    def stored_at(self) -> tuple[str, int]:
        """(object key, inner position): the chunk's own key, or its shard's key and position."""
        if self.array.shard_shape is None:
            index, position = self.t, 0
        else:
            index, position = time_shard(self.t, self.array.shard_shape[0])
        return cell_key(self.array.path, index, self.row, self.col, self.has_band), position

    def shard_id(self) -> str:
        """The shard_bytes entry of the shard holding the chunk (spec 7.3)."""
        assert self.array.shard_shape is not None
        return shard_id(time_shard(self.t, self.array.shard_shape[0])[0], self.row, self.col)


# Called with each chunk decoded (None for fill); the array is valid only during the call (its
# buffer is reused for the thread's next chunk), so a callback that keeps it keeps a copy.
OnChunk = Callable[[ChunkRef, "np.ndarray | None"], None]
# Where a chunk is to be decoded instead (a uint8 view of the caller's output), or None.
Into = Callable[[ChunkRef], "np.ndarray | None"]
# How many of a chunk's first bytes the caller reads (None: all); decoding may stop there.
Upto = Callable[[ChunkRef], "int | None"]
# A chunk's stored bytes, and where they are from, to the decoded chunk.
Decode = Callable[[ChunkRef, "bytes | memoryview", str], np.ndarray]
Task = Callable[[], None]


class ChunkFetcher:
    """Reads stored (not reconstructed) chunks for one store handle, caching shard indexes."""

    def __init__(
        self,
        source: ObjectStore,
        shard_bytes: Mapping[str, Mapping[str, int]],
        data_variable: str,
        concurrency: int,
        index_budget: int,
    ) -> None:
        self.source = source
        self.shard_bytes = shard_bytes
        self.data_variable = data_variable
        self.concurrency = max(1, concurrency)
        self.pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="chronozarr-read")
        self.scratch = ThreadBuffers()
        self.indexes = ByteLRU(index_budget)
        self._missing_shards: set[str] = set()
        self._lock = threading.Lock()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def fetch(self, refs: Iterable[ChunkRef], on_chunk: OnChunk, into: Into | None = None, upto: Upto | None = None) -> None:
        """Call on_chunk(ref, decoded chunk or None for fill) for every ref; returns when all are
        done. A chunk is decoded into `into(ref)` when that gives a buffer (the chunk passed is
        then a view of it), else into the thread's own buffer; only its first `upto(ref)` bytes
        when that gives a number."""
        refs = list(dict.fromkeys(refs))
        decode = functools.partial(self._decode, into=into, upto=upto)
        self._run([functools.partial(self._plain, r, on_chunk, decode) for r in refs if not r.array.sharded])
        sharded = [r for r in refs if r.array.sharded]
        if sharded:
            self._run(self._sharded_tasks(sharded, on_chunk, decode))

    def _run(self, tasks: list[Task]) -> None:
        """Run every task on this thread and up to concurrency - 1 pool threads, each taking the
        next task when it is done with one; the first error is raised once all have stopped."""
        if len(tasks) <= 1:
            for task in tasks:
                task()
            return
        queue = iter(tasks)
        lock = threading.Lock()
        errors: list[BaseException] = []

        def drain() -> None:
            while True:
                with lock:
                    task = None if errors else next(queue, None)
                if task is None:
                    return
                try:
                    task()
                except BaseException as exc:  # kept for the caller, which raises it
                    with lock:
                        errors.append(exc)

        helpers = [submit(self.pool, drain) for _ in range(min(len(tasks), self.concurrency) - 1)]
        drain()
        for helper in helpers:
            if not helper.cancel():  # one that never started has nothing to finish
                helper.result()
        if errors:
            raise errors[0]

    def _plain(self, ref: ChunkRef, on_chunk: OnChunk, decode: Decode) -> None:
        key, _ = ref.stored_at()
        get_into = getattr(self.source, "get_into", None)
        if get_into is not None:
            raw: bytes | memoryview | None = get_into(key, functools.partial(self.scratch.raw, "object"))
        else:
            raw = self.source.get(key)
        on_chunk(ref, None if raw is None else decode(ref, raw, self.source.describe(key)))

    def _decode(self, ref: ChunkRef, raw: bytes | memoryview, where: str, into: Into | None, upto: Upto | None) -> np.ndarray:
        target = into(ref) if into is not None else None
        if target is None:
            target = self.scratch.raw("chunk", ref.array.chunk_bound)
        return decode_chunk(ref.array, raw, where, target, upto(ref) if upto is not None else None)

    def _sharded_tasks(self, refs: list[ChunkRef], on_chunk: OnChunk, decode: Decode) -> list[Task]:
        """Phase one reads every missing index at once; the tasks returned read the chunk ranges."""
        by_shard: dict[str, list[tuple[int, ChunkRef]]] = defaultdict(list)
        for ref in refs:
            key, position = ref.stored_at()
            by_shard[key].append((position, ref))
        indexes: dict[str, np.ndarray | None] = {}

        def read_index(key: str) -> None:
            indexes[key] = self._index(key, by_shard[key][0][1])

        self._run([functools.partial(read_index, k) for k in by_shard])
        tasks: list[Task] = []
        for key, members in by_shard.items():
            index = indexes[key]
            wanted = []
            for position, ref in members:
                offset, length = (int(v) for v in index[position]) if index is not None else (EMPTY, EMPTY)
                if offset == EMPTY and length == EMPTY:
                    on_chunk(ref, None)
                else:
                    wanted.append((offset, length, ref))
            tasks += [functools.partial(self._ranged, key, run, on_chunk, decode) for run in _adjacent_runs(wanted)]
        return tasks

    def _ranged(self, key: str, run: list[tuple[int, int, ChunkRef]], on_chunk: OnChunk, decode: Decode) -> None:
        """One range covering adjacent chunks of a shard, decoded chunk by chunk."""
        start = run[0][0]
        end = max(offset + length for offset, length, _ in run)
        raw = self.source.get_range(key, start, end - start)
        where = self.source.describe(key)
        if raw is None:
            raise StoreError(f"{where} disappeared while it was being read")
        for offset, length, ref in run:
            on_chunk(ref, decode(ref, memoryview(raw)[offset - start : offset - start + length], where))

    def _index(self, key: str, ref: ChunkRef) -> np.ndarray | None:
        """The shard's index from cache or store; None when the shard does not exist (all fill)."""
        array = ref.array
        cached = self.indexes.get(key)
        if cached is not None:
            return cached
        with self._lock:
            if key in self._missing_shards:
                return None
        n = array.index_nbytes
        length = self._listed_length(ref)
        where = self.source.describe(key)
        if length is None and array.index_at_end and self.shard_bytes:
            # A store that lists shard lengths gets a HEAD for a shard it does not list (spec 7.3).
            length = self.source.size(key)
            if length is None:
                with self._lock:
                    self._missing_shards.add(key)
                return None
        if not array.index_at_end:
            raw = self.source.get_range(key, 0, n)
        elif length is not None:
            if length < n:
                raise StoreError(f"{where}: shard_bytes gives {length} bytes, less than its {n}-byte index")
            raw = self.source.get_range(key, length - n, n)
        else:
            raw = self.source.get_suffix(key, n)
        if raw is None:
            with self._lock:
                self._missing_shards.add(key)
            return None
        index = parse_shard_index(array, raw, length, where)
        self.indexes.put(key, index)
        return index

    def _listed_length(self, ref: ChunkRef) -> int | None:
        """The shard's byte length from shard_bytes, which covers the data array only (spec 7.3)."""
        level_path, variable = ref.array.path.split("/")
        level = self.shard_bytes.get(level_path)
        if variable != self.data_variable or not isinstance(level, Mapping):
            return None
        value = level.get(ref.shard_id())
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _adjacent_runs(wanted: list[tuple[int, int, ChunkRef]]) -> list[list[tuple[int, int, ChunkRef]]]:
    """Group byte ranges that touch (or overlap) so each group is one request."""
    runs: list[list[tuple[int, int, ChunkRef]]] = []
    for offset, length, ref in sorted(wanted, key=lambda w: (w[0], w[1])):
        run_start = runs[-1][0][0] if runs else 0
        run_end = max(o + n for o, n, _ in runs[-1]) if runs else 0
        if runs and offset <= run_end + MERGE_GAP and offset + length - run_start <= MAX_RUN_BYTES:
            runs[-1].append((offset, length, ref))
        else:
            runs.append([(offset, length, ref)])
    return runs
