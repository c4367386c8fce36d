"""validate on the history of every level (format 1.3): a store is valid whole or sampled; a
coarse history whose values are not its level's block means fails naming its shard and inner
chunk; a wrong coarse shard length names its `levels.{k}` entry; a 1.2 store stays valid."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import make_series
from history_stores import as_version_1_2

import chronozarr
from chronozarr.check import validate

OPTIONS = {"crs": "EPSG:32631", "chunk_size": 16, "encoding": "star-delta", "anchor_interval": 3, "history": True, "history_time": 4,
           "nodata": 0, "progress": False}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """One series twice, the second with one pixel changed at timestep 5 (so its block means too)."""
    da = make_series(n_time=8, n_band=2, height=48, width=40, seed=4)
    other = da.values.copy()
    other[5, 1, 30, 20] += 1000
    root = tmp_path_factory.mktemp("levelpair")
    chronozarr.encode(da, root / "good", **OPTIONS)
    chronozarr.encode(da.copy(data=other), root / "other", **OPTIONS)
    return root


def _levels(store):
    return json.loads((store / "zarr.json").read_text())["attributes"]["chronozarr"]["history"]["levels"]


def test_a_store_with_a_history_per_level_is_valid_whole_or_sampled(pair):
    assert sorted(_levels(pair / "good")) == ["1", "2"]
    for sample in (None, 3):
        report = validate(pair / "good", sample=sample)
        assert report.ok, report.fails
        assert any(f.key == "chronozarr.history.levels" and "1, 2 of 2" in f.message for f in report.findings)


def test_a_coarse_history_with_other_values_fails_naming_the_inner_chunk(pair, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(pair / "good", store)
    shutil.rmtree(store / "history_1")
    shutil.copytree(pair / "other" / "history_1", store / "history_1")
    root = json.loads((store / "zarr.json").read_text())
    root["attributes"]["chronozarr"]["history"]["levels"]["1"] = _levels(pair / "other")["1"]
    (store / "zarr.json").write_text(json.dumps(root))
    fails = [f for f in validate(store).fails if f.section == "history"]
    # pixel (30, 20) of level 0 is pixel (15, 10) of level 1: time block 1, shard (0, 0), inner chunk (0, 0)
    assert [f.key for f in fails] == ["history_1/c/1/0/0/0 inner chunk (0, 0)"]
    assert "level 1's true values" in fails[0].message and "band 1" in fails[0].message


def test_a_wrong_coarse_shard_length_names_its_level_entry(pair, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(pair / "good", store)
    root = json.loads((store / "zarr.json").read_text())
    root["attributes"]["chronozarr"]["history"]["levels"]["2"]["shard_bytes"]["0/0/0"] += 1
    (store / "zarr.json").write_text(json.dumps(root))
    keys = {f.key for f in validate(store).fails}
    assert "chronozarr.history.levels.2.shard_bytes['0/0/0']" in keys


def test_a_coarse_history_whose_shape_disagrees_with_its_level_fails(pair, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(pair / "good", store)
    root = json.loads((store / "zarr.json").read_text())
    root["consolidated_metadata"]["metadata"]["history_2"]["shape"][3] += 2
    (store / "zarr.json").write_text(json.dumps(root))
    fails = [f for f in validate(store).fails if f.section == "history"]
    assert any("chronozarr.history.levels.2.shape" in f.message and "level 2's shape" in f.message for f in fails)


def test_a_1_2_store_with_level_0s_history_only_is_valid(pair, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(pair / "good", store)
    as_version_1_2(store)
    report = validate(store)
    assert report.ok, report.fails
    assert any(f.key == "chronozarr.history.levels" and "none of 2" in f.message for f in report.findings)
    with chronozarr.open_dataset(store) as s:
        np.testing.assert_array_equal(s.read_point(3, 4, lod=1), s.read_region("data", list(range(8)), slice(3, 4), slice(4, 5), 1)[:, :, 0, 0])
