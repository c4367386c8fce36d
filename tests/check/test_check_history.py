"""validate, info and doctor on stores with a history array: a store whose history disagrees
with level 0 fails naming the shard and inner chunk; a wrong shard_bytes or declaration fails
naming the field; info reports the array's size; doctor reads one shard index by range."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

import chronozarr
from chronozarr.check import info, validate
from chronozarr.check.doctor import doctor
from chronozarr.cli import app
from conftest import make_series

OPTIONS = {"crs": "EPSG:32631", "chunk_size": 32, "encoding": "star-delta", "anchor_interval": 3, "history": True, "history_time": 8, "progress": False}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The same series twice, the second with one pixel changed at timestep 9 (time block 1)."""
    da = make_series(n_time=12, n_band=2, height=48, width=40, seed=5)
    changed = da.copy(data=da.values.copy())
    changed.values[9, 1, 40, 20] += 1
    root = tmp_path_factory.mktemp("pair")
    chronozarr.encode(da, root / "good", **OPTIONS)
    chronozarr.encode(changed, root / "other", **OPTIONS)
    return root


def _copy(pair, tmp_path):
    shutil.copytree(pair / "good", tmp_path / "s")
    return tmp_path / "s"


def _edit_declaration(store, change) -> None:
    doc = json.loads((store / "zarr.json").read_text())
    change(doc["attributes"]["chronozarr"]["history"])
    (store / "zarr.json").write_text(json.dumps(doc))


def test_a_store_with_history_is_valid_whole_or_sampled(pair):
    assert validate(pair / "good").ok
    assert validate(pair / "good", sample=3).ok


def test_history_values_that_differ_from_level_0_fail_naming_the_shard_and_inner_chunk(pair, tmp_path):
    store = _copy(pair, tmp_path)
    key = "history/c/1/0/1/0"  # pixel (40, 20): shard row 1, col 0; inner chunk (0, 1)
    shutil.copyfile(pair / "other" / key, store / key)
    length = (store / key).stat().st_size
    _edit_declaration(store, lambda h: h["shard_bytes"].update({"1/1/0": length}))
    report = validate(store)
    fails = [f for f in report.fails if f.section == "history"]
    assert [f.key for f in fails] == [f"{key} inner chunk (0, 1)"], report.fails
    assert "time 1 of the block, band 1, pixel (8, 4)" in fails[0].message


def test_a_wrong_shard_length_or_an_unlisted_shard_fails_naming_the_entry(pair, tmp_path):
    store = _copy(pair, tmp_path)
    _edit_declaration(store, lambda h: (h["shard_bytes"].update({"0/0/0": 5}), h["shard_bytes"].pop("1/1/1")))
    keys = {f.key for f in validate(store).fails}
    assert {"chronozarr.history.shard_bytes['0/0/0']", "chronozarr.history.shard_bytes['1/1/1']"} <= keys


def test_a_malformed_declaration_fails_naming_the_field(pair, tmp_path):
    store = _copy(pair, tmp_path)
    _edit_declaration(store, lambda h: h.update(time_cap=0))
    fails = validate(store).fails
    assert [f.key for f in fails] == ["chronozarr.history"] and "time_cap" in fails[0].message


def test_info_reports_the_history_array_and_its_ratio_to_level_0(pair):
    summary = info(pair / "good")["history"]
    level0 = sum(p.stat().st_size for p in (pair / "good" / "0" / "data" / "c").rglob("*") if p.is_file())
    shards = sum(p.stat().st_size for p in (pair / "good" / "history" / "c").rglob("*") if p.is_file())
    assert (summary["bytes"], summary["level0_bytes"], summary["shards"]) == (shards, level0, 8)
    assert summary["ratio"] == pytest.approx(shards / level0)
    text = CliRunner().invoke(app, ["info", str(pair / "good")]).output
    assert "history    time-major, 8 timesteps per block" in text


def test_doctor_reads_one_history_shard_index_by_range(pair):
    report = doctor(str(pair / "good"))
    lines = [f for f in report.findings if f.key == "history array"]
    assert [f.severity for f in lines] == ["ok"] and "2 range request(s)" in lines[0].message


def test_the_cli_validates_a_sample(pair):
    result = CliRunner().invoke(app, ["validate", str(pair / "good"), "--sample", "2"])
    assert result.exit_code == 0, result.output


def test_the_history_codec_is_checked_against_the_declared_version(pair, tmp_path):
    """1.2 arrays are blosc zstd with bit shuffle; a 1.1 declaration promises level 0's codec."""
    doc = json.loads((pair / "good" / "history" / "zarr.json").read_text())
    inner = doc["codecs"][0]["configuration"]["codecs"]
    assert inner[1]["name"] == "blosc" and inner[1]["configuration"]["shuffle"] == "bitshuffle"
    store = _copy(pair, tmp_path)
    _edit_declaration(store, lambda h: h.update(version="1.1"))
    fails = [f for f in validate(store).fails if f.section == "history"]
    assert [f.key for f in fails] == ["history/zarr.json"] and "level 0's" in fails[0].message
