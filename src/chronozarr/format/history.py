"""The time-major history array (docs/format-history.md): its declaration in the root block, its
geometry (time blocks, shards, inner chunks, keys) and the rules it must meet against level 0.

The writer, append, the reader, the validator and doctor all place history objects through
`HistoryLayout`, so a key, an index length or a default is computed in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import HistoryError, SettingError
from .array_doc import object_key
from .codecs import CodecSpec
from .geometry import chunk_grid, parse_shard_id, shard_id
from .history_fields import (
    HISTORY_CODEC,
    HISTORY_DIMS,
    HISTORY_MASK_DIMS,
    HISTORY_MASK_PATH,
    HISTORY_PATH,
    HISTORY_VERSION,
    LEVELS_SINCE,
    MAJOR,
    OWN_CODEC_SINCE,
    default_inner,
    default_time_cap,
    history_mask_path,
    history_path,
    mask_lengths,
    ordered,
    positive,
    shape4,
    shard_lengths,
    version_tuple,
)
from .shard_index import index_nbytes

__all__ = [  # the extension's facts, importable from here as before
    "HISTORY_MASK_PATH", "HISTORY_PATH", "HISTORY_VERSION", "HistoryLayout", "HistoryPart", "default_inner", "default_time_cap",
    "history_mask_path", "history_path",
]

@dataclass(frozen=True)
class HistoryPart:
    """One array of the history: the data values (`history`, [T, n_band, p, p] inner chunks) or the
    mask copy (`history_mask`, [T, p, p], no band axis), of one level (`history_{k}` and
    `history_mask_{k}` at coarser levels). Both share the layout's time blocks, shards and inner
    positions; they differ in path, leading axes, keys and shard lengths."""

    path: str
    lead: tuple[int, ...]  # (n_band,) for the data, () for the mask copy
    time_cap: int
    inner: int
    shard: int
    shard_bytes: Mapping[str, int]
    is_mask: bool = False
    level: int = 0

    @property
    def field(self) -> str:
        """The declaration's field that lists this array's shard lengths, for messages:
        `shard_bytes`, `mask_shard_bytes`, `levels.{k}.shard_bytes`..."""
        name = "mask_shard_bytes" if self.is_mask else "shard_bytes"
        return name if self.level == 0 else f"levels.{self.level}.{name}"

    def codec(self, version: str, level0: CodecSpec) -> CodecSpec:
        """The codec inside this array's shards: level 0's for the mask copy and for a data
        history declared before 1.2, else HISTORY_CODEC with level 0's checksum choice."""
        if self.is_mask or version_tuple(version) < OWN_CODEC_SINCE:
            return level0
        return replace(HISTORY_CODEC, checksum=level0.checksum)

    @property
    def chunk_shape(self) -> tuple[int, ...]:
        return (self.time_cap, *self.lead, self.inner, self.inner)

    @property
    def shard_shape(self) -> tuple[int, ...]:
        return (self.time_cap, *self.lead, self.shard, self.shard)

    @property
    def dims(self) -> tuple[str, ...]:
        return HISTORY_MASK_DIMS if self.is_mask else HISTORY_DIMS

    def shard_key(self, tb: int, row: int, col: int) -> str:
        """`history/c/{tb}/0/{r}/{c}` (the band chunk index is always 0) or `history_mask/c/{tb}/{r}/{c}`."""
        return object_key(self.path, (tb, row, col) if self.is_mask else (tb, 0, row, col))

    def shard_of(self, key: str) -> tuple[int, int, int] | None:
        """(tb, row, col) of one of this array's shard keys, else None."""
        prefix = f"{self.path}/c/"
        if not key.startswith(prefix):
            return None
        parts = key[len(prefix) :].split("/")
        if not self.is_mask:
            if len(parts) != 4 or parts[1] != "0":
                return None
            parts = [parts[0], parts[2], parts[3]]
        return parse_shard_id("/".join(parts)) if len(parts) == 3 else None


@dataclass(frozen=True)
class HistoryLayout:
    """The history's declaration and geometry: inner chunks [T, n_band, p, p] in shards
    [T, n_band, S, S]; time block tb holds timesteps tb*T .. tb*T + T - 1. `mask_shard_bytes` is
    None when the history has no mask copy (a store without a mask, or a version 1.0 writer).

    The declaration's own fields describe level 0 (`level` 0); from version 1.3 `coarse` holds a
    layout per coarser level that has a history (same T, p and S, its own paths and lengths)."""

    time_cap: int
    n_band: int
    inner: int
    shard: int
    shard_bytes: Mapping[str, int] = field(default_factory=dict)
    version: str = HISTORY_VERSION
    path: str = HISTORY_PATH
    mask_shard_bytes: Mapping[str, int] | None = None
    level: int = 0
    coarse: tuple[HistoryLayout, ...] = ()

    @classmethod
    def create(
        cls, n_time: int, n_band: int, chunk_size: int, time_cap: int | None = None, inner: int | None = None, mask: bool = False,
        dtype: str = "uint16", n_levels: int = 1,
    ) -> HistoryLayout:
        """A writer's layout: S = cs, T and p as given or the defaults (p from the values' `dtype`),
        a mask copy when the store has a mask, a history for each of the `n_levels` levels (every
        level shares cs); ValueError names a bad choice."""
        cap = default_time_cap(n_time) if time_cap is None else time_cap
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise SettingError(f"history_time must be an integer >= 1, got {cap!r}")
        p = default_inner(chunk_size, cap, n_band, np.dtype(dtype).itemsize) if inner is None else inner
        if isinstance(p, bool) or not isinstance(p, int) or p < 2 or p % 2 or chunk_size % p:
            raise SettingError(f"the history inner chunk must be even and divide the chunk size {chunk_size}, got {p!r}")
        top = cls(cap, n_band, p, chunk_size, mask_shard_bytes={} if mask else None)
        return replace(top, coarse=tuple(top.for_level(k) for k in range(1, n_levels)))

    def for_level(self, level: int) -> HistoryLayout:
        """An empty layout of coarser level `level` with this one's T, p and S."""
        return replace(
            self, shard_bytes={}, path=history_path(level), level=level, coarse=(),
            mask_shard_bytes=None if self.mask_shard_bytes is None else {},
        )

    @property
    def every_level(self) -> tuple[HistoryLayout, ...]:
        """Level 0's layout, then each coarser level's that has a history, finest first."""
        return (self, *self.coarse)

    @property
    def levels(self) -> tuple[int, ...]:
        """The levels that have a history."""
        return tuple(layout.level for layout in self.every_level)

    def at(self, level: int) -> HistoryLayout | None:
        """The layout of `level`'s history, None when that level has none."""
        return next((layout for layout in self.every_level if layout.level == level), None)

    @property
    def every_part(self) -> tuple[HistoryPart, ...]:
        """Every history array of every level: each level's data, then its mask copy."""
        return tuple(part for layout in self.every_level for part in layout.parts)

    @property
    def mask_path(self) -> str:
        return history_mask_path(self.level)

    @property
    def data(self) -> HistoryPart:
        return HistoryPart(self.path, (self.n_band,), self.time_cap, self.inner, self.shard, self.shard_bytes, False, self.level)

    @property
    def mask(self) -> HistoryPart | None:
        """The mask copy, when declared."""
        if self.mask_shard_bytes is None:
            return None
        return HistoryPart(self.mask_path, (), self.time_cap, self.inner, self.shard, self.mask_shard_bytes, True, self.level)

    @property
    def parts(self) -> tuple[HistoryPart, ...]:
        """The data, then the mask copy when declared."""
        mask = self.mask
        return (self.data,) if mask is None else (self.data, mask)

    @property
    def chunk_shape(self) -> tuple[int, int, int, int]:
        return (self.time_cap, self.n_band, self.inner, self.inner)

    @property
    def shard_shape(self) -> tuple[int, int, int, int]:
        return (self.time_cap, self.n_band, self.shard, self.shard)

    @property
    def per_side(self) -> int:
        """Inner chunks along one side of a shard: S / p."""
        return self.shard // self.inner

    @property
    def inner_per_shard(self) -> int:
        return self.per_side**2

    @property
    def index_nbytes(self) -> int:
        """Bytes of a shard's index: 16 * (S/p)^2 + 4."""
        return index_nbytes(self.inner_per_shard)

    def time_blocks(self, n_time: int) -> int:
        return -(-n_time // self.time_cap)

    def block_steps(self, tb: int, n_time: int) -> range:
        """The timesteps of time block tb that exist (fewer than T in the last block)."""
        return range(tb * self.time_cap, min((tb + 1) * self.time_cap, n_time))

    def blocks_of(self, steps: Sequence[int]) -> dict[int, list[int]]:
        """Timesteps grouped by time block, blocks in order."""
        out: dict[int, list[int]] = {}
        for t in steps:
            out.setdefault(t // self.time_cap, []).append(t)
        return dict(sorted(out.items()))

    def shards(self, n_time: int, height: int, width: int) -> list[tuple[int, int, int]]:
        """(tb, row, col) of every shard of the array, time block first, then row-major."""
        rows, cols = chunk_grid((height, width), (self.shard, self.shard))
        return [(tb, r, c) for tb in range(self.time_blocks(n_time)) for r in range(rows) for c in range(cols)]

    def shard_key(self, tb: int, row: int, col: int) -> str:
        """The data array's shard key `history/c/{tb}/0/{r}/{c}`."""
        return self.data.shard_key(tb, row, col)

    @staticmethod
    def shard_id(tb: int, row: int, col: int) -> str:
        """The shard's entry in `shard_bytes`: "{tb}/{r}/{c}"."""
        return shard_id(tb, row, col)

    def locate(self, y: int, x: int) -> tuple[int, int, int]:
        """(row, col, inner position) of pixel (y, x): its shard and the row-major index of its
        inner chunk within the shard."""
        row, col = y // self.shard, x // self.shard
        iy, ix = (y % self.shard) // self.inner, (x % self.shard) // self.inner
        return row, col, iy * self.per_side + ix

    def inner_window(self, position: int) -> tuple[slice, slice]:
        """The (y, x) pixels of inner chunk `position` relative to its shard's corner."""
        iy, ix = divmod(position, self.per_side)
        p = self.inner
        return slice(iy * p, (iy + 1) * p), slice(ix * p, (ix + 1) * p)

    def grown(self, shard_bytes: Mapping[str, int], mask_shard_bytes: Mapping[str, int] | None = None) -> HistoryLayout:
        """The declaration after shards were (re)written: their lengths replace or join the old ones."""
        mask = None if self.mask_shard_bytes is None else {**self.mask_shard_bytes, **(mask_shard_bytes or {})}
        return replace(self, shard_bytes={**self.shard_bytes, **shard_bytes}, mask_shard_bytes=mask)

    def written(self, by_path: Mapping[str, Mapping[str, int]]) -> HistoryLayout:
        """`grown` with the lengths of a write keyed by array path (`history`, `history_mask`,
        `history_1`...), at every level."""
        mine = self.grown(by_path.get(self.path, {}), by_path.get(self.mask_path, {}))
        return replace(mine, coarse=tuple(layout.written(by_path) for layout in self.coarse))

    def to_dict(self) -> dict[str, Any]:
        """The root block's `history` object: level 0's fields, then (version 1.3 on) `levels`
        mapping each coarser level with a history to its paths and shard lengths."""
        out: dict[str, Any] = {
            "version": self.version,
            "path": self.path,
            "time_cap": self.time_cap,
            "chunk_shape": list(self.chunk_shape),
            "shard_shape": list(self.shard_shape),
            **self._lengths(),
        }
        if version_tuple(self.version) >= LEVELS_SINCE:
            out["levels"] = {str(level.level): {"path": level.path, **level._lengths()} for level in self.coarse}
        return out

    def _lengths(self) -> dict[str, Any]:
        out: dict[str, Any] = {"shard_bytes": ordered(self.shard_bytes)}
        if self.mask_shard_bytes is not None:
            out["mask_path"] = self.mask_path
            out["mask_shard_bytes"] = ordered(self.mask_shard_bytes)
        return out

    @classmethod
    def from_dict(cls, value: Any) -> HistoryLayout:
        """Parse a declaration; HistoryError names the first field that breaks a rule."""
        if not isinstance(value, Mapping):
            raise HistoryError(f"chronozarr.history must be an object, got {type(value).__name__}")
        version = value.get("version")
        if not isinstance(version, str) or version.split(".")[0] != MAJOR or len(version.split(".")) != 2 or not version.split(".")[1].isdecimal():
            raise HistoryError(f"chronozarr.history.version must be \"{MAJOR}.<minor>\" (this reader knows {HISTORY_VERSION}), got {version!r}")
        if value.get("path") != HISTORY_PATH:
            raise HistoryError(f"chronozarr.history.path must be {HISTORY_PATH!r}, got {value.get('path')!r}")
        cap = positive(value.get("time_cap"), "time_cap")
        chunk, shard = shape4(value.get("chunk_shape"), "chunk_shape"), shape4(value.get("shard_shape"), "shard_shape")
        if chunk[0] != cap or shard[0] != cap:
            raise HistoryError(f"chronozarr.history.time_cap {cap} must equal chunk_shape[0] and shard_shape[0], got {chunk[0]} and {shard[0]}")
        if chunk[1] != shard[1] or chunk[2] != chunk[3] or shard[2] != shard[3]:
            raise HistoryError(f"chronozarr.history.chunk_shape {list(chunk)} and shard_shape {list(shard)} must be [T, n_band, p, p] and [T, n_band, S, S]")
        if chunk[2] % 2 or shard[2] % chunk[2]:
            raise HistoryError(f"chronozarr.history.chunk_shape: p = {chunk[2]} must be even and divide S = {shard[2]}")
        top = cls(cap, chunk[1], chunk[2], shard[2], shard_lengths(value.get("shard_bytes"), "shard_bytes"), version, mask_shard_bytes=mask_lengths(value, 0))
        # `levels` is a 1.3 field: an earlier declaration that carries one is read as level 0's only.
        return replace(top, coarse=top._coarse(value.get("levels")) if version_tuple(version) >= LEVELS_SINCE else ())

    def _coarse(self, value: Any) -> tuple[HistoryLayout, ...]:
        """The coarser levels' layouts from `levels` (absent before 1.3: none). Each has a mask copy
        exactly when level 0's history has one: a store has a mask at every level or at none."""
        if value is None:
            return ()
        if not isinstance(value, Mapping):
            raise HistoryError(f"chronozarr.history.levels must map level numbers to their history, got {type(value).__name__}")
        out = []
        for key in sorted(value, key=lambda k: int(k) if str(k).isdecimal() else -1):
            name = f"levels.{key}"
            if not str(key).isdecimal() or int(key) < 1:
                raise HistoryError(f"chronozarr.history.{name}: a coarser level is a number >= 1, got {key!r}")
            level, entry = int(key), value[key]
            if not isinstance(entry, Mapping):
                raise HistoryError(f"chronozarr.history.{name} must be an object, got {type(entry).__name__}")
            if entry.get("path") != history_path(level):
                raise HistoryError(f"chronozarr.history.{name}.path must be {history_path(level)!r}, got {entry.get('path')!r}")
            mask = mask_lengths(entry, level)
            if (mask is None) != (self.mask_shard_bytes is None):
                raise HistoryError(f"chronozarr.history.{name}: a mask copy must be declared at every level with a history or at none")
            layout = self.for_level(level)
            out.append(replace(layout, shard_bytes=shard_lengths(entry.get("shard_bytes"), f"{name}.shard_bytes"), mask_shard_bytes=mask))
        return tuple(out)
