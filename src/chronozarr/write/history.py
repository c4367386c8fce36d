"""The history arrays (docs/format-history.md) built from each level as stored.

A task is one shard of one level's history: a time block of one square of S x S pixels of that
level. It reads the block's finished chunks of the level back (true values: star-delta residuals added to their anchor; the mask as
stored), cuts the (T, band, S, S) block into inner chunks of (T, band, p, p), compresses them on a
thread pool and stores them as one shard in position order, so its bytes never depend on thread
timing; the mask copy's (T, S, S) block likewise, as the task's second shard. Memory is one
shard's values. Tasks are independent: locally they run one after another, on a
dask.distributed cluster each is a task writing its own shard; each finished one is recorded, so
a resumed encode skips it. Append runs the same tasks for the time blocks it grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import StoreError
from ..format.history import HistoryLayout, HistoryPart
from ..progress import work_bar
from .compress import encode_chunk
from .distributed import run_on_cluster
from .objects import ObjectWriter, ShardBuilder
from .plan import Plan
from .readback import StoredLevels
from .walk import WriteResult

if TYPE_CHECKING:
    from .output import Output


@dataclass(frozen=True)
class HistoryTask:
    """One history shard: time block `tb` of the S x S square at shard (row, col) of `level`."""

    tb: int
    row: int
    col: int
    level: int = 0

    @property
    def name(self) -> str:
        """Stable id for resume records (never equal to an encode unit's, which start with L);
        level 0's are those of the writers before version 1.3."""
        return f"H{self.tb}_S{self.row}-{self.col}" + (f"_L{self.level}" if self.level else "")


def history_tasks(plan: Plan, layout: HistoryLayout, blocks: Iterable[int] | None = None) -> list[HistoryTask]:
    """The shards of `blocks` (default: every time block) of every level with a history: level by
    level, finest first, then time block, then row-major."""
    wanted = None if blocks is None else set(blocks)
    return [
        HistoryTask(tb, r, c, own.level)
        for own in layout.every_level
        for tb, r, c in own.shards(plan.n_time, plan.levels[own.level].height, plan.levels[own.level].width)
        if wanted is None or tb in wanted
    ]


def task_bytes(plan: Plan, layout: HistoryLayout) -> int:
    """Raw bytes one task reads back (progress)."""
    mask = 1 if layout.mask is not None else 0
    return layout.time_cap * (plan.n_band * np.dtype(plan.dtype).itemsize + mask) * layout.shard**2


def shard_buffers(plan: Plan, layout: HistoryLayout) -> list[np.ndarray]:
    """One task's shard values, one array per history part, held inner chunk first,
    (S/p, S/p, T, *lead, p, p), so an inner chunk is a contiguous block that compresses without a
    copy. Left uninitialised: shard_values writes every element, and a run's tasks reuse them (a
    new block per task cost its fill and page faults)."""
    p, n = layout.inner, layout.per_side
    return [np.empty((n, n, layout.time_cap, *part.lead, p, p), dtype=_dtype(plan, part)) for part in layout.parts]


def shard_values(
    plan: Plan, layout: HistoryLayout, task: HistoryTask, stored: StoredLevels, pool: ThreadPoolExecutor, blocks: list[np.ndarray]
) -> list[np.ndarray]:
    """A task's shard values in `blocks` (shard_buffers): the true values, then the mask when the
    history has a mask copy; fill past n_time and past the array. The timesteps are read back on
    `pool` (decoding releases the GIL), each into its own rows. `layout` is the task's level's."""
    level0 = plan.levels[task.level]
    s, p, n = layout.shard, layout.inner, layout.per_side
    rows = slice(task.row * s, min((task.row + 1) * s, level0.height))
    cols = slice(task.col * s, min((task.col + 1) * s, level0.width))
    h, w = rows.stop - rows.start, cols.stop - cols.start
    steps = layout.block_steps(task.tb, plan.n_time)
    for part, block in zip(layout.parts, blocks, strict=True):
        block[:, :, len(steps) :] = _fill(plan, part)  # every row before them is written by place

    def place(block: np.ndarray, i: int, plane: np.ndarray, fill: float | int) -> None:
        """Timestep i's (*lead, h, w) plane into its rows of every inner chunk."""
        if (h, w) != (s, s):  # an edge shard: pad to S x S, so the plane splits into whole inner chunks
            padded = np.full((*plane.shape[:-2], s, s), fill, dtype=block.dtype)
            padded[..., :h, :w] = plane
            plane = padded
        lead = plane.shape[:-2]
        split = plane.reshape(*lead, n, p, n, p)
        k = len(lead)
        block[:, :, i] = split.transpose(k, k + 2, *range(k), k + 1, k + 3)

    def read(step: tuple[int, int]) -> None:
        i, t = step
        data, mask, _ = stored.window(t, level0, rows, cols, mask=len(blocks) > 1, coverage=False)
        place(blocks[0], i, data, plan.fill)
        if len(blocks) > 1:
            if mask is None:
                raise StoreError("the history declares a mask copy but the store has no mask")
            place(blocks[1], i, mask, 0)

    for _ in pool.map(read, enumerate(steps)):
        pass
    return blocks


def _fill(plan: Plan, part: HistoryPart) -> float | int:
    return 0 if part.is_mask else plan.fill


def _dtype(plan: Plan, part: HistoryPart) -> np.dtype:
    return np.dtype(np.uint8) if part.is_mask else np.dtype(plan.dtype)


def write_history_shard(
    plan: Plan, layout: HistoryLayout, task: HistoryTask, stored: StoredLevels, writer: ObjectWriter, pool: ThreadPoolExecutor,
    blocks: list[np.ndarray],
) -> WriteResult:
    """Read, cut, compress and store one task's shards (data, then mask copy) through `blocks`
    (shard_buffers); returns what it wrote (their lengths in shard_bytes, keyed by array path)."""
    own = layout.at(task.level)
    if own is None:
        raise StoreError(f"the history declares no array for level {task.level}")
    layout, result = own, WriteResult(shard_bytes={})
    for part, block in zip(layout.parts, shard_values(plan, layout, task, stored, pool, blocks), strict=True):
        size = _store_shard(plan, layout, part, task, block, writer, pool)
        written = result.shard_bytes.setdefault(part.path, {})
        if size is not None:
            result.objects, result.nbytes = result.objects + 1, result.nbytes + size
            written[layout.shard_id(task.tb, task.row, task.col)] = size
    return result


def _store_shard(
    plan: Plan, layout: HistoryLayout, part: HistoryPart, task: HistoryTask, block: np.ndarray, writer: ObjectWriter, pool: ThreadPoolExecutor
) -> int | None:
    """Compress `block`'s inner chunks on the pool and store them as one shard in position order;
    its length, or None when every inner chunk was fill and nothing was stored."""
    fill, codec = _fill(plan, part), part.codec(layout.version, plan.codec)

    def encoded(row: int) -> list[bytes | None]:  # a row of inner chunks per task: small chunks (T = 1) cost little each
        return [encode_chunk(codec, chunk, fill) for chunk in block[row]]

    builder = ShardBuilder(writer, part.shard_key(task.tb, task.row, task.col), layout.inner_per_shard)
    try:
        for row, chunks in enumerate(pool.map(encoded, range(layout.per_side))):
            for col, data in enumerate(chunks):
                builder.add(row * layout.per_side + col, data)
        return builder.finish()
    except BaseException:
        builder.discard()
        raise


def _history_task(plan: Plan, layout: HistoryLayout, task: HistoryTask, abort_name: str) -> WriteResult | None:
    """One shard on a cluster worker, read back from and written to the output; None when the
    caller raised the abort event before it started."""
    from distributed import Event

    if Event(abort_name).is_set():
        return None
    with ThreadPoolExecutor(max_workers=2) as pool:
        stored = StoredLevels(plan, (plan.output,))
        return write_history_shard(plan, layout, task, stored, ObjectWriter(plan.output), pool, shard_buffers(plan, layout))


def write_history(
    plan: Plan,
    layout: HistoryLayout,
    tasks: list[HistoryTask],
    *,
    sources: tuple[Output, ...] | None = None,
    writer: ObjectWriter | None = None,
    client: Any = None,
    done: dict[str, WriteResult] | None = None,
    on_done: Callable[[HistoryTask, WriteResult], None] | None = None,
    progress: bool | None = None,
) -> WriteResult:
    """Write every task not in `done` (earlier runs' records); returns what all tasks wrote.

    Level 0 is read back from `sources` (default: the plan's output) and shards go to `writer`
    (default: the plan's output); with a dask.distributed `client` each task runs on the cluster.
    """
    finished = dict(done or {})
    todo = [t for t in tasks if t.name not in finished]
    size = task_bytes(plan, layout)
    with work_bar("history", size * len(tasks), len(tasks), enabled=progress) as bar:
        bar.advance(size * (len(tasks) - len(todo)))

        def record(task: HistoryTask, result: WriteResult) -> None:
            if on_done is not None:
                on_done(task, result)
            finished[task.name] = result
            bar.advance(size)
            bar.unit_done()

        if client is not None and todo:
            run_on_cluster(client, partial(_history_task, plan, layout), todo, record)
        elif todo:
            stored = StoredLevels(plan, sources or (plan.output,))
            out = writer or ObjectWriter(plan.output)
            blocks = shard_buffers(plan, layout)
            with ThreadPoolExecutor(max_workers=plan.workers) as pool:
                for task in todo:
                    record(task, write_history_shard(plan, layout, task, stored, out, pool, blocks))
    merged = WriteResult()
    for task in tasks:
        merged.merge(finished[task.name])
    return merged


def grown_blocks(layout: HistoryLayout, old_n: int, n_time: int) -> range:
    """The time blocks an append from old_n to n_time timesteps writes: the last existing block
    when it is not full, then the new ones."""
    return range(old_n // layout.time_cap, layout.time_blocks(n_time))


def stage_history(
    plan: Plan, layout: HistoryLayout, old_n: int, store: Output, writer: ObjectWriter, progress: bool | None
) -> dict[str, dict[str, int]]:
    """An append's history shards, read back from staging (new timesteps) and the store (old
    ones) and written under staging; returns their shard_bytes entries keyed by array path."""
    tasks = history_tasks(plan, layout, grown_blocks(layout, old_n, plan.n_time))
    result = write_history(plan, layout, tasks, sources=(writer.output, store), writer=writer, progress=progress)
    return {part.path: dict(result.shard_bytes.get(part.path, {})) for part in layout.every_part}


def history_keys(plan: Plan, layout: HistoryLayout, old_n: int) -> list[str]:
    """Every object an append from old_n timesteps may write for the history arrays (a dry run)."""
    tasks = history_tasks(plan, layout, grown_blocks(layout, old_n, plan.n_time))
    keys = []
    for own in layout.every_level:
        mine = [t for t in tasks if t.level == own.level]
        keys += [key for part in own.parts for key in (*(part.shard_key(t.tb, t.row, t.col) for t in mine), f"{part.path}/zarr.json")]
    return keys
