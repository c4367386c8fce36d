"""The history array (docs/format-history.md) built from level 0 as stored.

A task is one shard: a time block of one square of S x S level-0 pixels. It reads the block's
finished level-0 chunks back (true values: star-delta residuals added to their anchor), cuts the
(T, band, S, S) block into inner chunks of (T, band, p, p), compresses them on a thread pool and
stores them as one shard in position order, so its bytes never depend on thread timing. Memory is
one shard's values. Tasks are independent: locally they run one after another, on a
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

from ..format.history import HISTORY_PATH, HistoryLayout
from ..progress import work_bar
from .chunks import encode_chunk
from .distributed import run_on_cluster
from .objects import ObjectWriter, ShardBuilder
from .plan import Plan
from .readback import StoredLevels
from .walk import WriteResult

if TYPE_CHECKING:
    from .output import Output


@dataclass(frozen=True)
class HistoryTask:
    """One history shard: time block `tb` of the S x S square at shard (row, col)."""

    tb: int
    row: int
    col: int

    @property
    def name(self) -> str:
        """Stable id for resume records (never equal to an encode unit's, which start with L)."""
        return f"H{self.tb}_S{self.row}-{self.col}"


def history_tasks(plan: Plan, layout: HistoryLayout, blocks: Iterable[int] | None = None) -> list[HistoryTask]:
    """The shards of `blocks` (default: every time block), time block first, then row-major."""
    level0 = plan.levels[0]
    wanted = None if blocks is None else set(blocks)
    return [
        HistoryTask(tb, r, c)
        for tb, r, c in layout.shards(plan.n_time, level0.height, level0.width)
        if wanted is None or tb in wanted
    ]


def task_bytes(plan: Plan, layout: HistoryLayout) -> int:
    """Raw bytes one task reads back (progress)."""
    return layout.time_cap * plan.n_band * layout.shard**2 * np.dtype(plan.dtype).itemsize


def shard_values(plan: Plan, layout: HistoryLayout, task: HistoryTask, stored: StoredLevels) -> np.ndarray:
    """The (T, band, S, S) true values of a task's shard; fill past n_time and past the array."""
    level0 = plan.levels[0]
    s = layout.shard
    rows = slice(task.row * s, min((task.row + 1) * s, level0.height))
    cols = slice(task.col * s, min((task.col + 1) * s, level0.width))
    block = np.full(layout.shard_shape, plan.fill, dtype=np.dtype(plan.dtype))
    for i, t in enumerate(layout.block_steps(task.tb, plan.n_time)):
        block[i, :, : rows.stop - rows.start, : cols.stop - cols.start] = stored.window(t, level0, rows, cols)[0]
    return block


def write_history_shard(
    plan: Plan, layout: HistoryLayout, task: HistoryTask, stored: StoredLevels, writer: ObjectWriter, pool: ThreadPoolExecutor
) -> WriteResult:
    """Read, cut, compress and store one shard; returns what it wrote (its length in shard_bytes)."""
    block = shard_values(plan, layout, task, stored)

    def encoded(position: int) -> bytes | None:
        rows, cols = layout.inner_window(position)
        return encode_chunk(plan.codec, np.ascontiguousarray(block[:, :, rows, cols]), plan.fill)

    builder = ShardBuilder(writer, layout.shard_key(task.tb, task.row, task.col), layout.inner_per_shard)
    try:
        for position, data in enumerate(pool.map(encoded, range(layout.inner_per_shard))):
            builder.add(position, data)
        size = builder.finish()
    except BaseException:
        builder.discard()
        raise
    result = WriteResult(shard_bytes={HISTORY_PATH: {}})
    if size is not None:
        result.objects, result.nbytes = 1, size
        result.shard_bytes[HISTORY_PATH][layout.shard_id(task.tb, task.row, task.col)] = size
    return result


def _history_task(plan: Plan, layout: HistoryLayout, task: HistoryTask, abort_name: str) -> WriteResult | None:
    """One shard on a cluster worker, read back from and written to the output; None when the
    caller raised the abort event before it started."""
    from distributed import Event

    if Event(abort_name).is_set():
        return None
    with ThreadPoolExecutor(max_workers=2) as pool:
        return write_history_shard(plan, layout, task, StoredLevels(plan, (plan.output,)), ObjectWriter(plan.output), pool)


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
            with ThreadPoolExecutor(max_workers=plan.workers) as pool:
                for task in todo:
                    record(task, write_history_shard(plan, layout, task, stored, out, pool))
    merged = WriteResult()
    for task in tasks:
        merged.merge(finished[task.name])
    return merged


def grown_blocks(layout: HistoryLayout, old_n: int, n_time: int) -> range:
    """The time blocks an append from old_n to n_time timesteps writes: the last existing block
    when it is not full, then the new ones."""
    return range(old_n // layout.time_cap, layout.time_blocks(n_time))


def stage_history(plan: Plan, layout: HistoryLayout, old_n: int, store: Output, writer: ObjectWriter, progress: bool | None) -> dict[str, int]:
    """An append's history shards, read back from staging (new timesteps) and the store (old
    ones) and written under staging; returns their shard_bytes entries."""
    tasks = history_tasks(plan, layout, grown_blocks(layout, old_n, plan.n_time))
    result = write_history(plan, layout, tasks, sources=(writer.output, store), writer=writer, progress=progress)
    return result.shard_bytes.get(HISTORY_PATH, {})


def history_keys(plan: Plan, layout: HistoryLayout, old_n: int) -> list[str]:
    """Every object an append from old_n timesteps may write for the history array (a dry run)."""
    tasks = history_tasks(plan, layout, grown_blocks(layout, old_n, plan.n_time))
    return [layout.shard_key(t.tb, t.row, t.col) for t in tasks] + [f"{layout.path}/zarr.json"]
