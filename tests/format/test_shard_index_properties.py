"""The shard index (spec 7.2) for random layouts: what the writer encodes parses back entry for
entry, every byte of it is guarded by the checksum, and entries that break a rule are refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_settings import PROPERTIES

from chronozarr.format.shard_index import data_span, encode_index, index_nbytes, parse_index

EMPTY = 2**64 - 1  # spec 7.2: both values of a chunk that is not stored


@st.composite
def layouts(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """Entries of a shard whose stored chunks follow one another in a random order, some absent,
    and the length of the object (data, then the index at the end)."""
    n = draw(st.integers(1, 24))
    sizes = draw(st.lists(st.none() | st.integers(1, 5000), min_size=n, max_size=n))
    order = draw(st.permutations(range(n)))
    entries = np.full((n, 2), EMPTY, dtype=np.uint64)
    offset = 0
    for i in order:
        if sizes[i] is not None:
            entries[i] = (offset, sizes[i])
            offset += sizes[i]
    return entries, offset + 16 * n + 4


@PROPERTIES
@given(layout=layouts())
def test_an_encoded_index_parses_back_to_its_entries(layout: tuple[np.ndarray, int]) -> None:
    entries, length = layout
    raw = encode_index(entries)
    assert len(raw) == index_nbytes(len(entries)) == 16 * len(entries) + 4
    assert raw[:-4] == b"".join(int(v).to_bytes(8, "little") for v in entries.ravel())
    np.testing.assert_array_equal(parse_index(raw, len(entries), data_span(len(entries), True, length)), entries)
    np.testing.assert_array_equal(parse_index(raw, len(entries), data_span(len(entries), True, None)), entries)


@PROPERTIES
@given(layout=layouts(), data=st.data())
def test_any_changed_byte_is_refused(layout: tuple[np.ndarray, int], data: st.DataObject) -> None:
    entries, length = layout
    raw = bytearray(encode_index(entries))
    at = data.draw(st.integers(0, len(raw) - 1))
    raw[at] ^= data.draw(st.integers(1, 255))
    with pytest.raises(ValueError):
        parse_index(bytes(raw), len(entries), data_span(len(entries), True, length))


@PROPERTIES
@given(layout=layouts(), data=st.data())
def test_entries_that_break_a_rule_are_refused_under_a_valid_checksum(layout: tuple[np.ndarray, int], data: st.DataObject) -> None:
    entries, length = layout
    n = len(entries)
    i = data.draw(st.integers(0, n - 1))
    broken = entries.copy()
    stored = [j for j in range(n) if entries[j, 0] != EMPTY and j != i]
    rules = ["half empty", "zero bytes", "past the data"] + (["repeats another"] if stored else [])
    rule = data.draw(st.sampled_from(rules))
    if rule == "half empty":
        broken[i] = (EMPTY, 8)
    elif rule == "zero bytes":
        broken[i] = (0, 0)
    elif rule == "past the data":
        broken[i] = (length - 16 * n - 4, 1)  # the first byte of the index
    else:
        broken[i] = entries[data.draw(st.sampled_from(stored))]
    with pytest.raises(ValueError):
        parse_index(encode_index(broken), n, data_span(n, True, length))
