"""Where a store's objects go: a local directory, or a prefix in an object store.

The writer sees only keys and bytes, so one walk writes a directory or a bucket with the same
bytes in the same order. An output is small and picklable: cluster tasks receive it and write
their objects straight to it. Shards are built in a local spool file first and handed over
whole (`put_file`), which on a directory is one rename: an object is either absent or complete.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from ..buckets import Bucket, is_bucket_url, parse_bucket_url
from ..errors import OutputError

SCRATCH = ".chronozarr-encode"  # the writer's own entries in an output, removed when it completes


class Output(Protocol):
    """The object operations the writer, resume and read-back need."""

    def put(self, key: str, data: bytes | memoryview) -> None: ...

    def put_atomic(self, key: str, data: bytes) -> None: ...

    def put_file(self, key: str, path: Path) -> None: ...

    def get(self, key: str) -> bytes | None: ...

    def get_range(self, key: str, start: int, length: int) -> bytes: ...

    def size(self, key: str) -> int | None: ...

    def keys(self, prefix: str = "") -> Iterator[str]: ...

    def delete_prefix(self, prefix: str) -> None: ...

    def promote(self, staged: str, key: str) -> bool: ...

    def child(self, prefix: str) -> Output: ...

    def spool_file(self) -> Path: ...

    def describe(self) -> str: ...

    @property
    def location(self) -> Path | str: ...

    def is_empty(self) -> bool: ...

    @property
    def parallel_puts(self) -> bool: ...


def write_error(exc: OSError, where: str) -> OutputError:
    """Our error for an OSError while writing: the path and what to do (disk full, read-only, ...)."""
    again = "then run the same command again (encode and convert: with --resume) to finish the work"
    fix = {
        errno.ENOSPC: f"the disk is full; free space, {again}",
        errno.EDQUOT: f"the disk quota is exhausted; free space, {again}",
        errno.EROFS: "the file system is read-only; remount it writable or choose an output on a writable disk",
        errno.EACCES: "permission denied; choose an output you can write to",
        errno.EPERM: "permission denied; choose an output you can write to",
    }.get(exc.errno or 0, f"check the output location, {again}")
    return OutputError(f"cannot write {where}: {exc.strerror or exc}; {fix}")


@dataclass(frozen=True)
class LocalOutput:
    """A store directory; its spool lives inside it, so a finished shard moves in by rename."""

    root: Path
    spool_name: str = f"{SCRATCH}/spool"
    parallel_puts: ClassVar[bool] = False  # files written from several threads at once only add kernel time

    def path(self, key: str) -> Path:
        return self.root / key

    def describe(self) -> str:
        return str(self.root)

    @property
    def location(self) -> Path:
        return self.root

    def put(self, key: str, data: bytes | memoryview) -> None:
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise write_error(exc, str(target)) from None

    def put_atomic(self, key: str, data: bytes) -> None:
        """Write under a temporary name and rename: a reader never sees half a document."""
        target = self.path(key)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "wb") as f:
                f.write(data)
            os.replace(temporary, target)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise write_error(exc, str(target)) from None

    def put_file(self, key: str, path: Path) -> None:
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        except OSError as exc:
            raise write_error(exc, str(target)) from None

    def get(self, key: str) -> bytes | None:
        path = self.path(key)
        if not path.is_file():
            return None
        return path.read_bytes()

    def get_range(self, key: str, start: int, length: int) -> bytes:
        with open(self.path(key), "rb") as f:
            f.seek(start)
            data = f.read(length)
        if len(data) != length:
            raise OSError(f"{self.path(key)} ended {length - len(data)} bytes early")
        return data

    def size(self, key: str) -> int | None:
        path = self.path(key)
        return path.stat().st_size if path.is_file() else None

    def keys(self, prefix: str = "") -> Iterator[str]:
        base = self.path(prefix) if prefix else self.root
        for dirpath, _, names in os.walk(base):
            for name in names:
                yield (Path(dirpath) / name).relative_to(self.root).as_posix()

    def delete_prefix(self, prefix: str) -> None:
        """Remove what is there; nothing there is nothing to do (a read-only disk answers an unlink
        of an absent file with EROFS, not ENOENT)."""
        target = self.path(prefix)
        try:
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            elif target.is_file() or target.is_symlink():
                target.unlink()
        except OSError as exc:
            raise write_error(exc, str(target)) from None

    def promote(self, staged: str, key: str) -> bool:
        """Move a staged object onto its key (one atomic rename); False when nothing is staged there."""
        source, target = self.path(staged), self.path(key)
        if not source.is_file():
            return False
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        except OSError as exc:
            raise write_error(exc, str(target)) from None
        return True

    def child(self, prefix: str) -> LocalOutput:
        return LocalOutput(self.root / prefix, spool_name=".chronozarr-spool")

    def spool_file(self) -> Path:
        """A new local file name for a shard being built (the directory is created)."""
        spool = self.root / self.spool_name
        try:
            spool.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise write_error(exc, str(spool)) from None
        return spool / f"{uuid.uuid4().hex}.part"

    def is_empty(self) -> bool:
        return not self.root.exists() or not any(self.root.iterdir())


def local_spool_file() -> Path:
    """A spool file in the machine's temporary directory (for outputs that are not directories)."""
    return Path(tempfile.gettempdir()) / f"chronozarr-{uuid.uuid4().hex}.part"


_BUCKETS: dict[BucketOutput, Bucket] = {}
_BUCKETS_LOCK = threading.Lock()


BUCKET_OPTIONS = ("endpoint", "region", "anonymous")


@dataclass(frozen=True)
class BucketOutput:
    """A prefix in an object store (s3://, gs://, az://), through `chronozarr.buckets`.

    A PUT is atomic, so every object appears whole or not at all; shards are spooled to a local
    file and uploaded in parts. Only the URL and options travel to cluster workers; each process
    opens its own client.
    """

    url: str
    endpoint: str | None = None
    region: str | None = None
    anonymous: bool = False
    parallel_puts: ClassVar[bool] = True  # a PUT waits on the network: several overlap

    @property
    def bucket(self) -> Bucket:
        with _BUCKETS_LOCK:
            found = _BUCKETS.get(self)
            if found is None:
                found = _BUCKETS[self] = Bucket(self.url, endpoint=self.endpoint, region=self.region, anonymous=self.anonymous)
            return found

    def describe(self) -> str:
        return self.url

    @property
    def location(self) -> str:
        return self.url

    def put(self, key: str, data: bytes | memoryview) -> None:
        self.bucket.put(key, bytes(data))

    def put_atomic(self, key: str, data: bytes) -> None:
        self.bucket.put(key, data)

    def put_file(self, key: str, path: Path) -> None:
        try:
            self.bucket.put(key, path)
        finally:
            path.unlink(missing_ok=True)

    def get(self, key: str) -> bytes | None:
        data = self.bucket.get(key)
        return None if data is None else bytes(data)

    def get_range(self, key: str, start: int, length: int) -> bytes:
        data = self.bucket.get_range(key, start, length)
        if data is None:
            raise OSError(f"{self.bucket.describe(key)} vanished while it was being read")
        return data

    def size(self, key: str) -> int | None:
        return self.bucket.size(key)

    def keys(self, prefix: str = "") -> Iterator[str]:
        return (key for key, _ in self.bucket.list(prefix))

    def delete_prefix(self, prefix: str) -> None:
        """Every object below `prefix/`, and the object named `prefix` itself."""
        keys = list(self.keys(prefix))
        if prefix and self.size(prefix) is not None:
            keys.append(prefix)
        for start in range(0, len(keys), 1000):
            self.bucket.delete(keys[start : start + 1000])

    def promote(self, staged: str, key: str) -> bool:
        """Copy a staged object onto its key inside the store (a PUT of the whole object: readers see
        the old or the new one); the staged copy stays until the staging area is removed, so a
        repeated promote lands the same bytes."""
        if self.size(staged) is None:
            return False
        self.bucket.copy(staged, key)
        return True

    def child(self, prefix: str) -> BucketOutput:
        return BucketOutput(f"{self.url}/{prefix}", self.endpoint, self.region, self.anonymous)

    def spool_file(self) -> Path:
        return local_spool_file()

    def is_empty(self) -> bool:
        return next(iter(self.bucket.list("")), None) is None


def open_output(target: str | os.PathLike[str], options: Mapping[str, Any] | None = None) -> Output:
    """The output a path or URL names; `options` (endpoint, region, anonymous) are for buckets.
    A URL is never taken as a local path: an unsupported scheme is an error naming the ones
    chronozarr writes."""
    text = os.fspath(target)
    if "://" in text:
        scheme = text.split("://", 1)[0].lower()
        if is_bucket_url(text):
            unknown = sorted(set(options or {}) - set(BUCKET_OPTIONS))
            if unknown:
                raise OutputError(f"storage options {', '.join(unknown)} are not known for {text}: give {', '.join(BUCKET_OPTIONS)}")
            return BucketOutput(parse_bucket_url(text).url, **dict(options or {}))
        raise OutputError(
            f"cannot write to {text!r}: {scheme}:// is not an output chronozarr writes; "
            "give a local directory or an s3://, gs:// or az:// prefix"
        )
    if options:
        raise OutputError(f"storage options ({', '.join(sorted(options))}) are for s3://, gs:// and az:// outputs, not {text!r}")
    return LocalOutput(Path(text))
