"""One deadline for each call a user makes on a store, shared by every request it sends.

A timeout per wait bounds one request, but a read of many objects from a host that stalls would
wait that long for each of them. The call sets a deadline in its context; every request, retry and
backoff of the call, on whichever reading thread, stops when it runs out.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from typing import Any, TypeVar

_DEADLINE: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar("chronozarr_deadline", default=None)

T = TypeVar("T")


@contextmanager
def call_deadline(seconds: float | None) -> Iterator[None]:
    """Run the block under a deadline `seconds` from now; a deadline already running (an outer
    call's) is kept, and None sets none."""
    if seconds is None or _DEADLINE.get() is not None:
        yield
        return
    token = _DEADLINE.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left() -> tuple[float, float] | None:
    """(seconds left, seconds the call was given) under a deadline, else None."""
    running = _DEADLINE.get()
    if running is None:
        return None
    end, given = running
    return end - time.monotonic(), given


def submit(pool: Executor, fn: Callable[..., T], *args: Any) -> Future[T]:
    """pool.submit that runs `fn` under the caller's deadline (threads do not inherit context)."""
    return pool.submit(contextvars.copy_context().run, fn, *args)
