"""The time-major history array (docs/format-history.md): its declaration in the root block, its
geometry (time blocks, shards, inner chunks, keys) and the rules it must meet against level 0.

The writer, append, the reader, the validator and doctor all place history objects through
`HistoryLayout`, so a key, an index length or a default is computed in one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .geometry import chunk_grid, object_key, parse_shard_id, shard_id
from .shard_index import index_nbytes

HISTORY_VERSION = "1.0"
HISTORY_PATH = "history"
HISTORY_DIMS = ("time", "band", "y", "x")
DEFAULT_INNER = 16
MIN_TIME_CAP, MAX_TIME_CAP = 16, 1024
_MAJOR = HISTORY_VERSION.split(".")[0]


class HistoryError(ValueError):
    """A declaration a reader cannot use; the message names the field (`chronozarr.history.<field>`)."""


def default_time_cap(n_time: int) -> int:
    """n_time rounded up to a power of two, at least MIN_TIME_CAP and at most MAX_TIME_CAP: a
    decade of monthly or 5-daily data is one time block."""
    return min(MAX_TIME_CAP, max(MIN_TIME_CAP, 1 << max(0, n_time - 1).bit_length()))


def default_inner(chunk_size: int) -> int:
    """The inner chunk's edge p: 16 when it divides cs, else the largest even divisor of cs below 16."""
    return math.gcd(chunk_size, DEFAULT_INNER)


@dataclass(frozen=True)
class HistoryLayout:
    """The history array's declaration and geometry: inner chunks [T, n_band, p, p] in shards
    [T, n_band, S, S]; time block tb holds timesteps tb*T .. tb*T + T - 1."""

    time_cap: int
    n_band: int
    inner: int
    shard: int
    shard_bytes: Mapping[str, int] = field(default_factory=dict)
    version: str = HISTORY_VERSION
    path: str = HISTORY_PATH

    @classmethod
    def create(cls, n_time: int, n_band: int, chunk_size: int, time_cap: int | None = None, inner: int | None = None) -> HistoryLayout:
        """A writer's layout: S = cs, T and p as given or the defaults; ValueError names a bad choice."""
        cap = default_time_cap(n_time) if time_cap is None else time_cap
        p = default_inner(chunk_size) if inner is None else inner
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ValueError(f"history_time must be an integer >= 1, got {cap!r}")
        if isinstance(p, bool) or not isinstance(p, int) or p < 2 or p % 2 or chunk_size % p:
            raise ValueError(f"the history inner chunk must be even and divide the chunk size {chunk_size}, got {p!r}")
        return cls(cap, n_band, p, chunk_size)

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
        """`history/c/{tb}/0/{r}/{c}`: the band chunk index is always 0."""
        return object_key(self.path, (tb, 0, row, col))

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

    def grown(self, shard_bytes: Mapping[str, int]) -> HistoryLayout:
        """The declaration after shards were (re)written: their lengths replace or join the old ones."""
        return replace(self, shard_bytes={**self.shard_bytes, **shard_bytes})

    def to_dict(self) -> dict[str, Any]:
        ordered = sorted(self.shard_bytes.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("/")))
        return {
            "version": self.version,
            "path": self.path,
            "time_cap": self.time_cap,
            "chunk_shape": list(self.chunk_shape),
            "shard_shape": list(self.shard_shape),
            "shard_bytes": dict(ordered),
        }

    @classmethod
    def from_dict(cls, value: Any) -> HistoryLayout:
        """Parse a declaration; HistoryError names the first field that breaks a rule."""
        if not isinstance(value, Mapping):
            raise HistoryError(f"chronozarr.history must be an object, got {type(value).__name__}")
        version = value.get("version")
        if not isinstance(version, str) or version.split(".")[0] != _MAJOR or len(version.split(".")) != 2:
            raise HistoryError(f"chronozarr.history.version must be \"{_MAJOR}.<minor>\" (this reader knows {HISTORY_VERSION}), got {version!r}")
        if value.get("path") != HISTORY_PATH:
            raise HistoryError(f"chronozarr.history.path must be {HISTORY_PATH!r}, got {value.get('path')!r}")
        cap = _positive(value.get("time_cap"), "time_cap")
        chunk = _shape(value.get("chunk_shape"), "chunk_shape")
        shard = _shape(value.get("shard_shape"), "shard_shape")
        if chunk[0] != cap or shard[0] != cap:
            raise HistoryError(f"chronozarr.history.time_cap {cap} must equal chunk_shape[0] and shard_shape[0], got {chunk[0]} and {shard[0]}")
        if chunk[1] != shard[1] or chunk[2] != chunk[3] or shard[2] != shard[3]:
            raise HistoryError(f"chronozarr.history.chunk_shape {list(chunk)} and shard_shape {list(shard)} must be [T, n_band, p, p] and [T, n_band, S, S]")
        if chunk[2] % 2 or shard[2] % chunk[2]:
            raise HistoryError(f"chronozarr.history.chunk_shape: p = {chunk[2]} must be even and divide S = {shard[2]}")
        return cls(cap, chunk[1], chunk[2], shard[2], _shard_bytes(value.get("shard_bytes")), version)

    def problems(self, level0: HistoryArray, array: HistoryArray) -> list[tuple[str, str]]:
        """(field, rule broken) of every disagreement between this declaration, the history array's
        document and level 0's data array; empty when a reader may use the array."""
        out: list[tuple[str, str]] = []
        cs = level0.chunk_shape[-1]
        if self.n_band != level0.shape[1]:
            out.append(("chunk_shape", f"declares {self.n_band} bands, level 0 has {level0.shape[1]}"))
        if self.shard % cs or cs % self.inner:
            out.append(("shard_shape", f"S = {self.shard} must be a multiple of level 0's chunk size {cs}, which p = {self.inner} must divide"))
        for name, found, expected in (
            ("shape", tuple(array.shape), tuple(level0.shape)),
            ("chunk_shape", tuple(array.chunk_shape), self.chunk_shape),
            ("shard_shape", tuple(array.shard_shape or ()), self.shard_shape),
        ):
            if found != expected:
                where = "level 0's data shape" if name == "shape" else "the declaration's"
                out.append((name, f"the history array's {name} {list(found)} is not {where} {list(expected)}"))
        if array.dtype != level0.dtype or not _same_value(array.fill_value, level0.fill_value):
            mine, theirs = f"{array.dtype} with fill {array.fill_value!r}", f"{level0.dtype} with fill {level0.fill_value!r}"
            out.append(("path", f"the history array is {mine}; level 0 is {theirs}"))
        if not array.index_at_end:
            out.append(("shard_shape", "the history array's shard index must be at the end"))
        return out


@dataclass(frozen=True)
class HistoryArray:
    """What `problems` compares of an array document (the history array's, or level 0's data
    array's), as the reader or the validator parsed it."""

    shape: Sequence[int]
    dtype: str
    fill_value: Any
    chunk_shape: Sequence[int]
    shard_shape: Sequence[int] | None = None
    index_at_end: bool = True


def _same_value(a: Any, b: Any) -> bool:
    """Equal fill values, NaN equal to NaN."""
    return bool(a == b) or (a != a and b != b)


def history_shard_of(key: str) -> tuple[int, int, int] | None:
    """(tb, row, col) of a history shard key `history/c/{tb}/0/{r}/{c}`, else None."""
    prefix = f"{HISTORY_PATH}/c/"
    if not key.startswith(prefix):
        return None
    parts = key[len(prefix) :].split("/")
    if len(parts) != 4 or parts[1] != "0":
        return None
    return parse_shard_id("/".join((parts[0], parts[2], parts[3])))


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise HistoryError(f"chronozarr.history.{name} must be a positive integer, got {value!r}")
    return value


def _shape(value: Any, name: str) -> tuple[int, int, int, int]:
    if not isinstance(value, list) or len(value) != 4:
        raise HistoryError(f"chronozarr.history.{name} must be a list of 4 positive integers, got {value!r}")
    t, b, y, x = (_positive(v, name) for v in value)
    return (t, b, y, x)


def _shard_bytes(value: Any) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise HistoryError(f"chronozarr.history.shard_bytes must map \"tb/r/c\" to byte lengths, got {type(value).__name__}")
    for key, n in value.items():
        if parse_shard_id(str(key)) is None or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise HistoryError(f"chronozarr.history.shard_bytes[{key!r}] must be a \"tb/r/c\" key with a byte length, got {n!r}")
    return dict(value)
