"""Objects on disk: plain chunk files and sharded objects built one inner chunk at a time."""

from __future__ import annotations

import json
import os
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


class ShardBuilder:
    """One shard object written inner chunk by inner chunk, its index appended at the end.

    The object is created on the first non-empty inner chunk, so an all-fill shard is never
    written (spec 7.2 allows omitting it).
    """

    def __init__(self, writer: ObjectWriter, key: str, n_inner: int) -> None:
        self.writer = writer
        self.key = key
        self.index = np.full((n_inner, 2), EMPTY, dtype=np.uint64)
        self.size = 0

    def add(self, position: int, data: bytes | None) -> None:
        """Store the encoded inner chunk at its position; None leaves the entry empty."""
        if data is None:
            return
        offset = self.writer.append(self.key, data, fresh=self.size == 0)
        self.index[position] = (offset, len(data))
        self.size = offset + len(data)

    def finish(self) -> int | None:
        """Append the index; returns the object's length, or None when nothing was written."""
        if self.size == 0:
            return None
        tail = shard_index_bytes(self.index)
        self.writer.append(self.key, tail, fresh=False)
        self.size += len(tail)
        self.writer.counter.add(1, self.size)
        return self.size


def remove_tree_files(root: Path) -> None:
    """Delete every file under root (used only to clean a failed write of our own)."""
    for dirpath, _, files in os.walk(root, topdown=False):
        for name in files:
            os.remove(os.path.join(dirpath, name))
        if dirpath != str(root):
            os.rmdir(dirpath)
