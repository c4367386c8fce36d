"""The streaming core: timesteps in order, each built at every level, chunks encoded in parallel.

Memory is bounded by two timesteps in flight plus the anchors still referenced, never by the
length of the time axis. Shard objects grow one inner chunk at a time in timestep order, so
their bytes do not depend on thread timing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..format.geometry import LevelGeometry, time_shard
from ..format.temporal import abs_difference_sum, residual
from .chunks import encode_chunk
from .objects import ObjectCounter, ObjectWriter, ShardBuilder
from .plan import Plan
from .readahead import ReadAhead
from .pyramid_planes import Planes, build_pyramid, padded_cell
from .source import Series

Progress = Callable[[int], None]
PyramidOf = Callable[[int], "list[Planes]"]
OpenShard = Callable[[ObjectWriter, str, int], ShardBuilder]


@dataclass
class RangeResult:
    """What writing a range of timesteps produced, merged by the caller into the metadata."""

    objects: int = 0
    nbytes: int = 0
    shard_bytes: dict[str, dict[str, int]] = field(default_factory=dict)
    volatility_sum: np.ndarray | None = None
    volatility_count: np.ndarray | None = None

    def merge(self, other: "RangeResult") -> None:
        self.objects += other.objects
        self.nbytes += other.nbytes
        for level, sizes in other.shard_bytes.items():
            self.shard_bytes.setdefault(level, {}).update(sizes)
        if other.volatility_sum is not None:
            if self.volatility_sum is None:
                self.volatility_sum = np.zeros_like(other.volatility_sum)
                self.volatility_count = np.zeros_like(other.volatility_count)
            self.volatility_sum += other.volatility_sum
            self.volatility_count += other.volatility_count


class _PyramidCache:
    """Pyramids of timesteps, keeping anchors while later timesteps still reference them."""

    def __init__(self, plan: Plan, series: Series, start: int, stop: int, pyramid_of: PyramidOf | None = None) -> None:
        self.plan = plan
        self.series = series
        self.cache: dict[int, list[Planes]] = {}
        self.last_use: dict[int, int] = {}
        for t in range(stop):
            for ref in self._needs(t)[1:]:
                self.last_use[ref] = max(self.last_use.get(ref, ref), t)
        self.reads: ReadAhead | None = None
        if pyramid_of is None:
            self.reads = ReadAhead(series.read, self._read_order(start, stop))
            pyramid_of = self._build
        self.pyramid_of = pyramid_of

    def _needs(self, t: int) -> list[int]:
        """The timesteps whose pyramids timestep t uses, in the order they are asked for."""
        refs = (self.plan.storage_reference(t), self.plan.volatility_reference(t))
        return [t] + [r for r in refs if r is not None]

    def _read_order(self, start: int, stop: int) -> list[int]:
        """The timesteps `get` will have to read, in order: the walk below, without the work."""
        order: list[int] = []
        kept: set[int] = set()
        for t in range(start, stop):
            for needed in self._needs(t):
                if needed not in kept:
                    order.append(needed)
                    if needed in self.last_use:
                        kept.add(needed)
            kept = {a for a in kept if self.last_use[a] >= t + 1}
        return order

    def close(self) -> None:
        if self.reads is not None:
            self.reads.close()

    def get(self, t: int) -> list[Planes]:
        if t in self.cache:
            return self.cache[t]
        planes = self.pyramid_of(t)
        if t in self.last_use:
            self.cache[t] = planes
        return planes

    def _build(self, t: int) -> list[Planes]:
        assert self.reads is not None
        data, mask, coverage = self.reads.get(t)
        return build_pyramid(data, mask, coverage, len(self.plan.levels), self.plan.nodata)

    def release_before(self, t: int) -> None:
        """Drop anchors no timestep at or after t needs."""
        for anchor in [a for a in self.cache if self.last_use.get(a, -1) < t]:
            del self.cache[anchor]


def _cell_job(
    plan: Plan,
    t: int,
    level: LevelGeometry,
    row: int,
    col: int,
    planes: Planes,
    anchor: Planes | None,
    vol_reference: Planes | None,
) -> tuple[list[tuple[str, bytes | None]], float | None]:
    """Encode every variable of one cell of one timestep; returns (variable, bytes) and the
    level-0 volatility sum of the cell when one is due."""
    rows, cols = level.cell_slice(row, col)
    cs = level.chunk_size
    if level.index == 0 and plan.sample is not None and plan.sample.holds(t, row, col):
        data = plan.sample.take(anchor is not None, t, row, col)
    else:
        chunk = padded_cell(planes.data, rows, cols, cs, plan.fill)
        if anchor is not None:
            chunk = residual(chunk, padded_cell(anchor.data, rows, cols, cs, plan.fill))
        data = encode_chunk(plan.codec, chunk, plan.fill)
    out = [(plan.variable, data)]
    for name in plan.plane_variables:
        plane = planes.mask if name == "mask" else planes.coverage
        out.append((name, encode_chunk(plan.codec, padded_cell(plane, rows, cols, cs, 0), 0)))
    vol = None
    if vol_reference is not None:
        vol = abs_difference_sum(planes.data[:, rows, cols], vol_reference.data[:, rows, cols])
    return out, vol


def _cell_jobs(
    plan: Plan, pool: ThreadPoolExecutor, t: int, cache: _PyramidCache
) -> Iterator[tuple[LevelGeometry, int, int, Future]]:
    pyramid = cache.get(t)
    ref = plan.storage_reference(t)
    anchor = cache.get(ref) if ref is not None else None
    vref = plan.volatility_reference(t)
    vol_pyramid = cache.get(vref) if vref is not None else None
    for level, planes in zip(plan.levels, pyramid):
        for row, col in level.cells():
            vol_ref = vol_pyramid[0] if vol_pyramid is not None and level.index == 0 else None
            anchor_planes = anchor[level.index] if anchor is not None else None
            yield level, row, col, pool.submit(_cell_job, plan, t, level, row, col, planes, anchor_planes, vol_ref)


def write_timesteps(
    plan: Plan,
    series: Series,
    start: int,
    stop: int,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    *,
    pyramid_of: PyramidOf | None = None,
    open_shard: OpenShard | None = None,
    writer: ObjectWriter | None = None,
) -> RangeResult:
    """Write every object of timesteps [start, stop) at every level.

    Sharded: start and stop must be time-shard boundaries (or the end of the axis), so each shard
    object is written whole by one call; append passes `open_shard` to extend the trailing shard
    instead. `pyramid_of(t)` replaces reading timestep t from the series (append reads anchors
    written earlier back from the store), and `writer` replaces the writer under plan.root.
    """
    writer = writer or ObjectWriter(plan.root, ObjectCounter())
    counter = writer.counter
    open_shard = open_shard or ShardBuilder
    level0 = plan.levels[0]
    result = RangeResult(
        volatility_sum=np.zeros(level0.grid, dtype=np.float64),
        volatility_count=np.zeros(level0.grid, dtype=np.int64),
    )
    cache = _PyramidCache(plan, series, start, stop, pyramid_of)
    shards: dict[str, ShardBuilder] = {}
    pending: list[tuple[int, list[tuple[LevelGeometry, int, int, Future]]]] = []

    def settle(t: int, jobs: list[tuple[LevelGeometry, int, int, Future]]) -> None:
        for level, row, col, future in jobs:
            encoded, vol = future.result()
            for variable, data in encoded:
                key = plan.object_key(level, variable, t, row, col)
                if plan.sharded:
                    builder = shards.get(key)
                    if builder is None:
                        builder = shards[key] = open_shard(writer, key, plan.shard_time)
                    builder.add(time_shard(t, plan.shard_time)[1], data)
                elif data is not None:
                    writer.put(key, data)
            if vol is not None:
                h, w = (s.stop - s.start for s in level.cell_slice(row, col))
                result.volatility_sum[row, col] += vol
                result.volatility_count[row, col] += plan.n_band * h * w
        if plan.sharded and (time_shard(t, plan.shard_time)[1] == plan.shard_time - 1 or t == plan.n_time - 1):
            for key, builder in list(shards.items()):
                size = builder.finish()
                del shards[key]
                level_path, variable = key.split("/")[:2]
                if size is not None and variable == plan.variable:
                    shard_id = "/".join(key.split("/")[3:4] + key.split("/")[5:])
                    result.shard_bytes.setdefault(level_path, {})[shard_id] = size
        if progress is not None:
            progress(1)

    with ThreadPoolExecutor(max_workers=plan.workers) as pool, closing(cache):
        for t in range(start, stop):
            if should_stop is not None and should_stop():
                break
            pending.append((t, list(_cell_jobs(plan, pool, t, cache))))
            cache.release_before(t + 1)
            if len(pending) > 1:
                settle(*pending.pop(0))
        while pending:
            settle(*pending.pop(0))
    result.objects = counter.objects
    result.nbytes = counter.nbytes
    return result
