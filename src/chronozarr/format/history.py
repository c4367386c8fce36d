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

import numpy as np

from ..errors import HistoryError, SettingError
from .array_doc import ArrayDocument, object_key
from .codecs import BITSHUFFLE, CodecSpec
from .geometry import chunk_grid, parse_shard_id, shard_id
from .shard_index import index_nbytes

HISTORY_VERSION = "1.2"
HISTORY_PATH = "history"
HISTORY_MASK_PATH = "history_mask"
HISTORY_DIMS = ("time", "band", "y", "x")
HISTORY_MASK_DIMS = ("time", "y", "x")
DEFAULT_INNER = 16
MIN_INNER = 8
INNER_BUDGET = 256 * 1024  # bytes of one inner chunk before compression, chosen by default
# The data history's compressor from version 1.2 (docs/format-history.md, "Codecs"): blosc's bit
# shuffle puts the bit planes of a pixel's slowly changing values side by side, which zstd
# compresses below star-delta residuals; blosc's clevel 5 is zstd level 9.
HISTORY_CODEC = CodecSpec("blosc", 5, "zstd", BITSHUFFLE)
OWN_CODEC_SINCE = (1, 2)
MAX_TIME_CAP = 1024
_MAJOR = HISTORY_VERSION.split(".")[0]


def default_time_cap(n_time: int) -> int:
    """n_time rounded up to a power of two, at most MAX_TIME_CAP: a decade of monthly or 5-daily
    data is one time block, and a short series is not padded to many times its values (every
    padded timestep is compressed like a real one: 16 for one date cost 3x its encode)."""
    return min(MAX_TIME_CAP, 1 << max(0, n_time - 1).bit_length())


def default_inner(chunk_size: int, time_cap: int, n_band: int, itemsize: int) -> int:
    """The inner chunk's edge p: 16 when it divides cs (else the largest even divisor of cs below
    16), halved down to 8 while one inner chunk would hold more than INNER_BUDGET bytes before
    compression, so a pixel's history stays a small read however many dates and bands a block has."""
    p = math.gcd(chunk_size, DEFAULT_INNER)
    while p > MIN_INNER and p % 4 == 0 and time_cap * n_band * p * p * itemsize > INNER_BUDGET:
        p //= 2
    return p


@dataclass(frozen=True)
class HistoryPart:
    """One array of the history: the data values (`history`, [T, n_band, p, p] inner chunks) or the
    mask copy (`history_mask`, [T, p, p], no band axis). Both share the layout's time blocks,
    shards and inner positions; they differ in path, leading axes, keys and shard lengths."""

    path: str
    lead: tuple[int, ...]  # (n_band,) for the data, () for the mask copy
    time_cap: int
    inner: int
    shard: int
    shard_bytes: Mapping[str, int]

    @property
    def is_mask(self) -> bool:
        return self.path == HISTORY_MASK_PATH

    def codec(self, version: str, level0: CodecSpec) -> CodecSpec:
        """The codec inside this array's shards: level 0's for the mask copy and for a data
        history declared before 1.2, else HISTORY_CODEC with level 0's checksum choice."""
        if self.is_mask or tuple(int(v) for v in version.split(".")) < OWN_CODEC_SINCE:
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
    None when the history has no mask copy (a store without a mask, or a version 1.0 writer)."""

    time_cap: int
    n_band: int
    inner: int
    shard: int
    shard_bytes: Mapping[str, int] = field(default_factory=dict)
    version: str = HISTORY_VERSION
    path: str = HISTORY_PATH
    mask_shard_bytes: Mapping[str, int] | None = None

    @classmethod
    def create(
        cls, n_time: int, n_band: int, chunk_size: int, time_cap: int | None = None, inner: int | None = None, mask: bool = False,
        dtype: str = "uint16",
    ) -> HistoryLayout:
        """A writer's layout: S = cs, T and p as given or the defaults (p from the values' `dtype`),
        a mask copy when the store has a mask; ValueError names a bad choice."""
        cap = default_time_cap(n_time) if time_cap is None else time_cap
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise SettingError(f"history_time must be an integer >= 1, got {cap!r}")
        p = default_inner(chunk_size, cap, n_band, np.dtype(dtype).itemsize) if inner is None else inner
        if isinstance(p, bool) or not isinstance(p, int) or p < 2 or p % 2 or chunk_size % p:
            raise SettingError(f"the history inner chunk must be even and divide the chunk size {chunk_size}, got {p!r}")
        return cls(cap, n_band, p, chunk_size, mask_shard_bytes={} if mask else None)

    @property
    def data(self) -> HistoryPart:
        return HistoryPart(self.path, (self.n_band,), self.time_cap, self.inner, self.shard, self.shard_bytes)

    @property
    def mask(self) -> HistoryPart | None:
        """The mask copy, when declared."""
        if self.mask_shard_bytes is None:
            return None
        return HistoryPart(HISTORY_MASK_PATH, (), self.time_cap, self.inner, self.shard, self.mask_shard_bytes)

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
        """`grown` with the lengths of a write keyed by array path (`history`, `history_mask`)."""
        return self.grown(by_path.get(self.path, {}), by_path.get(HISTORY_MASK_PATH, {}))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version,
            "path": self.path,
            "time_cap": self.time_cap,
            "chunk_shape": list(self.chunk_shape),
            "shard_shape": list(self.shard_shape),
            "shard_bytes": _ordered(self.shard_bytes),
        }
        if self.mask_shard_bytes is not None:
            out["mask_path"] = HISTORY_MASK_PATH
            out["mask_shard_bytes"] = _ordered(self.mask_shard_bytes)
        return out

    @classmethod
    def from_dict(cls, value: Any) -> HistoryLayout:
        """Parse a declaration; HistoryError names the first field that breaks a rule."""
        if not isinstance(value, Mapping):
            raise HistoryError(f"chronozarr.history must be an object, got {type(value).__name__}")
        version = value.get("version")
        if not isinstance(version, str) or version.split(".")[0] != _MAJOR or len(version.split(".")) != 2 or not version.split(".")[1].isdecimal():
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
        return cls(cap, chunk[1], chunk[2], shard[2], _shard_bytes(value.get("shard_bytes"), "shard_bytes"), version, mask_shard_bytes=_mask(value))

    def problems(
        self, level0: ArrayDocument, array: ArrayDocument, mask0: ArrayDocument | None = None, mask_array: ArrayDocument | None = None
    ) -> list[tuple[str, str]]:
        """(field, rule broken) of every disagreement between this declaration, the history arrays'
        documents (data, and the mask copy when declared) and level 0's data and mask arrays;
        empty when a reader may use the history."""
        out: list[tuple[str, str]] = []
        cs = level0.chunk_shape[-1]
        if self.n_band != level0.shape[1]:
            out.append(("chunk_shape", f"declares {self.n_band} bands, level 0 has {level0.shape[1]}"))
        if self.shard % cs or cs % self.inner:
            out.append(("shard_shape", f"S = {self.shard} must be a multiple of level 0's chunk size {cs}, which p = {self.inner} must divide"))
        out += _array_problems(self.data, level0, array, "path")
        mask = self.mask
        if mask is not None:
            if mask0 is None:
                out.append(("mask_path", "declares a mask copy but the store has no mask"))
            elif mask_array is None:
                out.append(("mask_path", f"the mask copy {HISTORY_MASK_PATH!r} has no usable array document"))
            else:
                out += [("mask_path", rule) for _, rule in _array_problems(mask, mask0, mask_array, "mask_path")]
        return out


def _array_problems(part: HistoryPart, level0: ArrayDocument, array: ArrayDocument, dtype_field: str) -> list[tuple[str, str]]:
    """One history array's document against level 0's array it copies and the declaration."""
    out: list[tuple[str, str]] = []
    name_of = f"the {part.path} array's"
    for name, found, expected in (
        ("shape", tuple(array.shape), tuple(level0.shape)),
        ("chunk_shape", tuple(array.chunk_shape), part.chunk_shape),
        ("shard_shape", tuple(array.shard_shape or ()), part.shard_shape),
    ):
        if found != expected:
            where = "level 0's shape" if name == "shape" else "the declaration's"
            out.append((name, f"{name_of} {name} {list(found)} is not {where} {list(expected)}"))
    if array.data_type != level0.data_type or not _same_value(array.fill, level0.fill):
        mine, theirs = f"{array.data_type} with fill {array.fill!r}", f"{level0.data_type} with fill {level0.fill!r}"
        out.append((dtype_field, f"the {part.path} array is {mine}; level 0 is {theirs}"))
    if not array.index_at_end:
        out.append(("shard_shape", f"{name_of} shard index must be at the end"))
    return out


def _same_value(a: Any, b: Any) -> bool:
    """Equal fill values, NaN equal to NaN."""
    return bool(a == b) or (a != a and b != b)


def _ordered(shard_bytes: Mapping[str, int]) -> dict[str, int]:
    return dict(sorted(shard_bytes.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("/"))))


def _mask(value: Mapping[str, Any]) -> dict[str, int] | None:
    """The mask copy's shard lengths (version 1.1); None when the declaration has none. Either
    field without the other is a broken declaration."""
    if "mask_path" not in value and "mask_shard_bytes" not in value:
        return None
    if value.get("mask_path") != HISTORY_MASK_PATH:
        raise HistoryError(f"chronozarr.history.mask_path must be {HISTORY_MASK_PATH!r} beside mask_shard_bytes, got {value.get('mask_path')!r}")
    return _shard_bytes(value.get("mask_shard_bytes"), "mask_shard_bytes")


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise HistoryError(f"chronozarr.history.{name} must be a positive integer, got {value!r}")
    return value


def _shape(value: Any, name: str) -> tuple[int, int, int, int]:
    if not isinstance(value, list) or len(value) != 4:
        raise HistoryError(f"chronozarr.history.{name} must be a list of 4 positive integers, got {value!r}")
    t, b, y, x = (_positive(v, name) for v in value)
    return (t, b, y, x)


def _shard_bytes(value: Any, name: str) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise HistoryError(f"chronozarr.history.{name} must map \"tb/r/c\" to byte lengths, got {type(value).__name__}")
    for key, n in value.items():
        if parse_shard_id(str(key)) is None or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise HistoryError(f"chronozarr.history.{name}[{key!r}] must be a \"tb/r/c\" key with a byte length, got {n!r}")
    return dict(value)
