"""Bounded decoding of chunks and shard indexes of an array (format/array_doc.py parses its document).

Everything a store says is checked before it is trusted: a chunk may not decode to more than its shape holds, and a shard index must
pass its crc32c and keep every chunk inside the shard.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ChunkError, StoreError
from ..format.array_doc import ArrayDocument
from ..format.codecs import copy_into
from ..format.shard_index import data_span, parse_index


def decode_chunk(array: ArrayDocument, data: bytes | memoryview, where: str, out: np.ndarray | None = None, upto: int | None = None) -> np.ndarray:
    """Decode one stored chunk to its chunk shape, never allocating more than the shape holds.

    With `out` (a uint8 array of at least the chunk's bytes) the chunk is decoded into it and the
    result is a view of it, valid until `out` is reused. With `upto`, only the chunk's first
    `upto` bytes (in C order) are sure to be decoded: the caller reads no further."""
    expected = array.chunk_bound
    if array.codec is None:
        raw: bytes | memoryview = data if out is None or len(data) != expected else copy_into(data, out)
    else:
        try:
            raw = array.codec.decode(data, expected, array.dtype, out, upto)
        except ValueError as exc:
            raise StoreError(f"{where}: {exc}") from None
        except Exception as exc:  # codec libraries raise their own types for corrupt input
            raise StoreError(f"{where}: chunk does not decode ({type(exc).__name__}: {exc})") from None
    if len(raw) != expected:
        raise StoreError(f"{where}: chunk decodes to {len(raw)} bytes, expected {expected} for shape {list(array.chunk_shape)}")
    return np.frombuffer(raw, dtype=array.dtype.newbyteorder("<")).reshape(array.chunk_shape)


def fill_chunk(array: ArrayDocument) -> np.ndarray:
    """A chunk of fill_value, for a chunk or shard that is not stored."""
    return np.full(array.chunk_shape, array.fill, dtype=array.dtype)


def parse_shard_index(array: ArrayDocument, raw: bytes, shard_length: int | None, where: str) -> np.ndarray:
    """(chunks_per_shard, 2) offsets and lengths after the checks of spec 7.2 (format.shard_index)."""
    span = data_span(array.chunks_per_shard, array.index_at_end, shard_length)
    try:
        return parse_index(raw, array.chunks_per_shard, span)
    except ValueError as exc:
        raise StoreError(f"{where}: {exc}; the shard is damaged: re-encode or re-upload it") from None


def decode_strings(array: ArrayDocument, data: bytes, where: str) -> np.ndarray:
    """Decode a vlen-utf8 coordinate chunk (band names), within the array's chunk_bound and without
    copying the decoded bytes."""
    import numcodecs

    bound = array.chunk_bound
    try:
        if array.codec is not None:
            raw: bytes | memoryview = array.codec.decode_at_most(data, bound)
        elif len(data) > bound:
            raise ChunkError(f"chunk of {len(data)} bytes is more than the {bound} its {math.prod(array.chunk_shape)} strings can hold")
        else:
            raw = data
    except ValueError as exc:
        raise StoreError(f"{where}: {exc}") from None
    # numcodecs allocates one object per string the header counts before it reads any: a header
    # must count no more strings than the chunk holds and fit their lengths in the bytes given.
    count = int.from_bytes(bytes(raw[:4]), "little") if len(raw) >= 4 else -1
    if not 0 <= count <= math.prod(array.chunk_shape) or 4 + 4 * count > len(raw):
        raise StoreError(f"{where}: string chunk header counts {count} strings; the chunk holds {math.prod(array.chunk_shape)} in {len(raw)} bytes")
    try:
        return np.asarray(numcodecs.VLenUTF8().decode(raw), dtype=object)
    except Exception as exc:  # codec libraries raise their own types for corrupt input
        raise StoreError(f"{where}: string chunk does not decode ({type(exc).__name__}: {exc})") from None
