"""What the validator knows while it walks a store: raw documents, derived facts, the report.

Every rule reads the store's own JSON through `Context.doc`, so a malformed document becomes a
finding instead of an exception; the array model (`ArrayFacts.parsed`, format/array_doc.py) is used
only to read chunks and shard indexes of a document the reader would accept.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from ..errors import StoreError
from ..format.array_doc import ArrayDocument
from ..format.geometry import chunk_grid
from ..format.metadata import LevelMirror
from ..format.zarrjson import parse_json
from ..store import ObjectStore, is_remote
from .findings import Report

_MISSING = object()
_MALFORMED = object()


@dataclass
class LevelFacts:
    """What a level's documents gave, each value None where its document was unusable.

    Observations, not a second level model: format.geometry.Level is whole and consistent (the
    reader refuses a store whose level it cannot build), while the validator keeps what one
    document gave when another is broken, so every rule that still applies reports its finding;
    what the root states of the level is format.metadata.LevelMirror, as for the reader."""

    index: int
    path: str  # its own entry of the level list: "2" at index 1 when a broken "1" was left out
    height: int | None = None
    width: int | None = None
    transform: list[float] | None = None
    resolution: float | None = None

    def grid(self, cs: int | None) -> tuple[int, int] | None:
        if cs is None or cs <= 0 or self.height is None or self.width is None:
            return None
        rows, cols = chunk_grid((self.height, self.width), (cs, cs))
        return (rows, cols)


@dataclass
class ArrayFacts:
    """An array document that parsed well enough to place chunk keys and shards."""

    node: str
    doc: Mapping[str, Any]
    shape: tuple[int, ...]
    outer: tuple[int, ...]
    inner: tuple[int, ...] | None

    @property
    def grid(self) -> tuple[int, ...]:
        return chunk_grid(self.shape, self.outer)

    @functools.cached_property
    def parsed(self) -> ArrayDocument | None:
        """The document as the reader takes it, or None when the reader refuses it (the array
        checks report why)."""
        try:
            return ArrayDocument.from_json(self.node, self.doc)
        except StoreError:
            return None


@dataclass
class Context:
    """Shared state of one validation run."""

    source: ObjectStore
    report: Report
    local_root: Path | None
    root: Mapping[str, Any] = field(default_factory=dict)
    block: Mapping[str, Any] = field(default_factory=dict)
    legacy: bool = False
    variable: str = "data"
    times_ms: list[int] | None = None
    band_names: list[str] | None = None
    nodata: Any = None
    nodata_ok: bool = True
    crs: str | None = None
    level_paths: list[str] = field(default_factory=list)
    mirrors: list[LevelMirror] | None = None  # chronozarr.levels, when every entry has fields of the right types
    encoding: str | None = None
    n_time: int | None = None
    n_band: int | None = None
    dtype: str | None = None
    chunk_size: int | None = None
    sharded: bool | None = None
    shard_time: int | None = None
    has_mask: bool = False
    has_coverage: bool = False
    volatility_path: str = "volatility"
    levels: list[LevelFacts] = field(default_factory=list)
    arrays: dict[str, ArrayFacts] = field(default_factory=dict)
    groups: set[str] = field(default_factory=set)
    history_sample: int | None = None  # inner chunks of the history array to compare (None: every one)
    _docs: dict[str, Any] = field(default_factory=dict)

    def doc(self, node: str, section: str = "2") -> Any | None:
        """The node's own zarr.json parsed, or None when absent or not JSON (reported once)."""
        if node not in self._docs:
            key = f"{node}/zarr.json" if node else "zarr.json"
            try:
                raw = self.source.get(key)
            except (StoreError, OSError) as exc:
                self.report.fail(section, key, f"cannot be read: {exc}")
                raw = None
                self._docs[node] = _MALFORMED
            if raw is None:
                self._docs.setdefault(node, _MISSING)
            else:
                try:
                    self._docs[node] = parse_json(raw)
                except ValueError as exc:
                    self.report.fail(section, key, str(exc))
                    self._docs[node] = _MALFORMED
        value = self._docs[node]
        return None if value is _MISSING or value is _MALFORMED else value

    def missing(self, node: str) -> bool:
        """True when the node has no zarr.json at all (as opposed to a malformed one)."""
        self.doc(node)
        return self._docs[node] is _MISSING

    @property
    def level_facts(self) -> dict[str, LevelFacts]:
        return {level.path: level for level in self.levels}


def doc_key(node: str) -> str:
    return f"{node}/zarr.json" if node else "zarr.json"


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def int_list(value: Any, length: int | None = None) -> list[int] | None:
    """The value as a list of ints, or None when it is anything else."""
    if not isinstance(value, list) or not all(is_int(v) for v in value):
        return None
    if length is not None and len(value) != length:
        return None
    return list(value)


def number_list(value: Any, length: int | None = None) -> list[float] | None:
    if not isinstance(value, list) or not all(is_number(v) for v in value):
        return None
    if length is not None and len(value) != length:
        return None
    return [float(v) for v in value]


def close(a: float, b: float) -> bool:
    """Equality of JSON floats that went through arithmetic (2^k scaling is exact, sums are not)."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def canonical(value: Any) -> str:
    """A JSON rendering in which equal documents are equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def local_root(location: str | os.PathLike[str]) -> Path | None:
    text = os.fspath(location)
    if is_remote(text):
        return None
    return Path(text[len("file://") :] if text.startswith("file://") else text)
