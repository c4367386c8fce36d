"""A store directory on disk. Only a regular file is an object: a FIFO would block a read forever
and a device (or a link to one) would feed it without end, so both are refused before a byte is
read, by every read (the writer's reads of its own output included). Every OS error on an object
becomes our error naming it: a StoreError for reads, an OutputError (saying what to do) for writes.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import uuid
from collections.abc import Callable, Iterator, Sequence
from io import BufferedReader
from pathlib import Path
from typing import ClassVar, TypeVar

import numpy as np

from ..errors import OutputError, StoreError
from .interface import DEFAULT_MAX_OBJECT_BYTES, bound, check_key, check_object_size, nothing_to_copy, range_past_end, suffix_past_start

ReadT = TypeVar("ReadT", bytes, memoryview)


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


class DirectoryStore:
    """The objects of a store as the regular files below `root`."""

    writable: ClassVar[bool] = True
    listable: ClassVar[bool] = True
    parallel_puts: ClassVar[bool] = False  # files written from several threads at once only add kernel time

    def __init__(self, root: str | os.PathLike[str], max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> None:
        self.root = Path(root)
        self.local_root: Path | None = self.root
        self.max_object_bytes = max_object_bytes

    def describe(self, key: str) -> str:
        return str(self.root / key)

    def path(self, key: str) -> Path:
        return self.root / check_key(key)

    # -- reads ---------------------------------------------------------------------------------

    def _read(self, key: str, read: Callable[[BufferedReader, int], ReadT]) -> ReadT | None:
        """Open the key's file without blocking, check it is a regular file, then read from it;
        None when it is not there."""
        try:
            fd = os.open(self.path(key), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
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
                return read(handle, info.st_size)
            except OSError as exc:
                raise self.object_error(key, exc) from None

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

    def _exact(self, key: str, f: BufferedReader, start: int, length: int) -> bytes:
        f.seek(start)
        data = f.read(length)
        if len(data) != length:  # the file shrank between its stat and the read
            raise StoreError(f"{self.describe(key)} ended {length - len(data)} bytes early while it was read")
        return data

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        def whole(f: BufferedReader, size: int) -> bytes:
            check_object_size(size, bound(self.max_object_bytes, max_bytes), self.describe(key))
            return f.read(size)

        return self._read(key, whole)

    def get_into(self, key: str, buffer: Callable[[int], np.ndarray]) -> memoryview | None:
        """The whole object read into `buffer(size)` (a uint8 array of at least `size` bytes), as a
        view of it: a reader reusing one buffer per thread reads without a fresh allocation, whose
        page faults cost as much as the read itself. None when the key is not there."""

        def whole(f: BufferedReader, size: int) -> memoryview:
            check_object_size(size, self.max_object_bytes, self.describe(key))
            view = memoryview(buffer(size))[:size]
            return view[: f.readinto(view)]

        return self._read(key, whole)

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        def part(f: BufferedReader, size: int) -> bytes:
            if start + length > size:
                raise range_past_end(self.describe(key), size, start, length)
            return self._exact(key, f, start, length)

        return self._read(key, part)

    def get_suffix(self, key: str, length: int) -> bytes | None:
        def tail(f: BufferedReader, size: int) -> bytes:
            if size < length:
                raise suffix_past_start(self.describe(key), size, length)
            return self._exact(key, f, size - length, length)

        return self._read(key, tail)

    def size(self, key: str) -> int | None:
        try:
            info = self.path(key).stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self.object_error(key, exc) from None
        if not stat.S_ISREG(info.st_mode):
            raise self._special_error(key, info.st_mode)
        return info.st_size

    def list(self, prefix: str = "") -> Iterator[tuple[str, int | None]]:
        """(key, size) of every file below the directory `prefix` names, in no set order; a link
        counts as what it points to, and size None marks an entry no read takes as an object (a
        FIFO, socket or device, or a link to one). An entry that cannot be looked at (a link to
        nothing, a file removed while listed) is no object and is not listed."""
        base = self.path(prefix) if prefix else self.root
        for dirpath, _, names in os.walk(base):
            for name in names:
                path = Path(dirpath) / name
                try:
                    info = path.stat()
                except OSError:
                    continue
                yield path.relative_to(self.root).as_posix(), info.st_size if stat.S_ISREG(info.st_mode) else None

    # -- writes --------------------------------------------------------------------------------

    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False) -> None:
        """Write the object; in place unless `atomic` (then under a temporary name and renamed, so
        a reader never sees half of it)."""
        target = self.path(key)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp") if atomic else target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "wb") as f:
                f.write(data)
            if atomic:
                os.replace(temporary, target)
        except OSError as exc:
            if atomic:
                temporary.unlink(missing_ok=True)
            raise write_error(exc, str(target)) from None

    def put_file(self, key: str, path: Path, *, keep: bool = False) -> None:
        """Move a finished local file in as the object: one rename on the same disk (a copy under a
        temporary name, renamed, when the file is to be kept)."""
        target = self.path(key)
        temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if keep:
                shutil.copyfile(path, temporary)
            os.replace(temporary if keep else path, target)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise write_error(exc, str(target)) from None

    def move(self, source: str, target: str) -> bool:
        """Rename one object onto another key (atomic); False when `source` is not there."""
        origin, destination = self.path(source), self.path(target)
        if not origin.is_file():
            return False
        try:
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.replace(origin, destination)
        except OSError as exc:
            raise write_error(exc, str(destination)) from None
        return True

    def copy(self, source: str, target: str) -> None:
        data = self.get(source)
        if data is None:
            raise nothing_to_copy(self.describe(source))
        self.put(target, data, atomic=True)

    def delete(self, keys: str | Sequence[str]) -> None:
        """Remove the objects; one that is not there is nothing to do."""
        for key in [keys] if isinstance(keys, str) else keys:
            target = self.path(key)
            try:
                target.unlink(missing_ok=True)
            except OSError as exc:
                raise write_error(exc, str(target)) from None

    def delete_prefix(self, prefix: str) -> None:
        """Every object below `prefix/` and the object named `prefix`; nothing there is nothing to
        do (a read-only disk answers an unlink of an absent file with EROFS, not ENOENT)."""
        target = self.path(prefix)
        try:
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            elif target.is_file() or target.is_symlink():
                target.unlink()
        except OSError as exc:
            raise write_error(exc, str(target)) from None
