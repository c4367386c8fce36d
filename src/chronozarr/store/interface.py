"""The one interface to a store's objects, whatever holds them (a directory, an HTTP host, an
object store, memory), in the style of zarr-python's `Store` and obstore.

The rules every backend keeps, so a reader, writer or checker never asks which backend it has:

- A key is a relative `/`-separated name; one that climbs out of the store (`..`, a leading `/`)
  is refused.
- **Absent is None.** A key that is not there (a missing file, HTTP 404 or 410, an object store's
  404) reads as None from `get`, `get_range`, `get_suffix` and `size`, which readers decode as fill.
  Everything else that goes wrong is a `StoreError` naming the object: 403 (unless the store was
  told the host answers 403 for absent keys), a missing bucket, refused credentials, a 5xx after
  the retries, an OS error on a file, a directory or FIFO or device where an object should be.
- **Exact bytes or an error.** `get_range(key, start, length)` returns exactly `length` bytes and
  `get_suffix(key, length)` exactly the last `length`; an object shorter than that (a range past
  its end, a short read, a body cut short) is a `StoreError` naming the object and the range, never
  fewer bytes. Over HTTP a range must come back 206 with the Content-Range asked for; a 200 with
  the whole object is cut locally.
- **Bounded allocation.** No object larger than the store's `max_object_bytes` (4 GiB unless
  set) is read into memory, whatever the object or its server claims; `get(key, max_bytes=n)`
  bounds one read further.
- **Writes are whole or absent for a reader** on every backend but a directory's `put`, which
  writes in place (a crash can leave a partial file; the writer's resume rewrites it) unless
  `atomic=True`. `put_file` hands a local file over (a rename on a directory, a multipart upload
  elsewhere); the file is gone afterwards either way, unless `keep` (then it is copied or uploaded
  and stays, as publish needs for the user's store). A store is complete only once its root
  `zarr.json` exists, and writers put it last: a crash between two puts leaves objects but no root
  document, which no reader takes for a store.
- `move(source, target)` lands one object on another key, readers seeing the old object or the new
  one: a rename on a directory (the source is gone), a copy made by the store elsewhere (the source
  stays, so a repeated move lands the same bytes); False when the source is not there.
- Writing to a read-only store (HTTP) is a `StoreError` saying so.
- `list(prefix)` yields (key, size) of every object below `prefix`, in no set order, on every
  backend that is `listable` (all but HTTP). A directory lists a link by what it points to; an
  entry there that no read can take as an object (a FIFO, socket or device, or a link to one) is
  listed with size None, so a checker can name it, and a link to nothing is not listed.

Capabilities a caller may branch on, instead of on the backend's class: `local_root` (the
directory on this machine whose files are the objects, or None), `writable`, `listable`, `parallel_puts`
(several puts at once overlap waits; false where they only add kernel time).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import StoreError

DEFAULT_MAX_OBJECT_BYTES = 4 * 2**30


class ObjectStore(Protocol):
    """Objects by key: read, list and (where `writable`) write, with the rules of this module."""

    @property
    def local_root(self) -> Path | None: ...
    @property
    def writable(self) -> bool: ...
    @property
    def listable(self) -> bool: ...
    @property
    def parallel_puts(self) -> bool: ...

    def describe(self, key: str) -> str: ...
    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None: ...
    def get_range(self, key: str, start: int, length: int) -> bytes | None: ...
    def get_suffix(self, key: str, length: int) -> bytes | None: ...
    def size(self, key: str) -> int | None: ...
    def list(self, prefix: str = "") -> Iterator[tuple[str, int | None]]: ...
    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False) -> None: ...
    def put_file(self, key: str, path: Path, *, keep: bool = False) -> None: ...
    def copy(self, source: str, target: str) -> None: ...
    def move(self, source: str, target: str) -> bool: ...
    def delete(self, keys: str | Sequence[str]) -> None: ...
    def delete_prefix(self, prefix: str) -> None: ...


class ReadsInto(Protocol):
    """A store that can read a whole object into a caller's buffer (a directory: no fresh
    allocation per chunk). Readers use it when a store has it, `get` otherwise."""

    def get_into(self, key: str, buffer: Callable[[int], np.ndarray]) -> memoryview | None: ...


class ReadOnlyWrites(ABC):
    """The write half of a store that cannot be written (HTTP, several stores read as one): every
    write is the one read_only error, naming the object by the store's own `describe`."""

    @abstractmethod
    def describe(self, key: str) -> str:
        """Where the object `key` is, for messages."""

    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False) -> None:
        raise read_only(self.describe(key))

    def put_file(self, key: str, path: Path, *, keep: bool = False) -> None:
        raise read_only(self.describe(key))

    def copy(self, source: str, target: str) -> None:
        raise read_only(self.describe(target))

    def move(self, source: str, target: str) -> bool:
        raise read_only(self.describe(target))

    def delete(self, keys: str | Sequence[str]) -> None:
        raise read_only(self.describe(""))

    def delete_prefix(self, prefix: str) -> None:
        raise read_only(self.describe(prefix))


def check_key(key: str) -> str:
    """The key, when it names an object inside the store."""
    if key.startswith("/") or ".." in key.split("/"):
        raise StoreError(f"refusing key outside the store: {key!r}")
    return key


def check_object_size(size: int, limit: int | None, where: str) -> None:
    """No object is read past the limit on one object, whatever it or its server claims."""
    if limit is not None and size > limit:
        raise StoreError(f"{where} is {size} bytes, more than the {limit}-byte limit on one object")


def bound(max_object_bytes: int, max_bytes: int | None) -> int:
    """The tighter of the store's limit on one object and the caller's."""
    return max_object_bytes if max_bytes is None else min(max_object_bytes, max_bytes)


def range_of(data: bytes, start: int, length: int, where: str) -> bytes:
    """Bytes start..start+length-1 of a whole object, or the one error for a range past its end."""
    if start + length > len(data):
        raise range_past_end(where, len(data), start, length)
    return data[start : start + length]


def suffix_of(data: bytes, length: int, where: str) -> bytes:
    """The last `length` bytes of a whole object, or the one error for a suffix longer than it."""
    if length > len(data):
        raise suffix_past_start(where, len(data), length)
    return data[len(data) - length :]


def range_past_end(where: str, size: int, start: int, length: int) -> StoreError:
    return StoreError(f"{where} has {size} bytes, fewer than the range {start}-{start + length - 1}")


def suffix_past_start(where: str, size: int, length: int) -> StoreError:
    return StoreError(f"{where} has {size} bytes, fewer than the {length} asked for")


def read_only(where: str) -> StoreError:
    return StoreError(f"{where} is read-only: objects cannot be written, copied or deleted there")


def nothing_to_copy(where: str) -> StoreError:
    return StoreError(f"{where} is not there to copy")
