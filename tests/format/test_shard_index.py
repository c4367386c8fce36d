"""The shard index of spec 7.2: size, checksum, and entries that must each have bytes of their own
inside the shard's data. Raw indexes are built here with struct and google_crc32c."""

from __future__ import annotations

import struct

import google_crc32c
import numpy as np
import pytest

from chronozarr.format.shard_index import EMPTY, data_span, encode_index, index_nbytes, parse_index


def _raw(pairs: list[tuple[int, int]]) -> bytes:
    body = b"".join(struct.pack("<QQ", o, n) for o, n in pairs)
    return body + struct.pack("<I", google_crc32c.value(body))


def test_size_and_encoding_match_the_spec():
    assert index_nbytes(4) == 16 * 4 + 4
    pairs = [(0, 10), (EMPTY, EMPTY), (10, 5)]
    assert encode_index(np.array(pairs, dtype=np.uint64)) == _raw(pairs)


def test_a_good_index_parses_with_empty_entries():
    entries = parse_index(_raw([(0, 10), (EMPTY, EMPTY), (10, 5)]), 3, data_span(3, True, 15 + index_nbytes(3)))
    assert entries.tolist() == [[0, 10], [EMPTY, EMPTY], [10, 5]]


@pytest.mark.parametrize(
    ("pairs", "span", "words"),
    [
        ([(0, 10), (0, 10)], (0, 100), "entries 0 .* and 1 .* repeat each other"),
        ([(0, 10), (5, 10)], (0, 100), "entries 0 .* and 1 .* overlap"),
        ([(20, 10), (0, 25)], (0, 100), "entries 0 .* and 1 .* overlap"),
        ([(0, 10), (95, 10)], (0, 100), "entry 1 .* does not lie inside bytes 0-99"),
        ([(0, 10), (2**64 - 2, 10)], (0, None), "entry 1 .* does not lie past the index"),
        ([(0, 10), (10, 2**64 - 5)], (0, 100), "entry 1 .* does not lie inside"),
        ([(10, 10), (30, 10)], (36, 100), "entry 0 .* does not lie"),
        ([(EMPTY, 10), (0, 10)], (0, 100), "entry 0 is half empty"),
        ([(0, 0), (0, 10)], (0, 100), "entry 0 stores a chunk of 0 bytes"),
    ],
)
def test_entries_that_break_a_rule_are_refused_naming_them(pairs, span, words):
    with pytest.raises(ValueError, match=words):
        parse_index(_raw(pairs), len(pairs), span)


def test_a_wrong_checksum_or_size_is_refused():
    raw = bytearray(_raw([(0, 10)]))
    raw[0] ^= 1
    with pytest.raises(ValueError, match="checksum"):
        parse_index(bytes(raw), 1, (0, 100))
    with pytest.raises(ValueError, match="expected 20"):
        parse_index(_raw([(0, 10), (10, 10)]), 1, (0, 100))
