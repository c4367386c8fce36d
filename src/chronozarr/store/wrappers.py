"""Wrappers any store can be put in, as zarr-python's LoggingStore is: one that counts requests
(the reader's `store.stats`, for tests and benchmarks) and one that logs them. A wrapped store
answers every other attribute (capabilities, `root`, `deadline`, `close`) as the store inside.

A backend whose transport has events of its own (HTTP: retries, a range answered with the whole
object) reports them to `events`, which CountingStore points at its counters."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .interface import ObjectStore, ReadOnlyWrites

T = TypeVar("T")
LOG = logging.getLogger("chronozarr.store")


@dataclass
class RequestStats:
    """Requests by kind, for tests and benchmarks that count them."""

    get: int = 0
    range: int = 0
    suffix: int = 0
    head: int = 0
    missing: int = 0
    range_answered_whole: int = 0
    retries: int = 0
    bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, kind: str, nbytes: int = 0) -> None:
        with self._lock:
            setattr(self, kind, getattr(self, kind) + 1)
            self.bytes += nbytes

    @property
    def requests(self) -> int:
        return self.get + self.range + self.suffix + self.head

    def __call__(self) -> dict[str, int]:
        """A snapshot under the JS reader's names (`store.stats()` there), so `store.stats()` reads
        the same in both; `store.stats.get` and friends stay the live counters."""
        with self._lock:
            return {
                "requests": self.requests, "gets": self.get, "ranges": self.range, "suffixes": self.suffix,
                "heads": self.head, "bytes": self.bytes, "missing": self.missing, "retries": self.retries,
                "range_answered_whole": self.range_answered_whole,
            }

    def reset(self) -> None:
        with self._lock:
            for name in ("get", "range", "suffix", "head", "missing", "range_answered_whole", "retries", "bytes"):
                setattr(self, name, 0)


class StoreWrapper:
    """A store around another: what it does not define is the inner store's."""

    def __init__(self, inner: ObjectStore) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def innermost(self) -> Any:
        store: Any = self.inner
        while isinstance(store, StoreWrapper):
            store = store.inner
        return store


class CountingStore(StoreWrapper):
    """Counts every read by kind (`get`, `range`, `suffix`, `head` for size, `missing` for None)
    and the bytes returned, in `stats`; writes pass through uncounted."""

    def __init__(self, inner: ObjectStore) -> None:
        super().__init__(inner)
        self.stats = RequestStats()
        backend = self.innermost()
        if hasattr(backend, "events"):
            backend.events = self.stats

    def _counted(self, kind: str, data: T | None, nbytes: Callable[[T], int] = len) -> T | None:  # type: ignore[assignment]
        self.stats.count("missing" if data is None else kind, 0 if data is None else nbytes(data))
        return data

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        return self._counted("get", self.inner.get(key, max_bytes=max_bytes))

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self._counted("range", self.inner.get_range(key, start, length))

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._counted("suffix", self.inner.get_suffix(key, length))

    def size(self, key: str) -> int | None:
        return self._counted("head", self.inner.size(key), lambda _: 0)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if name == "get_into":  # a directory's read into a caller's buffer counts as a get
            def get_into(key: str, buffer: Callable[[int], np.ndarray]) -> memoryview | None:
                return self._counted("get", found(key, buffer))

            return get_into
        return found


class LoggingStore(StoreWrapper):
    """Logs every call (method, key, outcome, milliseconds) to the `chronozarr.store` logger at
    `level`, DEBUG unless told."""

    def __init__(self, inner: ObjectStore, level: int = logging.DEBUG) -> None:
        super().__init__(inner)
        self.level = level

    def _logged(self, method: str, key: str, call: Callable[[], T]) -> T:
        started = time.perf_counter()
        try:
            result = call()
        except Exception as exc:
            LOG.log(self.level, "%s %s failed after %.1f ms: %s", method, self.inner.describe(key), _ms(started), exc)
            raise
        outcome = "absent" if result is None else f"{len(result)} bytes" if isinstance(result, (bytes, memoryview)) else "done"
        LOG.log(self.level, "%s %s: %s in %.1f ms", method, self.inner.describe(key), outcome, _ms(started))
        return result

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        return self._logged("get", key, lambda: self.inner.get(key, max_bytes=max_bytes))

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self._logged(f"get_range {start}+{length}", key, lambda: self.inner.get_range(key, start, length))

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._logged(f"get_suffix {length}", key, lambda: self.inner.get_suffix(key, length))

    def size(self, key: str) -> int | None:
        return self._logged("size", key, lambda: self.inner.size(key))

    def list(self, prefix: str = "") -> Iterator[tuple[str, int | None]]:
        return iter(self._logged("list", prefix, lambda: list(self.inner.list(prefix))))

    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False) -> None:
        self._logged(f"put {len(data)} bytes", key, lambda: self.inner.put(key, data, atomic=atomic))

    def put_file(self, key: str, path: Path, *, keep: bool = False) -> None:
        self._logged(f"put_file {path}", key, lambda: self.inner.put_file(key, path, keep=keep))

    def delete(self, keys: str | Sequence[str]) -> None:
        self._logged("delete", keys if isinstance(keys, str) else f"{len(keys)} keys", lambda: self.inner.delete(keys))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def counted(store: ObjectStore) -> CountingStore:
    """The store as one that counts its requests: itself when it already does."""
    return store if isinstance(store, CountingStore) else CountingStore(store)


class FirstHolding(ReadOnlyWrites):
    """Several stores read as one, read-only: each key from the first store that holds it (an
    append reads what it staged before what the store held)."""

    local_root: Path | None = None
    writable = False
    parallel_puts = False

    def __init__(self, stores: Sequence[ObjectStore]) -> None:
        self.stores = tuple(stores)

    @property
    def listable(self) -> bool:
        return all(store.listable for store in self.stores)

    def _first(self, read: Callable[[ObjectStore], T | None]) -> T | None:
        for store in self.stores:
            found = read(store)
            if found is not None:
                return found
        return None

    def describe(self, key: str) -> str:
        return " or ".join(store.describe(key) for store in self.stores)

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        return self._first(lambda s: s.get(key, max_bytes=max_bytes))

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self._first(lambda s: s.get_range(key, start, length))

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._first(lambda s: s.get_suffix(key, length))

    def size(self, key: str) -> int | None:
        return self._first(lambda s: s.size(key))

    def list(self, prefix: str = "") -> Iterator[tuple[str, int | None]]:
        seen: dict[str, int | None] = {}
        for store in self.stores:
            for key, size in store.list(prefix):
                seen.setdefault(key, size)
        return iter(seen.items())
