"""Reading the input ahead of use, so a slow source (dask, Zarr, NetCDF) overlaps the encoding."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")


class ReadAhead(Generic[T]):
    """Calls read(t) for the timesteps of `order` on `depth` background threads, at most `depth` ahead.

    get(t) must follow the order; a timestep asked for out of order is read on the spot.
    """

    def __init__(self, read: Callable[[int], T], order: Sequence[int], depth: int = 2) -> None:
        self._read = read
        self._order = deque(order)
        self._pending: deque[tuple[int, Future[T]]] = deque()
        self._pool = ThreadPoolExecutor(max_workers=max(1, depth), thread_name_prefix="chronozarr-readahead")
        self._depth = depth
        self._fill()

    def _fill(self) -> None:
        while self._order and len(self._pending) < self._depth:
            t = self._order.popleft()
            self._pending.append((t, self._pool.submit(self._read, t)))

    def get(self, t: int) -> T:
        if self._pending and self._pending[0][0] == t:
            _, future = self._pending.popleft()
            self._fill()
            return future.result()
        return self._read(t)

    def close(self) -> None:
        for _, future in self._pending:
            future.cancel()
        self._pool.shutdown(wait=True)

    def __enter__(self) -> "ReadAhead[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
