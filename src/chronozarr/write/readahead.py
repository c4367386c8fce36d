"""Reading the input ahead of use, so a slow source (dask, Zarr, NetCDF) overlaps the encoding."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

K = TypeVar("K")
T = TypeVar("T")


class ReadAhead(Generic[K, T]):
    """Calls read(key) for the keys of `order` on one background thread, at most `depth` ahead.

    One thread is enough to keep the reads ahead of the compression; reads on several threads
    at once only hold more input in memory. get(key) must follow the order; a key asked for out
    of order is read on the spot.
    """

    def __init__(self, read: Callable[[K], T], order: Sequence[K], depth: int = 2) -> None:
        self._read = read
        self._order = deque(order)
        self._pending: deque[tuple[K, Future[T]]] = deque()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chronozarr-readahead")
        self._depth = depth
        self._fill()

    def _fill(self) -> None:
        while self._order and len(self._pending) < self._depth:
            t = self._order.popleft()
            self._pending.append((t, self._pool.submit(self._read, t)))

    def get(self, t: K) -> T:
        if self._pending and self._pending[0][0] == t:
            _, future = self._pending.popleft()
            self._fill()
            return future.result()
        return self._read(t)

    def close(self) -> None:
        for _, future in self._pending:
            future.cancel()
        self._pool.shutdown(wait=True)

    def __enter__(self) -> ReadAhead[K, T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
