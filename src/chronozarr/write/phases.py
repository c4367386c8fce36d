"""Running an encode's work units, phase after phase, on this machine or on a dask cluster.

Phase p + 1 reads back the top level phase p wrote, so a phase starts when the one below it has
finished. Within a phase units are independent: locally they run one after another through one
walk (reads ahead and compression overlap across units); with a dask.distributed client they run
as cluster tasks that write their own objects. Finished units are recorded in the journal, and a
resumed run skips them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from ..progress import StepCounts, WorkBar, work_bar
from .distributed import active_client, run_on_cluster
from .objects import ObjectWriter
from .plan import Plan
from .pyramid_planes import Planes
from .readback import StoredLevels, WindowPlanes
from .resume import ResumeLog
from .series import Series
from .units import Unit, phases, step_bytes, time_windows, units
from .walk import PyramidOf, WriteResult, write_units


@dataclass
class EncodePyramids:
    """What a unit's step reads: its block's window at the base level, from the input for phase 0,
    read back from the level below for the phases above it (the walk builds the levels above)."""

    plan: Plan
    series: Series
    _stored: StoredLevels | None = field(default=None, repr=False, compare=False)

    def __call__(self, unit: Unit, t: int) -> list[Planes]:
        return [Planes(*self.window(unit, t))]

    def window(self, unit: Unit, t: int) -> WindowPlanes:
        level = self.plan.levels[unit.phase.base]
        rows, cols = unit.block.window(level)
        if unit.phase.first == 0:
            return self.series.read_window(t, rows, cols)
        if self._stored is None:
            self._stored = StoredLevels(self.plan, (self.plan.output,))
        return self._stored.window(t, level, rows, cols)

    def __getstate__(self) -> dict[str, Any]:
        return {"plan": self.plan, "series": self.series, "_stored": None}


@dataclass(frozen=True)
class CountedSteps:
    """A bar's StepCounts from the steps of phase 0 (the phases above read the store back): a
    block of input timestep t - `offset` read and written, or a whole unit done elsewhere."""

    plan: Plan
    bar: WorkBar
    offset: int = 0  # an append's timesteps follow the store's

    def _pixels(self, unit: Unit, t: int) -> int:
        if unit.phase.first != 0 or not unit.start <= t < unit.stop or t < self.offset:
            return 0
        rows, cols = unit.block.window(self.plan.levels[0])
        return (rows.stop - rows.start) * (cols.stop - cols.start)

    def pyramids(self, pyramid_of: PyramidOf) -> PyramidOf:
        """`pyramid_of` counting what it read."""
        def counted(unit: Unit, t: int) -> list[Planes]:
            got = pyramid_of(unit, t)
            if pixels := self._pixels(unit, t):
                self.bar.read(t - self.offset, pixels)
            return got

        return counted

    def wrote(self, unit: Unit, t: int) -> None:
        if pixels := self._pixels(unit, t):
            self.bar.wrote(t - self.offset, pixels)

    def unit(self, unit: Unit) -> None:
        """A unit done by a cluster task or an earlier run: every step read and written."""
        for t in range(unit.start, unit.stop):
            if pixels := self._pixels(unit, t):
                self.bar.read(t - self.offset, pixels)
                self.bar.wrote(t - self.offset, pixels)


def all_units(plan: Plan, span: int, window: int | None = None) -> list[list[Unit]]:
    """Every unit of the encode, phase by phase."""
    windows = time_windows(plan, window)
    return [units(plan, phase, span, windows) for phase in phases(len(plan.levels), span)]


def write_phases(
    plan: Plan,
    series: Series,
    span: int,
    journal: ResumeLog | None,
    *,
    progress: bool | None,
    read_ahead: int = 2,
    step: Callable[[], None] | None = None,
    counts: StepCounts | None = None,
) -> WriteResult:
    """Write every unit not yet recorded as done; returns what all units (earlier runs' included)
    wrote. `step` runs after every object written here (the crash-test hook); `counts` are shown
    beside the bytes (a composite's scenes read and periods written)."""
    client = active_client(series.data)
    per_phase = all_units(plan, span, window=_cluster_window(plan, client))
    done = journal.done_units() if journal is not None else {}
    flat = [u for phase_units in per_phase for u in phase_units]
    total = sum(step_bytes(plan, u) * (u.stop - u.start) for u in flat)
    pyramids = EncodePyramids(plan, series)
    level0 = plan.levels[0]
    with work_bar("encoding", total, len(flat), enabled=progress, counts=counts, area=level0.height * level0.width) as bar:
        counted = CountedSteps(plan, bar)
        for unit in flat:
            if unit.name in done:
                bar.advance(step_bytes(plan, unit) * (unit.stop - unit.start))
                bar.unit_done()
                counted.unit(unit)

        def finished(unit: Unit, result: WriteResult) -> None:
            if journal is not None:
                journal.record_unit(unit, result)
            done[unit.name] = result
            bar.unit_done()

        def finished_on_cluster(unit: Unit, result: WriteResult) -> None:
            finished(unit, result)
            bar.advance(step_bytes(plan, unit) * (unit.stop - unit.start))
            counted.unit(unit)

        for phase_units in per_phase:
            todo = [u for u in phase_units if u.name not in done]
            if not todo:
                continue
            if client is not None:
                run_on_cluster(client, partial(unit_task, plan, pyramids), todo, finished_on_cluster)
            else:
                writer = ObjectWriter(plan.output, step=step)
                write_units(plan, todo, counted.pyramids(pyramids), writer, progress=bar.advance, on_done=finished,
                            read_ahead=read_ahead, on_step=counted.wrote)
    merged = WriteResult()
    for unit in flat:
        merged.merge(done[unit.name])
    return merged


def _cluster_window(plan: Plan, client: Any) -> int | None:
    """Timesteps per unit on a cluster: about two windows per worker when the axis is long enough
    (sharded stores use whole time shards anyway); locally the whole axis."""
    if client is None or plan.sharded:
        return None
    workers = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
    return max(plan.schedule.anchor_interval, -(-plan.n_time // (2 * workers)))


def unit_task(plan: Plan, pyramids: EncodePyramids, unit: Unit, abort_name: str) -> WriteResult | None:
    """Write one unit on a worker; None when the caller raised the abort event before it ended.

    The input is computed with dask's synchronous scheduler: a task must not compute through the
    cluster, it holds the worker thread that computation would wait for.
    """
    import dask
    from distributed import Event

    abort = Event(abort_name)
    finished: list[WriteResult] = []
    local = replace(pyramids, series=replace(pyramids.series, scheduler="sync"))
    with dask.config.set(scheduler="sync"):
        write_units(
            plan, [unit], local, ObjectWriter(plan.output), should_stop=abort.is_set,
            on_done=lambda _, result: finished.append(result),
        )
    return finished[0] if finished else None
