"""Progress of long work: a bar on a terminal; elsewhere (a log, CI, a pipe) one line when each
phase starts and one when it ends, so a log still shows where the time went; nothing when asked
for no progress."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


def _ignore(n: int = 1) -> None:
    """The advance of a bar that is not drawn."""


@contextmanager
def _without_bar(lines: bool, label: str, what: str) -> Iterator[None]:
    """With `lines`, a line on stderr as the phase starts and one as it ends (none on failure: the
    error says it); else nothing."""
    if not lines:
        yield
        return
    started = time.perf_counter()
    print(f"{label}: {what} ...", file=sys.stderr, flush=True)
    yield
    print(f"{label}: done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)


def _drawn(enabled: bool | None) -> bool | None:
    """True: a bar; None: lines (the default off a terminal); False: nothing."""
    if enabled is None:
        return True if sys.stderr.isatty() else None
    return enabled


@contextmanager
def progress_bar(label: str, total: int, enabled: bool | None = None) -> Iterator[Callable[[int], None]]:
    """Yield `advance(n)`; draws a rich bar when enabled (default: when stderr is a terminal, and
    a line per phase otherwise)."""
    mode = _drawn(enabled)
    if not mode:
        with _without_bar(mode is None, label, f"{total} steps"):
            yield _ignore
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=False) as bar:
        task = bar.add_task(label, total=total)

        def advance(n: int = 1) -> None:
            bar.advance(task, n)

        yield advance


@dataclass(frozen=True)
class StepCounts:
    """What a bar counts beside bytes and tasks, per timestep of the input: a composite's scenes
    read (`per_step[t]` for period t) and periods written. A block of `pixels` of an area counts
    that share of a timestep, so the counts move block by block and end at the totals."""

    per_step: tuple[int, ...]
    read: str = "scenes read"
    written: str = "periods written"

    def totals(self) -> tuple[int, int]:
        return sum(self.per_step), len(self.per_step)


class _Tally:
    """Running StepCounts, as whole-area equivalents (integers: no rounding drift)."""

    def __init__(self, counts: StepCounts, area: int) -> None:
        self.counts, self.area = counts, max(area, 1)
        self._read = self._written = 0
        self._lock = threading.Lock()

    def read(self, t: int, pixels: int) -> None:
        with self._lock:
            self._read += self.counts.per_step[t] * pixels

    def wrote(self, pixels: int) -> bool:
        """Count a timestep's block written; True when a whole timestep's worth more is written."""
        with self._lock:
            before = self._written // self.area
            self._written += pixels
            return self._written // self.area > before

    def text(self) -> str:
        read, written = self.counts.totals()
        return (f"{self.counts.read} {self._read // self.area}/{read}, "
                f"{self.counts.written} {self._written // self.area}/{written}")


class WorkBar:
    """Advances a bar counted in input bytes and finished work units (and StepCounts, when given:
    `read(t, pixels)` and `wrote(t, pixels)` of a block of timestep t)."""

    def __init__(self, advance: Callable[[int], None], unit_done: Callable[[], None], tally: _Tally | None = None,
                 shown: Callable[[], None] = lambda: None, line: Callable[[str], None] | None = None) -> None:
        self.advance = advance
        self.unit_done = unit_done
        self._tally, self._shown, self._line = tally, shown, line

    def read(self, t: int, pixels: int) -> None:
        if self._tally is not None:
            self._tally.read(t, pixels)
            self._shown()

    def wrote(self, t: int, pixels: int) -> None:
        if self._tally is not None:
            whole = self._tally.wrote(pixels)
            self._shown()
            if whole and self._line is not None:
                self._line(self._tally.text())


@contextmanager
def work_bar(label: str, total_bytes: int, units: int, enabled: bool | None = None,
             counts: StepCounts | None = None, area: int = 0) -> Iterator[WorkBar]:
    """A bar for an encode: units done of all, MB done, MB/s and the time left, and `counts`
    (of timesteps of `area` pixels) when given; off a terminal a line per phase, and one per
    timestep's worth of `counts` written; nothing when `enabled` is False."""
    mode = _drawn(enabled)
    tally = _Tally(counts, area) if counts is not None else None
    if not mode:
        def line(text: str) -> None:
            print(f"{label}: {text}", file=sys.stderr, flush=True)

        with _without_bar(mode is None, label, f"{units} tasks, {total_bytes / 1e6:.1f} MB"):
            yield WorkBar(_ignore, lambda: None, tally, line=line if mode is None else None)
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    columns = (
        TextColumn("{task.description}"), BarColumn(), TextColumn("tasks {task.fields[done]}/{task.fields[units]}"),
        *([TextColumn("{task.fields[counts]}")] if tally is not None else []),
        DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
    )
    with Progress(*columns, transient=False) as bar:
        task = bar.add_task(label, total=total_bytes, done=0, units=units, counts=tally.text() if tally else "")
        count = [0]

        def unit_done() -> None:
            count[0] += 1
            bar.update(task, done=count[0])

        def advance(n: int = 1) -> None:
            bar.advance(task, n)

        def shown() -> None:
            if tally is not None:
                bar.update(task, counts=tally.text())

        yield WorkBar(advance, unit_done, tally, shown)
