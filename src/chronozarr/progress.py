"""Progress of long work: a bar on a terminal; elsewhere (a log, CI, a pipe) one line when each
phase starts and one when it ends, so a log still shows where the time went; nothing when asked
for no progress."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


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


class WorkBar:
    """Advances a bar counted in input bytes and finished work units."""

    def __init__(self, advance: Callable[[int], None], unit_done: Callable[[], None]) -> None:
        self.advance = advance
        self.unit_done = unit_done


@contextmanager
def work_bar(label: str, total_bytes: int, units: int, enabled: bool | None = None) -> Iterator[WorkBar]:
    """A bar for an encode: units done of all, MB done, MB/s and the time left; a line per phase
    when stderr is not a terminal, nothing when `enabled` is False."""
    mode = _drawn(enabled)
    if not mode:
        with _without_bar(mode is None, label, f"{units} tasks, {total_bytes / 1e6:.1f} MB"):
            yield WorkBar(_ignore, lambda: None)
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    columns = (
        TextColumn("{task.description}"), BarColumn(), TextColumn("tasks {task.fields[done]}/{task.fields[units]}"),
        DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
    )
    with Progress(*columns, transient=False) as bar:
        task = bar.add_task(label, total=total_bytes, done=0, units=units)
        count = [0]

        def unit_done() -> None:
            count[0] += 1
            bar.update(task, done=count[0])

        def advance(n: int = 1) -> None:
            bar.advance(task, n)

        yield WorkBar(advance, unit_done)
