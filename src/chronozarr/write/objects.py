"""Objects of a store: whole chunks, and shard objects built one inner chunk at a time."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import StoreError
from ..format.shard_index import data_span, empty_entries, encode_index, index_nbytes, parse_index
from .output import Output, write_error

COPY_BLOCK = 8 * 2**20


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
    """Writes objects to an output by key, counting them; `step` runs after every object
    (resume and append tests stop the process there)."""

    def __init__(self, output: Output, counter: ObjectCounter | None = None, step: Callable[[], None] | None = None) -> None:
        self.output = output
        self.counter = counter or ObjectCounter()
        self._step = step

    def put(self, key: str, data: bytes | memoryview) -> None:
        self.output.put(key, data)
        self.counter.add(1, len(data))
        self.step()

    def put_json(self, key: str, document: dict[str, Any]) -> None:
        data = json.dumps(document, indent=2).encode()
        self.output.put_atomic(key, data)
        self.counter.add(1, len(data))
        self.step()

    def put_file(self, key: str, path: Path, nbytes: int) -> None:
        self.output.put_file(key, path)
        self.counter.add(1, nbytes)
        self.step()

    def step(self) -> None:
        if self._step is not None:
            self._step()


@dataclass(frozen=True)
class ShardBase:
    """An existing shard that new inner chunks extend (append, spec 14).

    Its chunk bytes (everything before the end index) are kept verbatim, so every old index entry
    still points at the same bytes and an index a reader cached earlier stays right.
    """

    output: Output
    key: str
    length: int
    index: np.ndarray

    @property
    def chunks_end(self) -> int:
        return self.length - index_nbytes(len(self.index))

    @classmethod
    def read(cls, output: Output, key: str, n_inner: int) -> ShardBase | None:
        """The shard at key with its checked end index, or None when there is no such object."""
        length = output.size(key)
        if length is None:
            return None
        n = index_nbytes(n_inner)
        where = f"{output.describe()}/{key}"
        if length < n:
            raise StoreError(f"{where} is {length} bytes, shorter than its {n}-byte shard index")
        try:
            index = parse_index(output.get_range(key, length - n, n), n_inner, data_span(n_inner, True, length))
        except ValueError as exc:
            raise StoreError(f"{where}: {exc}") from None
        return cls(output, key, length, index.astype(np.uint64))

    def copy_chunks(self, target: IO[bytes]) -> int:
        """Stream the chunk bytes into target (never whole in memory); returns their length."""
        done = 0
        while done < self.chunks_end:
            size = min(COPY_BLOCK, self.chunks_end - done)
            target.write(self.output.get_range(self.key, done, size))
            done += size
        return done


class ShardBuilder:
    """One shard object built inner chunk by inner chunk in a spool file, its index appended at the
    end, then handed to the output whole.

    The spool is created on the first non-empty inner chunk, so an all-fill shard is never
    written (spec 7.2 allows omitting it).
    """

    def __init__(self, writer: ObjectWriter, key: str, n_inner: int, base: ShardBase | None = None) -> None:
        self.writer = writer
        self.key = key
        self.base = base
        self.index = base.index.copy() if base is not None else empty_entries(n_inner)
        self._spool: Path | None = None
        self._file: IO[bytes] | None = None

    def add(self, position: int, data: bytes | None) -> None:
        """Store the encoded inner chunk at its position; None leaves the entry empty."""
        if data is None:
            return
        try:
            if self._file is None:
                self._spool = self.writer.output.spool_file()
                self._file = open(self._spool, "wb")
                if self.base is not None:
                    # Copied only once a chunk arrives: a base that gains nothing is never rewritten.
                    self.base.copy_chunks(self._file)
            offset = self._file.tell()
            self._file.write(data)
        except OSError as exc:
            self.discard()
            raise write_error(exc, f"a shard of {self.writer.output.describe()}/{self.key}") from None
        self.index[position] = (offset, len(data))

    @property
    def written(self) -> bool:
        """Whether finish() writes an object (an inner chunk arrived)."""
        return self._file is not None

    def finish(self) -> int | None:
        """Append the index and hand the object over; returns its length, or None when nothing was
        written (a base that gained nothing keeps its length and is not written)."""
        if self._file is None or self._spool is None:
            return self.base.length if self.base is not None else None
        try:
            self._file.write(encode_index(self.index))
            size = self._file.tell()
            self._file.close()
        except OSError as exc:
            self.discard()
            raise write_error(exc, f"a shard of {self.writer.output.describe()}/{self.key}") from None
        self._file = None
        self.writer.put_file(self.key, self._spool, size)
        return size

    def discard(self) -> None:
        """Drop the spool of a shard that will not be finished."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._spool is not None:
            self._spool.unlink(missing_ok=True)
