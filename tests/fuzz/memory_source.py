"""A store held in a dict, read through the same ObjectSource interface as a directory, so a fuzz
target can try thousands of variants of one store without touching the disk."""

from __future__ import annotations

from pathlib import Path

from chronozarr.read.object_source import RequestStats


class MemorySource:
    """Objects by key; a key that is not there is missing, as a 404 is."""

    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects
        self.stats = RequestStats()

    @classmethod
    def of_directory(cls, root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    def describe(self, key: str) -> str:
        return f"memory://{key}"

    def get(self, key: str) -> bytes | None:
        return self.objects.get(key)

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        data = self.objects.get(key)
        if data is None:
            return None
        if start + length > len(data):
            from chronozarr.errors import StoreError

            raise StoreError(f"{self.describe(key)} has {len(data)} bytes, fewer than the range asked for")
        return data[start : start + length]

    def get_suffix(self, key: str, length: int) -> bytes | None:
        data = self.objects.get(key)
        if data is None:
            return None
        if length > len(data):
            from chronozarr.errors import StoreError

            raise StoreError(f"{self.describe(key)} has {len(data)} bytes, fewer than the {length} asked for")
        return data[len(data) - length :]

    def size(self, key: str) -> int | None:
        data = self.objects.get(key)
        return None if data is None else len(data)
