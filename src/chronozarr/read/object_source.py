"""Where a store's objects come from: a directory, or an HTTP(S) base URL (http_source).

Both answer the same four questions (whole object, byte range, last bytes, size) and return None
for a key that is not there, which readers decode as fill. In a directory only regular files are
objects; the rules of HTTP hosting are in http_source.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from io import BufferedReader
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from ..buckets import is_bucket_url
from ..errors import StoreError

DEFAULT_MAX_OBJECT_BYTES = 4 * 2**30
ReadT = TypeVar("ReadT", bytes, memoryview)


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


class ObjectSource(Protocol):
    stats: RequestStats

    def describe(self, key: str) -> str: ...
    def get(self, key: str) -> bytes | None: ...
    def get_range(self, key: str, start: int, length: int) -> bytes | None: ...
    def get_suffix(self, key: str, length: int) -> bytes | None: ...
    def size(self, key: str) -> int | None: ...


class LocalSource:
    """A store directory on disk."""

    def __init__(self, root: str | os.PathLike[str], max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> None:
        self.root = Path(root)
        self.max_object_bytes = max_object_bytes
        self.stats = RequestStats()

    def describe(self, key: str) -> str:
        return str(self.root / key)

    def _path(self, key: str) -> Path:
        if key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"refusing key outside the store: {key!r}")
        return self.root / key

    def _read(self, key: str, kind: str, read: Callable[[BufferedReader, int], ReadT]) -> ReadT | None:
        """Open the key's file and read from it; None (counted) when it is not there.

        Only a regular file is an object. The file is opened without blocking and checked before
        a byte is read: a FIFO would block the read forever and a device such as /dev/zero (or a
        link to one) would feed it without end.
        """
        try:
            fd = os.open(self._path(key), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            self.stats.count("missing")
            return None
        except OSError as exc:
            raise self.object_error(key, exc) from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise self._special_error(key, info.st_mode)
        with open(fd, "rb", closefd=True) as handle:
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            try:
                data = read(handle, info.st_size)
            except OSError as exc:
                raise self.object_error(key, exc) from None
        self.stats.count(kind, len(data))
        return data

    def object_error(self, key: str, exc: OSError) -> StoreError:
        """The one translation of an OS error on an object into our error naming the object."""
        if exc.errno == errno.EISDIR:
            return self._special_error(key, stat.S_IFDIR)
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO on some systems: nothing to open
            return self._special_error(key, stat.S_IFSOCK)
        if exc.errno == errno.ENOTDIR:  # not a missing object: the objects under that file are lost
            return StoreError(
                f"{self.describe(key)} cannot be read: a directory above it is a file, not a directory "
                "(left by a copy or sync that went wrong?): remove it and copy the objects under it again"
            )
        return StoreError(f"{self.describe(key)} cannot be read ({exc.strerror or exc}): check its permissions")

    def _refuse_special(self, key: str, mode: int) -> None:
        if not stat.S_ISREG(mode):
            raise self._special_error(key, mode)

    def _special_error(self, key: str, mode: int) -> StoreError:
        if stat.S_ISDIR(mode):
            return StoreError(
                f"{self.describe(key)} is a directory where the store has an object "
                "(left by a copy or sync that went wrong?): remove it and copy the object again"
            )
        return StoreError(
            f"{self.describe(key)} is not a regular file (a FIFO, socket or device, or a link to one): "
            "store objects must be regular files; replace it with the object's bytes"
        )

    def get(self, key: str) -> bytes | None:
        def whole(f: BufferedReader, size: int) -> bytes:
            check_object_size(size, self.max_object_bytes, self.describe(key))
            return f.read(size)

        return self._read(key, "get", whole)

    def get_into(self, key: str, buffer: Callable[[int], np.ndarray]) -> memoryview | None:
        """The whole object read into `buffer(size)` (a uint8 array of at least `size` bytes),
        as a view of it: a reader reusing one buffer per thread reads without a fresh allocation,
        whose page faults cost as much as the read itself. None when the key is not there."""

        def whole(f: BufferedReader, size: int) -> memoryview:
            check_object_size(size, self.max_object_bytes, self.describe(key))
            view = memoryview(buffer(size))[:size]
            return view[: f.readinto(view)]

        return self._read(key, "get", whole)

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        def part(f: BufferedReader, size: int) -> bytes:
            if start + length > size:
                raise StoreError(f"{self.describe(key)} has {size} bytes, fewer than the range {start}-{start + length - 1}")
            f.seek(start)
            return f.read(length)

        return self._read(key, "range", part)

    def get_suffix(self, key: str, length: int) -> bytes | None:
        def tail(f: BufferedReader, size: int) -> bytes:
            if size < length:
                raise StoreError(f"{self.describe(key)} has {size} bytes, fewer than the {length} asked for")
            f.seek(size - length)
            return f.read(length)

        return self._read(key, "suffix", tail)

    def size(self, key: str) -> int | None:
        try:
            info = self._path(key).stat()
        except FileNotFoundError:
            self.stats.count("missing")
            return None
        except OSError as exc:
            raise self.object_error(key, exc) from None
        self._refuse_special(key, info.st_mode)
        self.stats.count("head")
        return info.st_size


def check_object_size(size: int, limit: int, where: str) -> None:
    """No object is read past the limit on one object, whatever it or its server claims."""
    if size > limit:
        raise StoreError(f"{where} is {size} bytes, more than the {limit}-byte limit on one object")


def is_remote(location: object) -> bool:
    """An http(s) or object-store URL, as opposed to a directory."""
    text = os.fspath(location) if isinstance(location, (str, os.PathLike)) else ""
    return isinstance(text, str) and (text.startswith(("http://", "https://")) or is_bucket_url(text))


def not_a_directory(path: str | os.PathLike[str]) -> str:
    """Why a local path that is not a directory holds no store: a file there is named as one."""
    if os.path.isfile(path):
        return "it is a file, not a store (a store is a directory with a zarr.json at its top)"
    return "the directory does not exist"


def open_object_source(location: str | os.PathLike[str], **options: Any) -> ObjectSource:
    """LocalSource for a path, HttpSource for an http(s) URL, BucketSource for s3://, gs://, az://."""
    text = os.fspath(location)
    if text.startswith(("http://", "https://")):
        from .http_source import HttpSource

        return HttpSource(text, **options)
    if is_bucket_url(text):
        from .bucket_source import BucketSource

        return BucketSource(text, **options)
    if "://" in text and not text.startswith("file://"):
        raise StoreError(f"{text!r}: unsupported URL scheme; a store is a directory, an http(s):// URL or s3://, gs://, az://")
    path = Path(text[len("file://") :] if text.startswith("file://") else text)
    local_options = {k: v for k, v in options.items() if k == "max_object_bytes"}
    return LocalSource(path, **local_options)
