"""The hostile corpus classes its damage correctly: a shard whose bytes change inside one stored
inner chunk only is damage to that chunk (which a --checksum store must refuse and an unchecksummed
one may not notice); any other change to a shard is not."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus_cases import OBJECTS, _one_piece_changed  # noqa: E402
from hostile_stores import N_TIME  # noqa: E402

SHARD = next(v for k, v in sorted(OBJECTS["sharded"].items()) if "/data/c/" in k)
# The index at the end: (offset, length) as two little-endian uint64 per timestep, then a crc32c.
ENTRIES = [tuple(int(v) for v in e) for e in np.frombuffer(SHARD[-4 - 16 * N_TIME : -4], dtype="<u8").reshape(-1, 2)]
STORED = [(o, n) for o, n in ENTRIES if o != 2**64 - 1]


def _flip(data: bytes, *offsets: int) -> bytes:
    out = bytearray(data)
    for offset in offsets:
        out[offset] ^= 0x5A
    return bytes(out)


def test_bytes_changed_inside_one_inner_chunk_are_that_chunks_damage() -> None:
    offset, length = STORED[1]
    damaged = _flip(SHARD, offset + 2, offset + length - 1)
    assert _one_piece_changed(SHARD, damaged) == damaged[offset : offset + length]


def test_bytes_changed_in_two_inner_chunks_or_the_index_are_not_one_chunks_damage() -> None:
    (first, _), (second, _) = STORED[0], STORED[1]
    assert _one_piece_changed(SHARD, _flip(SHARD, first + 1, second + 1)) is None
    assert _one_piece_changed(SHARD, _flip(SHARD, len(SHARD) - 10)) is None


def test_a_shard_cut_or_left_unchanged_is_not_one_chunks_damage() -> None:
    assert _one_piece_changed(SHARD, SHARD[:-1]) is None
    assert _one_piece_changed(SHARD, SHARD) is None
