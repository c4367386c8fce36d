"""The shard index (spec 7.2): an (offset, nbytes) uint64 pair per inner chunk, then a crc32c.

Written by the writer and read by the reader and the validator, so its size, its empty marker and
the rules an entry must follow live here once. A shard from a stranger can carry a valid checksum
over entries that lie: one pointing into the index or past the object, or two naming the same
bytes, which would make one timestep read as another. Every entry is checked before it is used.
"""

from __future__ import annotations

import google_crc32c
import numpy as np

from ..errors import ChunkError
from ..limits import SHARD_INDEX_CHECKSUM_BYTES, SHARD_INDEX_ENTRY_BYTES

ENTRY_BYTES = SHARD_INDEX_ENTRY_BYTES  # two little-endian uint64: offset, nbytes
CHECKSUM_BYTES = SHARD_INDEX_CHECKSUM_BYTES  # crc32c of the entries, little-endian
EMPTY = 2**64 - 1  # both values of an inner chunk that is not stored


def index_nbytes(chunks: int) -> int:
    """Bytes of the index of a shard holding `chunks` inner chunks: 16 * n + 4."""
    return ENTRY_BYTES * chunks + CHECKSUM_BYTES


def empty_entries(chunks: int) -> np.ndarray:
    """(chunks, 2) entries of a shard with nothing stored yet."""
    return np.full((chunks, 2), EMPTY, dtype=np.uint64)


def encode_index(entries: np.ndarray) -> bytes:
    """The stored index: the entries as little-endian uint64 pairs, then their crc32c."""
    body = np.ascontiguousarray(entries, dtype="<u8").tobytes()
    return body + int(google_crc32c.value(body)).to_bytes(CHECKSUM_BYTES, "little")


def data_span(chunks: int, index_at_end: bool, shard_length: int | None) -> tuple[int, int | None]:
    """(first, end) bytes an inner chunk may occupy: everything but the index; end is None when
    the shard's length is not known."""
    n = index_nbytes(chunks)
    if index_at_end:
        return 0, None if shard_length is None else shard_length - n
    return n, shard_length


def parse_index(raw: bytes, chunks: int, span: tuple[int, int | None]) -> np.ndarray:
    """(chunks, 2) entries of an index after every check; ValueError names the first that fails.

    `span` is what `data_span` gives: stored chunks must lie inside it (the end is checked only
    when known), have bytes, and not overlap or repeat one another.
    """
    if len(raw) != index_nbytes(chunks):
        raise ChunkError(f"shard index is {len(raw)} bytes, expected {index_nbytes(chunks)} for {chunks} inner chunks")
    body, checksum = raw[:-CHECKSUM_BYTES], int.from_bytes(raw[-CHECKSUM_BYTES:], "little")
    if int(google_crc32c.value(body)) != checksum:
        raise ChunkError(
            "shard index checksum mismatch (a corrupt shard, or a shard length from an outdated root zarr.json: "
            "reopen the store)"
        )
    entries = np.frombuffer(body, dtype="<u8").reshape(chunks, 2)
    check_entries(entries, span)
    return entries


def check_entries(entries: np.ndarray, span: tuple[int, int | None]) -> None:
    """The entry rules of `parse_index`, for entries already decoded (the writer's own, in tests)."""
    offsets, lengths = entries[:, 0], entries[:, 1]
    empty_offset, empty_length = offsets == EMPTY, lengths == EMPTY
    half = np.flatnonzero(empty_offset != empty_length)
    if half.size:
        raise ChunkError(f"shard index entry {int(half[0])} is half empty ({_pair(entries, half[0])}): both values must be 2^64-1")
    present = np.flatnonzero(~empty_offset)
    if not present.size:
        return
    first, end = span
    off, size = offsets[present], lengths[present]
    zero = np.flatnonzero(size == 0)
    if zero.size:
        raise ChunkError(f"shard index entry {int(present[zero[0]])} stores a chunk of 0 bytes")
    limit = np.uint64(EMPTY) if end is None else np.uint64(max(end, 0))
    # off + size <= limit, written so that neither side can wrap around 2^64
    outside = (off < np.uint64(first)) | (off > limit) | (size > limit - np.minimum(off, limit))
    if end is not None and end < first:
        outside[:] = True
    bad = np.flatnonzero(outside)
    if bad.size:
        where = "past the index" if end is None else f"inside bytes {first}-{end - 1}, the shard's data"
        i = int(present[bad[0]])
        raise ChunkError(f"shard index entry {i} ({_pair(entries, i)}) does not lie {where}")
    order = np.argsort(off, kind="stable")
    ends = off[order] + size[order]
    clash = np.flatnonzero(ends[:-1] > off[order][1:])
    if clash.size:
        i, j = sorted((int(present[order[clash[0]]]), int(present[order[clash[0] + 1]])))
        same = entries[i, 0] == entries[j, 0] and entries[i, 1] == entries[j, 1]
        kind = "repeat each other" if same else "overlap"
        raise ChunkError(
            f"shard index entries {i} ({_pair(entries, i)}) and {j} ({_pair(entries, j)}) {kind}: "
            "each inner chunk must have bytes of its own"
        )


def _pair(entries: np.ndarray, i: int) -> str:
    return f"offset {int(entries[i, 0])}, {int(entries[i, 1])} bytes"
