"""Objects on disk: plain chunk files and sharded objects built one inner chunk at a time."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import google_crc32c
import numpy as np

EMPTY = np.uint64(2**64 - 1)


@dataclass
class ObjectCounter:
    """Objects and bytes written, safe to update from worker threads."""

    objects: int = 0
    nbytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, objects: int, nbytes: int) -> None:
        with self._lock:
            self.objects += objects
            self.nbytes += nbytes


class ObjectWriter:
    """Writes store objects under a root directory by key."""

    def __init__(self, root: Path, counter: ObjectCounter | None = None) -> None:
        self.root = Path(root)
        self.counter = counter or ObjectCounter()

    def path(self, key: str) -> Path:
        return self.root / key

    def put(self, key: str, data: bytes | memoryview) -> None:
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        self.counter.add(1, len(data))

    def put_json(self, key: str, document: dict[str, Any]) -> None:
        self.put(key, json.dumps(document, indent=2).encode())

    def copy_prefix(self, key: str, source: Path, nbytes: int) -> int:
        """Start object `key` with the first nbytes of another file, streamed (never held whole)."""
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as src, open(target, "wb") as dst:
            remaining = nbytes
            while remaining:
                block = src.read(min(remaining, 8 * 2**20))
                if not block:
                    raise OSError(f"{source} ended {remaining} bytes before its shard index")
                dst.write(block)
                remaining -= len(block)
        return nbytes

    def append(self, key: str, data: bytes | memoryview, fresh: bool) -> int:
        """Append to an object (truncating it first when fresh); returns the offset written at."""
        target = self.path(key)
        if fresh:
            target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb" if fresh else "ab") as f:
            offset = f.tell()
            f.write(data)
        return offset


def shard_index_bytes(index: np.ndarray) -> bytes:
    """The encoded shard index: (offset, nbytes) uint64 little-endian pairs, then crc32c (spec 7.2)."""
    raw = np.ascontiguousarray(index, dtype="<u8").tobytes()
    return raw + int(google_crc32c.value(raw)).to_bytes(4, "little")


@dataclass(frozen=True)
class ShardBase:
    """An existing shard that new inner chunks extend (append, spec 14).

    Its chunk bytes (everything before the end index) are kept verbatim, so every old index entry
    still points at the same bytes and an index a reader cached earlier stays right.
    """

    path: Path
    length: int
    index: np.ndarray

    @property
    def chunks_end(self) -> int:
        return self.length - self.index.size * 8 - 4

    @classmethod
    def read(cls, path: Path, n_inner: int) -> "ShardBase":
        """Read and check the end index of the shard at path (crc32c, entries inside the shard)."""
        n = 16 * n_inner + 4
        length = path.stat().st_size
        if length < n:
            raise OSError(f"{path} is {length} bytes, shorter than its {n}-byte shard index")
        with open(path, "rb") as f:
            f.seek(length - n)
            tail = f.read(n)
        body, checksum = tail[:-4], int.from_bytes(tail[-4:], "little")
        if int(google_crc32c.value(body)) != checksum:
            raise OSError(f"{path}: the shard index fails its crc32c checksum")
        index = np.frombuffer(body, dtype="<u8").reshape(n_inner, 2).astype(np.uint64)
        used = index[~((index[:, 0] == EMPTY) & (index[:, 1] == EMPTY))]
        if used.size and int((used[:, 0] + used[:, 1]).max()) > length - n:
            raise OSError(f"{path}: the shard index points past the shard's chunk bytes")
        return cls(path, length, index)


class ShardBuilder:
    """One shard object written inner chunk by inner chunk, its index appended at the end.

    The object is created on the first non-empty inner chunk, so an all-fill shard is never
    written (spec 7.2 allows omitting it).
    """

    def __init__(self, writer: ObjectWriter, key: str, n_inner: int, base: ShardBase | None = None) -> None:
        self.writer = writer
        self.key = key
        self.base = base
        self.index = base.index.copy() if base is not None else np.full((n_inner, 2), EMPTY, dtype=np.uint64)
        self.size = 0

    def add(self, position: int, data: bytes | None) -> None:
        """Store the encoded inner chunk at its position; None leaves the entry empty."""
        if data is None:
            return
        if self.size == 0 and self.base is not None:
            # Copied only once a chunk arrives: a base that gains nothing is never rewritten.
            self.size = self.writer.copy_prefix(self.key, self.base.path, self.base.chunks_end)
        offset = self.writer.append(self.key, data, fresh=self.size == 0)
        self.index[position] = (offset, len(data))
        self.size = offset + len(data)

    def finish(self) -> int | None:
        """Append the index; returns the object's length, or None when nothing was written
        (a base that gained nothing keeps its length and is not written)."""
        if self.size == 0:
            return self.base.length if self.base is not None else None
        tail = shard_index_bytes(self.index)
        self.writer.append(self.key, tail, fresh=False)
        self.size += len(tail)
        self.writer.counter.add(1, self.size)
        return self.size
