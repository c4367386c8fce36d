"""The streaming core: work units one after another, each walking its timesteps in order.

A step is one timestep of one unit: the block's window at the unit's base level is read ahead,
its pyramid built up to the unit's top level when the step starts, and every cell of the block at
the levels the unit writes is compressed on a thread pool. Memory is bounded by the block: two
steps in flight, the anchors the unit still references and the windows read ahead, never by the
area or the time axis. Shard objects grow one inner chunk at a time in timestep order, so their
bytes do not depend on thread timing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field

import numpy as np

from ..format.geometry import Level, time_shard
from ..format.temporal import abs_difference_sum, residual
from ..read.buffers import ThreadBuffers
from .compress import encode_chunk
from .objects import ObjectWriter, ShardBuilder
from .plan import Plan
from .pyramid_planes import Planes, build_pyramid, padded_cell
from .readahead import ReadAhead
from .units import Unit, step_bytes

_BUFFERS = ThreadBuffers()  # each compressing thread's cells and differences, reused from cell to cell
PyramidOf = Callable[[Unit, int], list[Planes]]  # what step t of a unit reads: its block at levels base.., at least base
OpenShard = Callable[[ObjectWriter, str, int], ShardBuilder]
Encoded = list[tuple[str, "bytes | None"]]
CellJob = tuple[Level, int, int, "Future[tuple[Encoded, float | None]]"]


@dataclass
class WriteResult:
    """What writing some units produced, merged by the caller into the metadata."""

    objects: int = 0
    nbytes: int = 0
    shard_bytes: dict[str, dict[str, int]] = field(default_factory=dict)
    # level-0 cell -> (timestep, sum |delta|) of each step, and the count of differences
    volatility_terms: dict[tuple[int, int], list[tuple[int, float]]] = field(default_factory=dict)
    volatility_count: dict[tuple[int, int], int] = field(default_factory=dict)

    def merge(self, other: WriteResult) -> None:
        self.objects += other.objects
        self.nbytes += other.nbytes
        for level, sizes in other.shard_bytes.items():
            self.shard_bytes.setdefault(level, {}).update(sizes)
        for cell, terms in other.volatility_terms.items():
            self.volatility_terms.setdefault(cell, []).extend(terms)
            self.volatility_count[cell] = self.volatility_count.get(cell, 0) + other.volatility_count[cell]

    def volatility_sum(self, cell: tuple[int, int]) -> float:
        """A cell's sum of |delta|, added in timestep order whatever order units finished in, so a
        float series gives the same bits on one machine or a cluster."""
        total = 0.0
        for _, term in sorted(self.volatility_terms.get(cell, [])):
            total += term
        return total


class _UnitPyramids:
    """Pyramids of one unit's timesteps, keeping anchors while later timesteps still reference them."""

    def __init__(self, plan: Plan, unit: Unit, pyramid_of: Callable[[int], list[Planes]]) -> None:
        self.plan, self.unit, self._pyramid_of = plan, unit, pyramid_of
        self.cache: dict[int, list[Planes]] = {}
        self.last_use: dict[int, int] = {}
        for t in range(unit.start, unit.stop):
            for ref in self.needs(t)[1:]:
                self.last_use[ref] = max(self.last_use.get(ref, ref), t)

    def needs(self, t: int) -> list[int]:
        """The timesteps whose pyramids step t uses, in the order they are asked for."""
        refs = [self.plan.storage_reference(t)]
        if self.unit.phase.first == 0:
            refs.append(self.plan.volatility_reference(t))
        return [t] + [r for r in refs if r is not None]

    def read_order(self) -> list[int]:
        """The timesteps `get` will have to read, in order: the walk, without the work."""
        order: list[int] = []
        kept: set[int] = set()
        for t in range(self.unit.start, self.unit.stop):
            for needed in self.needs(t):
                if needed not in kept:
                    order.append(needed)
                    if needed in self.last_use:
                        kept.add(needed)
            kept = {a for a in kept if self.last_use[a] >= t + 1}
        return order

    def get(self, t: int) -> list[Planes]:
        if t in self.cache:
            return self.cache[t]
        planes = self._pyramid_of(t)
        if t in self.last_use:
            self.cache[t] = planes
        return planes

    def release_before(self, t: int) -> None:
        """Drop anchors no timestep at or after t needs."""
        for anchor in [a for a in self.cache if self.last_use.get(a, -1) < t]:
            del self.cache[anchor]


def _cell_job(
    plan: Plan, writer: ObjectWriter, unit: Unit, t: int, level: Level, row: int, col: int,
    planes: Planes, anchor: Planes | None, vol_reference: Planes | None,
) -> tuple[Encoded, float | None]:
    """Encode every variable of one cell of one step (and store it when jobs store); returns the
    (variable, bytes) and the level-0 volatility sum of the cell when one is due."""
    rows, cols = unit.block.cell_window(level, row, col)
    cs = level.chunk_size
    found, data = (False, None)
    if level.index == 0 and plan.sample is not None:
        found, data = plan.sample.lookup(anchor is not None, t, row, col)
    if not found:
        chunk = padded_cell(planes.data, rows, cols, cs, plan.fill, _cell_buffer("cell", planes.data, cs))
        if anchor is not None:
            residual(chunk, padded_cell(anchor.data, rows, cols, cs, plan.fill, _cell_buffer("anchor", anchor.data, cs)), out=chunk)
        data = encode_chunk(plan.codec, chunk, plan.fill)
    out: Encoded = [(plan.variable, data)]
    for name in plan.plane_variables:
        plane = planes.mask if name == "mask" else planes.coverage
        assert plane is not None, f"a store with {name} has it at every timestep"
        out.append((name, encode_chunk(plan.codec, padded_cell(plane, rows, cols, cs, 0, _cell_buffer("plane", plane, cs)), 0)))
    if _jobs_store(plan, writer):
        for name, encoded in out:
            if encoded is not None:
                writer.put(plan.timestep_key(level, name, t, row, col), encoded)
    vol = None
    if vol_reference is not None:
        source = planes.data[:, rows, cols]
        vol = abs_difference_sum(source, vol_reference.data[:, rows, cols], _BUFFERS.array("difference", source.shape, np.dtype(np.int32)))
    return out, vol


def _cell_buffer(purpose: str, plane: np.ndarray, chunk_size: int) -> np.ndarray:
    """The compressing thread's own buffer for a chunk of `plane`: compressed at once, never kept."""
    return _BUFFERS.array(purpose, plane.shape[:-2] + (chunk_size, chunk_size), plane.dtype)


def _jobs_store(plan: Plan, writer: ObjectWriter) -> bool:
    """Whether the cell jobs store their objects (network outputs, whose puts then overlap) or the
    settling thread does (shards, built in step order; a directory, whose files written from
    several threads at once only cost more kernel time)."""
    return not plan.sharded and writer.output.parallel_puts


def _cell_jobs(plan: Plan, writer: ObjectWriter, pool: ThreadPoolExecutor, t: int, pyramids: _UnitPyramids) -> Iterator[CellJob]:
    unit = pyramids.unit
    pyramid = pyramids.get(t)
    ref = plan.storage_reference(t)
    anchor = pyramids.get(ref) if ref is not None else None
    vref = plan.volatility_reference(t) if unit.phase.first == 0 else None
    vol_pyramid = pyramids.get(vref) if vref is not None else None
    for index in range(unit.phase.first, unit.phase.last + 1):
        level, local = plan.levels[index], index - unit.phase.base
        anchor_planes = anchor[local] if anchor is not None else None
        vol_ref = vol_pyramid[0] if vol_pyramid is not None and index == 0 else None
        for row, col in unit.block.cells(level):
            job = pool.submit(_cell_job, plan, writer, unit, t, level, row, col, pyramid[local], anchor_planes, vol_ref)
            yield level, row, col, job


class _Settler:
    """Stores what the cell jobs of a step produced, in step order, and closes finished units."""

    def __init__(self, plan: Plan, writer: ObjectWriter, open_shard: OpenShard, on_done: Callable[[Unit, WriteResult], None] | None) -> None:
        self.plan, self.writer, self.open_shard, self.on_done = plan, writer, open_shard, on_done
        self.shards: dict[str, ShardBuilder] = {}
        self.ids: dict[str, tuple[str, str, str]] = {}  # shard key -> (level, variable, shard_bytes id)
        self.results: dict[Unit, WriteResult] = {}

    def settle(self, unit: Unit, t: int, jobs: list[CellJob]) -> None:
        plan = self.plan
        shard_time = plan.shard_time or 1
        result = self.results.setdefault(unit, WriteResult())
        for level, row, col, future in jobs:
            encoded, vol = future.result()
            for variable, data in encoded:
                if plan.sharded:
                    self._shard(level, variable, t, row, col).add(time_shard(t, shard_time)[1], data)
                elif data is not None:
                    if not _jobs_store(plan, self.writer):
                        self.writer.put(plan.timestep_key(level, variable, t, row, col), data)
                    result.objects += 1
                    result.nbytes += len(data)
            if vol is not None:
                h, w = (s.stop - s.start for s in level.cell_slice(row, col))
                result.volatility_terms.setdefault((row, col), []).append((t, vol))
                result.volatility_count[(row, col)] = result.volatility_count.get((row, col), 0) + plan.n_band * h * w
        if plan.sharded and (time_shard(t, shard_time)[1] == shard_time - 1 or t == unit.stop - 1):
            self._finish_shards(result)
        if t == unit.stop - 1:
            done = self.results.pop(unit)
            if self.on_done is not None:
                self.on_done(unit, done)

    def _shard(self, level: Level, variable: str, t: int, row: int, col: int) -> ShardBuilder:
        assert self.plan.shard_time is not None
        key = self.plan.timestep_key(level, variable, t, row, col)
        builder = self.shards.get(key)
        if builder is None:
            builder = self.shards[key] = self.open_shard(self.writer, key, self.plan.shard_time)
            self.ids[key] = (level.path, variable, self.plan.shard_bytes_id(t, row, col))
        return builder

    def _finish_shards(self, result: WriteResult) -> None:
        for key, builder in list(self.shards.items()):
            written = builder.written
            size = builder.finish()
            del self.shards[key]
            level, variable, shard = self.ids.pop(key)
            if size is None:
                continue
            if written:
                result.objects += 1
                result.nbytes += size
            if variable == self.plan.variable:
                result.shard_bytes.setdefault(level, {})[shard] = size

    def discard(self) -> None:
        """Drop the shards of units that will not finish (stopped or failed)."""
        for builder in self.shards.values():
            builder.discard()
        self.shards.clear()


def write_units(
    plan: Plan,
    units: list[Unit],
    pyramid_of: PyramidOf,
    writer: ObjectWriter,
    *,
    progress: Callable[[int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    open_shard: OpenShard | None = None,
    on_done: Callable[[Unit, WriteResult], None] | None = None,
    read_ahead: int = 2,
    on_step: Callable[[Unit, int], None] | None = None,
) -> WriteResult:
    """Write every object of `units`, in order; returns what they wrote.

    `pyramid_of(unit, t)` gives what step t of a unit reads: its block at the base level (from the
    input for phase 0, from the level below read back for the others; append reads its old
    anchors from the store at every level). It runs on the read-ahead thread; the levels it does
    not read are built here when the step starts, so the reads ahead hold only what was read.
    `open_shard` replaces a fresh shard (append extends the trailing one); `on_done(unit, result)`
    runs once a unit's every object is stored; `progress(n)` counts the input bytes of each step and `on_step(unit, t)`
    names it; `should_stop` is asked between steps.
    """
    def reader(i: int) -> Callable[[int], list[Planes]]:
        return lambda t: build_pyramid(ahead.get((i, t)), units[i].phase.local_levels, plan.nodata)

    def read(key: tuple[int, int]) -> list[Planes]:
        return pyramid_of(units[key[0]], key[1])

    pyramids = [_UnitPyramids(plan, unit, reader(i)) for i, unit in enumerate(units)]
    order = [(i, t) for i, p in enumerate(pyramids) for t in p.read_order()]
    ahead: ReadAhead[tuple[int, int], list[Planes]] = ReadAhead(read, order, depth=read_ahead)
    total = WriteResult()

    def done(unit: Unit, result: WriteResult) -> None:
        total.merge(result)
        if on_done is not None:
            on_done(unit, result)

    settler = _Settler(plan, writer, open_shard or ShardBuilder, done)
    pending: list[tuple[Unit, int, list[CellJob]]] = []

    def settle_oldest() -> None:
        unit, t, jobs = pending.pop(0)
        settler.settle(unit, t, jobs)
        if progress is not None:
            progress(step_bytes(plan, unit))
        if on_step is not None:
            on_step(unit, t)

    steps = ((p, t) for p in pyramids for t in range(p.unit.start, p.unit.stop))
    try:
        with ThreadPoolExecutor(max_workers=plan.workers) as pool, closing(ahead):
            for unit_pyramids, t in steps:
                if should_stop is not None and should_stop():
                    break
                pending.append((unit_pyramids.unit, t, list(_cell_jobs(plan, writer, pool, t, unit_pyramids))))
                unit_pyramids.release_before(t + 1)
                if len(pending) > 1:
                    settle_oldest()
            while pending:
                settle_oldest()
    finally:
        settler.discard()
    return total
