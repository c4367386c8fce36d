"""Where a store's objects go: a local directory, or a prefix in an object store, written through
the one object-store interface (chronozarr.store) with the writer's own conventions on top: its
scratch entries, where shards are spooled, how a staged object lands on its key.

The writer sees only keys and bytes, so one walk writes a directory or a bucket with the same
bytes in the same order. An output is small and picklable: cluster tasks receive it (its location
and options, never a client) and write their objects straight to it; each process opens its own
store. Shards are built in a local spool file first and handed over whole (`put_file`), which on a
directory is one rename: an object is either absent or complete.
"""

from __future__ import annotations

import os
import tempfile
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..buckets import parse_bucket_url
from ..errors import OutputError, StoreError
from ..store import ObjectStore
from ..store.bucket import BucketStore
from ..store.directory import DirectoryStore, write_error
from ..store.open import BUCKET, locate

SCRATCH = ".chronozarr-encode"  # the writer's own entries in an output, removed when it completes
BUCKET_OPTIONS = ("endpoint", "region", "anonymous")

__all__ = ["BUCKET_OPTIONS", "SCRATCH", "Output", "open_output", "write_error"]

_STORES: dict[Output, ObjectStore] = {}
_STORES_LOCK = threading.Lock()


@dataclass(frozen=True)
class Output:
    """A directory (`location` a Path) or an object-store prefix (`location` its URL, with the
    bucket options), and the writer's operations on it."""

    location: Path | str
    endpoint: str | None = None
    region: str | None = None
    anonymous: bool = False
    spool_name: str = f"{SCRATCH}/spool"  # below a directory output: a finished shard moves in by rename

    @property
    def store(self) -> ObjectStore:
        """This process's store for the output, opened once."""
        with _STORES_LOCK:
            found = _STORES.get(self)
            if found is None:
                found = _STORES[self] = self._open()
            return found

    def _open(self) -> ObjectStore:
        if isinstance(self.location, Path):
            return DirectoryStore(self.location)
        return BucketStore(self.location, endpoint=self.endpoint, region=self.region, anonymous=self.anonymous)

    @property
    def local_root(self) -> Path | None:
        """The directory whose files are the objects, or None (an object store)."""
        return self.location if isinstance(self.location, Path) else None

    @property
    def parallel_puts(self) -> bool:
        return self.store.parallel_puts

    def describe(self) -> str:
        return str(self.location)

    def path(self, key: str) -> Path:
        """The file of `key` in a directory output."""
        if self.local_root is None:
            raise OutputError(f"{self.location} is not a directory: its objects have no local path")
        return self.local_root / key

    def put(self, key: str, data: bytes | memoryview) -> None:
        self.store.put(key, data)

    def put_atomic(self, key: str, data: bytes) -> None:
        """Readers never see half of it (a directory writes a temporary name and renames)."""
        self.store.put(key, data, atomic=True)

    def put_file(self, key: str, path: Path) -> None:
        self.store.put_file(key, path)

    def get(self, key: str) -> bytes | None:
        return None if self._is_directory(key) else self.store.get(key)

    def get_range(self, key: str, start: int, length: int) -> bytes:
        """Bytes of an object the writer wrote: one that is gone is an error, not fill."""
        data = self.store.get_range(key, start, length)
        if data is None:
            raise StoreError(f"{self.store.describe(key)} vanished while it was being read")
        return data

    def size(self, key: str) -> int | None:
        return None if self._is_directory(key) else self.store.size(key)

    def _is_directory(self, key: str) -> bool:
        """A key that is a directory of a directory output names objects below it, not one object
        (the writer asks whether its staging area is there as an object)."""
        return self.local_root is not None and (self.local_root / key).is_dir()

    def keys(self, prefix: str = "") -> Iterator[str]:
        return (key for key, _ in self.store.list(prefix))

    def delete_prefix(self, prefix: str) -> None:
        self.store.delete_prefix(prefix)

    def promote(self, staged: str, key: str) -> bool:
        """Land a staged object on its key (store.move: a rename, or a copy that keeps the staged
        one until the staging area is removed); False when nothing is staged there."""
        return self.store.move(staged, key)

    def child(self, prefix: str) -> Output:
        if isinstance(self.location, Path):
            return Output(self.location / prefix, spool_name=".chronozarr-spool")
        return Output(f"{self.location}/{prefix}", self.endpoint, self.region, self.anonymous)

    def spool_file(self) -> Path:
        """A new local file name for a shard being built: inside a directory output (the directory
        is created), else in the machine's temporary directory."""
        if self.local_root is None:
            return Path(tempfile.gettempdir()) / f"chronozarr-{uuid.uuid4().hex}.part"
        spool = self.local_root / self.spool_name
        try:
            spool.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_error(exc, str(spool)) from None
        return spool / f"{uuid.uuid4().hex}.part"

    def is_empty(self) -> bool:
        """Nothing there: a directory that is missing or holds no entry (an empty subdirectory
        counts), an object-store prefix with no object."""
        if self.local_root is not None:
            return not self.local_root.exists() or not any(self.local_root.iterdir())
        return next(iter(self.store.list("")), None) is None


def open_output(target: str | os.PathLike[str], options: Mapping[str, Any] | None = None) -> Output:
    """The output a path or URL names; `options` (endpoint, region, anonymous) are for buckets.
    A URL is never taken as a local path: an unsupported scheme is an error naming the ones
    chronozarr writes."""
    found = locate(target)
    text = found.text
    if found.kind == BUCKET:
        unknown = sorted(set(options or {}) - set(BUCKET_OPTIONS))
        if unknown:
            raise OutputError(f"storage options {', '.join(unknown)} are not known for {text}: give {', '.join(BUCKET_OPTIONS)}")
        return Output(parse_bucket_url(text).url, **dict(options or {}))
    if found.scheme is not None:  # http(s) is read-only, and a file:// URL is not taken for a path here
        raise OutputError(
            f"cannot write to {text!r}: {found.scheme}:// is not an output chronozarr writes; "
            "give a local directory or an s3://, gs:// or az:// prefix"
        )
    if options:
        raise OutputError(f"storage options ({', '.join(sorted(options))}) are for s3://, gs:// and az:// outputs, not {text!r}")
    return Output(Path(text))
