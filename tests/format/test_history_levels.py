"""Version 1.3 of the history declaration: a history per coarser level under `levels`, with the
same T, p and S as level 0's, its own paths and shard lengths; earlier declarations are level 0's
only, and a malformed entry names its field."""

from __future__ import annotations

import pytest

from chronozarr.errors import HistoryError
from chronozarr.format.history import HistoryLayout, history_mask_path, history_path


def _layout(mask: bool = False) -> HistoryLayout:
    return HistoryLayout.create(n_time=40, n_band=3, chunk_size=32, inner=8, mask=mask, n_levels=3)


def test_every_level_has_its_own_paths_and_the_geometry_of_level_0():
    layout = _layout(mask=True)
    assert layout.levels == (0, 1, 2) and [history_path(k) for k in range(3)] == ["history", "history_1", "history_2"]
    assert [history_mask_path(k) for k in range(3)] == ["history_mask", "history_mask_1", "history_mask_2"]
    coarse = layout.at(2)
    assert coarse is not None and layout.at(3) is None and layout.at(0) is layout
    assert (coarse.chunk_shape, coarse.shard_shape) == (layout.chunk_shape, layout.shard_shape)
    assert coarse.shard_key(1, 0, 2) == "history_2/c/1/0/0/2"
    assert coarse.mask is not None and coarse.mask.shard_key(1, 0, 2) == "history_mask_2/c/1/0/2"
    assert coarse.data.field == "levels.2.shard_bytes" and coarse.mask.field == "levels.2.mask_shard_bytes"
    assert [p.path for p in layout.every_part] == ["history", "history_mask", "history_1", "history_mask_1", "history_2", "history_mask_2"]


def test_a_declaration_with_levels_round_trips_and_lengths_land_on_their_level():
    layout = _layout(mask=True).written({"history": {"0/0/0": 9}, "history_1": {"0/0/0": 5, "1/0/0": 4}, "history_mask_2": {"0/0/0": 3}})
    doc = layout.to_dict()
    assert doc["version"] == "1.3" and doc["shard_bytes"] == {"0/0/0": 9}
    assert doc["levels"] == {
        "1": {"path": "history_1", "shard_bytes": {"0/0/0": 5, "1/0/0": 4}, "mask_path": "history_mask_1", "mask_shard_bytes": {}},
        "2": {"path": "history_2", "shard_bytes": {}, "mask_path": "history_mask_2", "mask_shard_bytes": {"0/0/0": 3}},
    }
    assert HistoryLayout.from_dict(doc) == layout


def test_a_writer_may_give_only_some_levels_a_history():
    doc = _layout().to_dict()
    del doc["levels"]["1"]
    layout = HistoryLayout.from_dict(doc)
    assert layout.levels == (0, 2) and layout.at(1) is None


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.2"])
def test_before_1_3_the_declaration_is_level_0s_only_even_with_a_levels_field(version):
    doc = _layout().to_dict() | {"version": version}
    layout = HistoryLayout.from_dict(doc)
    assert layout.levels == (0,) and "levels" not in layout.to_dict()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(levels=[1, 2]), "levels"),
        (lambda d: d["levels"].update({"0": d["levels"]["1"]}), "levels.0"),
        (lambda d: d["levels"]["1"].update(path="history"), "levels.1.path"),
        (lambda d: d["levels"]["2"].update(shard_bytes={"0/0": 1}), "levels.2.shard_bytes"),
        (lambda d: d["levels"]["1"].update(mask_path="history_mask_1", mask_shard_bytes={}), "levels.1"),
        (lambda d: d["levels"]["1"].update(mask_path="history_mask", mask_shard_bytes={}), "levels.1.mask_path"),
    ],
)
def test_a_malformed_level_entry_names_its_field(change, field):
    doc = _layout().to_dict()
    change(doc)
    with pytest.raises(HistoryError, match=f"chronozarr.history.{field}[ .:[]"):
        HistoryLayout.from_dict(doc)
