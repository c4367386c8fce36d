"""The Cache-Control of each served object, by its spec 14 class (docs/hosting.md)."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..format.caching import IMMUTABLE_CACHE_CONTROL, SHORT_LIVED, chronozarr_block, object_class, short_cache_control
from ..format.zarrjson import parse_json

IMMUTABLE_CACHE = IMMUTABLE_CACHE_CONTROL
MUTABLE_CACHE = short_cache_control()  # the lifetime publish gives the same objects
ASSET_CACHE = "no-cache"
# An error must not outlive an append: the key that is absent today may be written tomorrow.
ERROR_CACHE = "no-store"
MAX_DOCUMENT_BYTES = 256 * 2**20  # a zarr.json read to class objects; larger ones class nothing


class _JsonFiles:
    """Parsed JSON documents, re-read when a file's mtime or size changes (an append rewrites them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._docs: dict[str, tuple[tuple[int, int], Any]] = {}

    def get(self, path: str) -> Any:
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DOCUMENT_BYTES:
            return None  # a FIFO would block the request thread, a device would never end
        version = (st.st_mtime_ns, st.st_size)
        with self._lock:
            held = self._docs.get(path)
        if held is not None and held[0] == version:
            return held[1]
        try:
            with open(path, "rb") as f:
                doc = parse_json(f.read(MAX_DOCUMENT_BYTES))
        except (OSError, ValueError):
            doc = None
        with self._lock:
            self._docs[path] = (version, doc)
        return doc


@dataclass(frozen=True)
class CachePolicy:
    """The Cache-Control values a server gives each class (ServeOptions carries them)."""

    mutable: str = MUTABLE_CACHE
    immutable: str = IMMUTABLE_CACHE
    asset: str = ASSET_CACHE
    short_only: bool = False  # every object gets `mutable` (a host that caches nothing for long)


class CacheClasses:
    """The Cache-Control of each object: short for what an append rewrites in place (spec 14
    "Publishing"), a year for every other store object, revalidation for viewer assets."""

    def __init__(self, root: str, policy: CachePolicy) -> None:
        self._root = root
        self._policy = policy
        self._json = _JsonFiles()

    def store_depth(self, dirs: list[str]) -> int | None:
        """How many of `dirs` lead to the nearest enclosing store root, or None outside any store."""
        for depth in range(len(dirs), -1, -1):
            doc = self._json.get(os.path.join(self._root, *dirs[:depth], "zarr.json"))
            if self._chronozarr(doc) is not None:
                return depth
        return None

    @staticmethod
    def _chronozarr(doc: Any) -> Mapping[str, Any] | None:
        return chronozarr_block(doc)

    def header(self, parts: list[str]) -> str:
        policy = self._policy
        if policy.short_only or parts[-1] == "zarr.json":
            return policy.mutable
        depth = self.store_depth(parts[:-1])
        if depth is None:
            return policy.asset
        return policy.mutable if self.object_class(parts, depth) in SHORT_LIVED else policy.immutable

    def object_class(self, parts: list[str], depth: int) -> str:
        """The spec 14 class of the object at `parts`, in the store whose root is `parts[:depth]`."""
        store = os.path.join(self._root, *parts[:depth])
        block = self._chronozarr(self._json.get(os.path.join(store, "zarr.json")))
        return object_class(parts[depth:], block, lambda path: self._json.get(os.path.join(store, *path.split("/"), "zarr.json")))
