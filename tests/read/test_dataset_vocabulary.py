"""The description forms the Python reader gained to match the JS reader's (docs/api.md): the
schedule as anchor_indices and reference_of(t), cell grids as grid_rows and grid_cols, and
`store.stats()` as a snapshot under the JS names. Expected values come from tests/expected.py and
from requests counted here, not from the reader's own model."""

from __future__ import annotations

import pytest
from conftest import make_series
from expected import anchors_for, level_count, references_for

import chronozarr


@pytest.fixture(scope="module")
def star_delta_store(tmp_path_factory):
    da = make_series(n_time=9, n_band=2, height=40, width=56, dtype="uint16")
    path = tmp_path_factory.mktemp("vocab") / "s"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=4, progress=False)
    return path


def test_anchor_indices_and_reference_of_follow_the_nearest_anchor_rule(star_delta_store):
    with chronozarr.open_dataset(star_delta_store) as store:
        assert store.anchor_indices == anchors_for(9, 4)
        references = references_for(9, 4)
        assert [store.reference_of(t) for t in range(9)] == [references.get(t) for t in range(9)]
        assert store.reference_of(-1) == references.get(8)


def test_grid_rows_and_cols_are_the_cells_that_cover_each_level(star_delta_store):
    with chronozarr.open_dataset(star_delta_store) as store:
        assert len(store.levels) == level_count(40, 56, 16)
        for level in store.levels:
            rows, cols = -(-level.height // 16), -(-level.width // 16)
            assert (level.grid_rows, level.grid_cols) == (rows, cols) == level.grid


def test_stats_called_is_a_snapshot_under_the_js_names(star_delta_store):
    with chronozarr.open_dataset(star_delta_store) as store:
        store.read_cell(1, 0, 0)
        snapshot = store.stats()
        assert set(snapshot) == {"requests", "gets", "ranges", "suffixes", "heads", "bytes", "missing", "retries", "range_answered_whole"}
        assert snapshot["gets"] == store.stats.get and snapshot["requests"] == store.stats.requests > 0
        chunk_files = sorted((star_delta_store / "0" / "data" / "c").rglob("*"))
        assert snapshot["bytes"] >= min(f.stat().st_size for f in chunk_files if f.is_file())
        before = snapshot["requests"]
        store.read_cell(2, 1, 1)
        assert snapshot["requests"] == before < store.stats()["requests"]  # a snapshot, not a live view
