"""Every object of a fixed set of stores hashes to the list committed before the writer changed.

The list (store_hashes.json) is an independent oracle: it was written by the earlier
whole-timestep writer, so these tests fail if any layout, codec or dtype gains or loses a byte,
whatever the block size (2 cells: five phases of one level each; 4: three phases; default: one).
"""

from __future__ import annotations

import json

import pytest

from store_matrix import CASES, HASHES, encode_case, object_hashes

EXPECTED = json.loads(HASHES.read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_store_objects_match_the_committed_hashes(tmp_path, name):
    assert object_hashes(encode_case(name, tmp_path / name)) == EXPECTED[name]


@pytest.mark.parametrize("block_size", [2, 4])
@pytest.mark.parametrize("name", sorted(CASES))
def test_any_block_size_writes_the_same_objects(tmp_path, name, block_size):
    assert object_hashes(encode_case(name, tmp_path / name, block_size=block_size)) == EXPECTED[name]
