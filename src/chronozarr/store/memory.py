"""A store held in a dict: the same rules as every other backend (interface.py), without a disk or
a network, for tests and fuzz targets that try thousands of variants of one store."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from .interface import DEFAULT_MAX_OBJECT_BYTES, bound, check_key, check_object_size, nothing_to_copy, range_of, suffix_of


class MemoryStore:
    """Objects by key in `objects` (a dict the caller may share and change); thread-safe writes."""

    local_root: ClassVar[Path | None] = None
    writable: ClassVar[bool] = True
    listable: ClassVar[bool] = True
    parallel_puts: ClassVar[bool] = False

    def __init__(self, objects: Mapping[str, bytes] | None = None, max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> None:
        self.objects: dict[str, bytes] = dict(objects or {})
        self.max_object_bytes = max_object_bytes
        self._lock = threading.Lock()

    @classmethod
    def of_directory(cls, root: Path) -> MemoryStore:
        """A copy of the regular files below `root`, keyed by their relative paths."""
        return cls({p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()})

    def describe(self, key: str) -> str:
        return f"memory://{key}"

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        data = self.objects.get(check_key(key))
        if data is not None:
            check_object_size(len(data), bound(self.max_object_bytes, max_bytes), self.describe(key))
        return data

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        data = self.objects.get(check_key(key))
        return None if data is None else range_of(data, start, length, self.describe(key))

    def get_suffix(self, key: str, length: int) -> bytes | None:
        data = self.objects.get(check_key(key))
        return None if data is None else suffix_of(data, length, self.describe(key))

    def size(self, key: str) -> int | None:
        data = self.objects.get(check_key(key))
        return None if data is None else len(data)

    def list(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        below = prefix.rstrip("/") + "/" if prefix else ""
        return iter([(key, len(data)) for key, data in list(self.objects.items()) if key.startswith(below)])

    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False) -> None:
        with self._lock:
            self.objects[check_key(key)] = bytes(data)

    def put_file(self, key: str, path: Path, *, keep: bool = False) -> None:
        try:
            self.put(key, path.read_bytes())
        finally:
            if not keep:
                path.unlink(missing_ok=True)

    def copy(self, source: str, target: str) -> None:
        data = self.get(source)
        if data is None:
            raise nothing_to_copy(self.describe(source))
        self.put(target, data)

    def move(self, source: str, target: str) -> bool:
        with self._lock:
            data = self.objects.pop(check_key(source), None)
            if data is not None:
                self.objects[check_key(target)] = data
        return data is not None

    def delete(self, keys: str | Sequence[str]) -> None:
        with self._lock:
            for key in [keys] if isinstance(keys, str) else keys:
                self.objects.pop(key, None)

    def delete_prefix(self, prefix: str) -> None:
        below = prefix.rstrip("/") + "/" if prefix else ""
        with self._lock:
            for key in [k for k in self.objects if k.startswith(below) or k == prefix]:
                del self.objects[key]
