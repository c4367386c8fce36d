"""Progress bars for long work: shown on a terminal, silent otherwise."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _ignore(n: int = 1) -> None:
    """The advance of a bar that is not drawn."""


@contextmanager
def progress_bar(label: str, total: int, enabled: bool | None = None) -> Iterator[Callable[[int], None]]:
    """Yield `advance(n)`; draws a rich bar when enabled (default: stderr is a terminal)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
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
    """A bar for an encode: units done of all, MB done, MB/s and the time left; silent when
    stderr is not a terminal (or `enabled` is False)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
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
