"""One chunk to its stored bytes: compressed, or nothing when it holds only the fill value."""

from __future__ import annotations

import numpy as np

from ..format.codecs import CodecSpec


def is_all_fill(chunk: np.ndarray, fill: float) -> bool:
    """True when every element equals fill; most chunks are told apart by their first element."""
    value = np.asarray(fill, dtype=chunk.dtype)
    if chunk.size and chunk.flat[0] != value:
        return False
    return bool(np.all(chunk == value))


def encode_chunk(codec: CodecSpec, chunk: np.ndarray, fill: float) -> bytes | None:
    """Compressed little-endian chunk bytes, or None for an all-fill chunk (which is not stored)."""
    if is_all_fill(chunk, fill):
        return None
    little = chunk.astype(chunk.dtype.newbyteorder("<"), copy=False)
    return codec.encode(little, chunk.dtype)
