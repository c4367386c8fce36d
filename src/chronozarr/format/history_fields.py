"""The history extension's plain facts (docs/format-history.md): its version, array paths,
the writer's defaults for T and p, and the checks of single declaration fields. Nothing here
needs a layout, so format/history.py builds on it without a cycle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import HistoryError
from .codecs import BITSHUFFLE, CodecSpec
from .geometry import parse_shard_id

HISTORY_VERSION = "1.3"
HISTORY_PATH = "history"
HISTORY_MASK_PATH = "history_mask"
LEVELS_SINCE = (1, 3)  # from version 1.3 coarser levels may have their own history (`levels`)
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
MAJOR = HISTORY_VERSION.split(".")[0]


def history_path(level: int) -> str:
    """The data history's path for a level: `history` at level 0 (where versions 1.0 to 1.2 put
    it), `history_{k}` at coarser level k."""
    return HISTORY_PATH if level == 0 else f"{HISTORY_PATH}_{level}"


def history_mask_path(level: int) -> str:
    """The mask copy's path for a level: `history_mask`, then `history_mask_{k}`."""
    return HISTORY_MASK_PATH if level == 0 else f"{HISTORY_MASK_PATH}_{level}"


def version_tuple(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


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


def ordered(shard_bytes: Mapping[str, int]) -> dict[str, int]:
    return dict(sorted(shard_bytes.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("/"))))


def mask_lengths(value: Mapping[str, Any], level: int) -> dict[str, int] | None:
    """A level's mask copy's shard lengths (version 1.1); None when it declares none. Either field
    without the other is a broken declaration."""
    if "mask_path" not in value and "mask_shard_bytes" not in value:
        return None
    prefix = "" if level == 0 else f"levels.{level}."
    if value.get("mask_path") != history_mask_path(level):
        raise HistoryError(
            f"chronozarr.history.{prefix}mask_path must be {history_mask_path(level)!r} beside mask_shard_bytes, got {value.get('mask_path')!r}"
        )
    return shard_lengths(value.get("mask_shard_bytes"), f"{prefix}mask_shard_bytes")


def positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise HistoryError(f"chronozarr.history.{name} must be a positive integer, got {value!r}")
    return value


def shape4(value: Any, name: str) -> tuple[int, int, int, int]:
    if not isinstance(value, list) or len(value) != 4:
        raise HistoryError(f"chronozarr.history.{name} must be a list of 4 positive integers, got {value!r}")
    t, b, y, x = (positive(v, name) for v in value)
    return (t, b, y, x)


def shard_lengths(value: Any, name: str) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise HistoryError(f"chronozarr.history.{name} must map \"tb/r/c\" to byte lengths, got {type(value).__name__}")
    for key, n in value.items():
        if parse_shard_id(str(key)) is None or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise HistoryError(f"chronozarr.history.{name}[{key!r}] must be a \"tb/r/c\" key with a byte length, got {n!r}")
    return dict(value)
