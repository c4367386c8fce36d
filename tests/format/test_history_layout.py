"""The history array's model (format/history.py): defaults, keys and positions against a
brute-force placement, parsing that names the field, and what a publish accepts as its growth."""

from __future__ import annotations

import numpy as np
import pytest

from chronozarr.format.append_rule import growth_mismatch
from chronozarr.errors import HistoryError
from chronozarr.format.codecs import CodecSpec
from chronozarr.format.history import HistoryLayout, default_time_cap
from chronozarr.format.root_block import RootBlock


@pytest.mark.parametrize(
    ("n_time", "cap"), [(1, 1), (2, 2), (5, 8), (9, 16), (16, 16), (17, 32), (120, 128), (128, 128), (129, 256), (1000, 1024), (5000, 1024)]
)
def test_the_default_time_cap_is_n_time_rounded_up_to_a_power_of_two_at_most_1024(n_time, cap):
    assert default_time_cap(n_time) == cap


def test_every_pixel_lands_in_the_inner_chunk_that_holds_it():
    layout = HistoryLayout.create(n_time=40, n_band=3, chunk_size=64, time_cap=16)
    assert (layout.inner, layout.shard, layout.inner_per_shard, layout.index_nbytes) == (16, 64, 16, 16 * 16 + 4)
    for y, x in np.random.default_rng(1).integers(0, 300, size=(50, 2)):
        row, col, position = layout.locate(int(y), int(x))
        rows, cols = layout.inner_window(position)
        assert (row * 64 + rows.start <= y < row * 64 + rows.stop) and (col * 64 + cols.start <= x < col * 64 + cols.stop)
    assert layout.shard_key(2, 1, 3) == "history/c/2/0/1/3" and layout.data.shard_of("history/c/2/0/1/3") == (2, 1, 3)
    assert layout.data.shard_of("history/c/2/1/1/3") is None and layout.data.shard_of("0/data/c/0/0/0/0") is None
    assert layout.mask is None
    assert layout.time_blocks(40) == 3 and list(layout.block_steps(2, 40)) == list(range(32, 40))
    assert layout.blocks_of([33, 1, 17, 2]) == {0: [1, 2], 1: [17], 2: [33]}


def test_a_layout_round_trips_through_its_json():
    layout = HistoryLayout.create(n_time=40, n_band=3, chunk_size=32, inner=8).grown({"1/0/0": 10, "0/0/0": 7})
    doc = layout.to_dict()
    assert doc == {
        "version": "1.3", "path": "history", "time_cap": 64, "chunk_shape": [64, 3, 8, 8], "shard_shape": [64, 3, 32, 32],
        "shard_bytes": {"0/0/0": 7, "1/0/0": 10}, "levels": {},
    }
    assert HistoryLayout.from_dict(doc) == layout


def test_the_mask_copy_has_no_band_axis_its_own_keys_and_round_trips_with_its_shard_lengths():
    layout = HistoryLayout.create(n_time=40, n_band=3, chunk_size=32, inner=8, mask=True).grown({"0/0/0": 7}, {"0/1/0": 3})
    mask = layout.mask
    assert mask is not None and [p.path for p in layout.parts] == ["history", "history_mask"]
    assert (mask.chunk_shape, mask.shard_shape, mask.dims) == ((64, 8, 8), (64, 32, 32), ("time", "y", "x"))
    assert mask.shard_key(2, 1, 3) == "history_mask/c/2/1/3" and mask.shard_of("history_mask/c/2/1/3") == (2, 1, 3)
    assert mask.shard_of("history/c/2/0/1/3") is None and layout.data.shard_of("history_mask/c/2/1/3") is None
    doc = layout.to_dict()
    assert (doc["mask_path"], doc["mask_shard_bytes"]) == ("history_mask", {"0/1/0": 3})
    assert HistoryLayout.from_dict(doc) == layout
    assert layout.written({"history": {"1/0/0": 5}, "history_mask": {"1/0/0": 2}}).mask_shard_bytes == {"0/1/0": 3, "1/0/0": 2}


def test_a_version_1_0_declaration_without_a_mask_copy_is_read_by_this_reader():
    doc = HistoryLayout.create(n_time=40, n_band=3, chunk_size=32, inner=8).to_dict() | {"version": "1.0"}
    del doc["levels"]
    layout = HistoryLayout.from_dict(doc)
    assert layout.mask is None and layout.version == "1.0" and layout.to_dict() == doc


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"version": "2.0"}, "version"),
        ({"path": "0/history"}, "path"),
        ({"time_cap": True}, "time_cap"),
        ({"time_cap": 32}, "time_cap"),
        ({"chunk_shape": [64, 3, 8]}, "chunk_shape"),
        ({"chunk_shape": [64, 3, 6, 6], "shard_shape": [64, 3, 32, 32]}, "chunk_shape"),
        ({"shard_bytes": {"0/0": 5}}, "shard_bytes"),
        ({"shard_bytes": {"0/0/0": -1}}, "shard_bytes"),
        ({"mask_path": "history_mask"}, "mask_shard_bytes"),
        ({"mask_shard_bytes": {}}, "mask_path"),
        ({"mask_path": "mask", "mask_shard_bytes": {}}, "mask_path"),
        ({"mask_path": "history_mask", "mask_shard_bytes": {"0/0/0": "9"}}, "mask_shard_bytes"),
    ],
)
def test_a_declaration_that_breaks_a_rule_is_refused_naming_the_field(change, field):
    doc = HistoryLayout.create(n_time=40, n_band=3, chunk_size=32, inner=8).to_dict() | change
    with pytest.raises(HistoryError, match=rf"chronozarr\.history\.{field}"):
        HistoryLayout.from_dict(doc)


def _block(n_time: int, history: dict | None) -> RootBlock:
    block = {
        "spec_version": "0.2.0", "variable": "data", "times": [f"2024-01-{t + 1:02d}T00:00:00Z" for t in range(n_time)],
        "bands": [{"name": "b"}], "nodata": 0, "crs": "EPSG:32631", "temporal": {"encoding": "none"},
    }
    return RootBlock.from_dict(block | ({"history": history} if history is not None else {}))


def test_a_root_block_keeps_an_unusable_declaration_as_found_with_the_reason():
    block = _block(3, {"version": "1.0", "path": "history"})
    assert block.history is None and "time_cap" in (block.history_problem or "")
    assert block.to_dict()["history"] == {"version": "1.0", "path": "history"}


def test_publish_accepts_a_grown_history_and_refuses_a_changed_one():
    layout = HistoryLayout.create(n_time=6, n_band=1, chunk_size=16, time_cap=4)
    old = _block(6, layout.grown({"0/0/0": 100, "1/0/0": 50}).to_dict())
    assert growth_mismatch(old, _block(9, layout.grown({"0/0/0": 100, "1/0/0": 80, "2/0/0": 20}).to_dict())) is None
    assert "full time block" in growth_mismatch(old, _block(9, layout.grown({"0/0/0": 101, "1/0/0": 80}).to_dict()))
    assert "added or removed" in growth_mismatch(old, _block(9, None))
    other = HistoryLayout.create(n_time=6, n_band=1, chunk_size=16, time_cap=8).to_dict()
    assert "time_cap" in growth_mismatch(old, _block(9, other))


def test_publish_refuses_a_history_whose_mask_copy_was_added_or_whose_full_mask_block_changed():
    plain = HistoryLayout.create(n_time=6, n_band=1, chunk_size=16, time_cap=4)
    masked = HistoryLayout.create(n_time=6, n_band=1, chunk_size=16, time_cap=4, mask=True)
    old = _block(6, masked.grown({"0/0/0": 100, "1/0/0": 50}, {"0/0/0": 10, "1/0/0": 5}).to_dict())
    assert growth_mismatch(old, _block(9, masked.grown({"0/0/0": 100, "1/0/0": 80}, {"0/0/0": 10, "1/0/0": 8}).to_dict())) is None
    assert "full time block" in growth_mismatch(old, _block(9, masked.grown({"0/0/0": 100, "1/0/0": 80}, {"0/0/0": 11}).to_dict()))
    assert "mask copy" in growth_mismatch(old, _block(9, plain.grown({"0/0/0": 100, "1/0/0": 80}).to_dict()))


@pytest.mark.parametrize(
    ("n_time", "n_band", "chunk_size", "dtype", "inner"),
    [
        (8, 2, 512, "uint16", 16),  # 8 x 2 x 16 x 16 x 2 = 8 KiB
        (120, 4, 256, "uint16", 16),  # T = 128: exactly 256 KiB at 16
        (200, 4, 256, "uint16", 8),  # T = 256: 512 KiB at 16, 128 KiB at 8
        (120, 4, 256, "uint8", 16),  # one byte a value: 128 KiB at 16
        (120, 4, 256, "float32", 8),  # four bytes: 512 KiB at 16, 128 KiB at 8
        (1000, 12, 512, "float32", 8),  # never below 8, however large a block is
        (40, 3, 12, "uint16", 4),  # cs 12: the largest even divisor below 16, left as it is
    ],
)
def test_the_default_inner_chunk_keeps_a_pixel_history_read_within_256_kib(n_time, n_band, chunk_size, dtype, inner):
    layout = HistoryLayout.create(n_time=n_time, n_band=n_band, chunk_size=chunk_size, dtype=dtype)
    itemsize = {"uint8": 1, "uint16": 2, "float32": 4}[dtype]
    assert layout.inner == inner
    assert layout.time_cap * n_band * inner * inner * itemsize <= 256 * 1024 or inner == 8


def test_the_data_history_has_its_own_codec_from_version_1_2_and_level_0s_before():
    level0 = CodecSpec("gzip", 6, checksum=True)
    layout = HistoryLayout.create(n_time=6, n_band=2, chunk_size=16, mask=True)
    own = layout.data.codec(layout.version, level0)
    assert (own.name, own.cname, own.shuffle, own.level, own.checksum) == ("blosc", "zstd", "bitshuffle", 5, True)
    assert layout.data.codec("1.1", level0) == level0 and layout.data.codec("1.0", level0) == level0
    assert layout.mask is not None and layout.mask.codec(layout.version, level0) == level0


def test_a_version_whose_minor_is_not_a_number_is_refused():
    declared = HistoryLayout.create(n_time=6, n_band=2, chunk_size=16).to_dict()
    with pytest.raises(HistoryError, match="version"):
        HistoryLayout.from_dict({**declared, "version": "1.x"})
