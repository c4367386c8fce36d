"""validate, info and doctor on a masked store whose history has a mask copy (version 1.1): a copy
that disagrees with level 0's mask fails naming the shard and inner chunk; a wrong
mask_shard_bytes or mask declaration fails naming the field; info reports the copy's size."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import xarray as xr
from typer.testing import CliRunner

import chronozarr
from chronozarr.check import info, validate
from chronozarr.check.doctor import doctor
from chronozarr.cli import app
from conftest import make_series
from test_check_history import OPTIONS, _edit_declaration


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The same masked series twice, the second with the mask of one pixel flipped at timestep 9."""
    da = make_series(n_time=12, n_band=2, height=48, width=40, seed=6)
    mask = np.random.default_rng(2).integers(0, 2, (12, 48, 40), dtype=np.uint8)
    flipped = mask.copy()
    flipped[9, 40, 20] ^= 1
    root = tmp_path_factory.mktemp("maskpair")
    chronozarr.encode(da, root / "good", mask=xr.DataArray(mask, dims=("time", "y", "x")), **OPTIONS)
    chronozarr.encode(da, root / "other", mask=xr.DataArray(flipped, dims=("time", "y", "x")), **OPTIONS)
    return root


def _copy(pair, tmp_path):
    shutil.copytree(pair / "good", tmp_path / "s")
    return tmp_path / "s"


def test_a_masked_store_with_a_mask_copy_is_valid_whole_or_sampled(pair):
    report = validate(pair / "good")
    assert report.ok, report.fails
    assert validate(pair / "good", sample=3).ok


def test_a_mask_copy_that_differs_from_level_0s_mask_fails_naming_the_shard_and_inner_chunk(pair, tmp_path):
    store = _copy(pair, tmp_path)
    key = "history_mask/c/1/1/0"  # pixel (40, 20): shard row 1, col 0; inner chunk (0, 1)
    shutil.copyfile(pair / "other" / key, store / key)
    _edit_declaration(store, lambda h: h["mask_shard_bytes"].update({"1/1/0": (store / key).stat().st_size}))
    fails = [f for f in validate(store).fails if f.section == "history"]
    assert [f.key for f in fails] == [f"{key} inner chunk (0, 1)"], fails
    assert "time 1 of the block, pixel (8, 4)" in fails[0].message


def test_a_wrong_mask_shard_length_or_an_unlisted_mask_shard_fails_naming_the_entry(pair, tmp_path):
    store = _copy(pair, tmp_path)
    _edit_declaration(store, lambda h: (h["mask_shard_bytes"].update({"0/0/0": 5}), h["mask_shard_bytes"].pop("1/1/1")))
    keys = {f.key for f in validate(store).fails}
    assert {"chronozarr.history.mask_shard_bytes['0/0/0']", "chronozarr.history.mask_shard_bytes['1/1/1']"} <= keys


@pytest.mark.parametrize(("field", "change"), [("mask_path", lambda h: h.update(mask_path="mask")), ("mask_shard_bytes", lambda h: h.pop("mask_shard_bytes"))])
def test_a_malformed_mask_declaration_fails_naming_the_field(pair, tmp_path, field, change):
    store = _copy(pair, tmp_path)
    _edit_declaration(store, change)
    fails = validate(store).fails
    assert [f.key for f in fails] == ["chronozarr.history"] and f"chronozarr.history.{field}" in fails[0].message


def test_a_mask_copy_declared_on_a_store_without_a_mask_fails(tmp_path):
    chronozarr.encode(make_series(n_time=12, n_band=2, height=48, width=40, seed=6), tmp_path / "s", **OPTIONS)
    def declare_copies(h):
        h.update(mask_path="history_mask", mask_shard_bytes={})
        for k, entry in h["levels"].items():
            entry.update(mask_path=f"history_mask_{k}", mask_shard_bytes={})

    _edit_declaration(tmp_path / "s", declare_copies)
    fails = validate(tmp_path / "s").fails
    assert [f.key for f in fails] == ["chronozarr.history"] and "the store has no mask" in fails[0].message


def test_a_declaration_without_the_mask_copy_on_a_masked_store_is_valid_and_said_to_lack_the_copy(pair, tmp_path):
    """A 1.0 declaration never has the copy; a later one SHOULD (a 1.0 one would also need level 0's codec)."""
    store = _copy(pair, tmp_path)
    def drop_copies(h):
        for entry in (h, *h["levels"].values()):
            entry.pop("mask_path"), entry.pop("mask_shard_bytes")

    _edit_declaration(store, drop_copies)
    doc = json.loads((store / "zarr.json").read_text())
    for path in [p for p in doc["consolidated_metadata"]["metadata"] if p.startswith("history_mask")]:
        shutil.rmtree(store / path)
        del doc["consolidated_metadata"]["metadata"][path]
    (store / "zarr.json").write_text(json.dumps(doc))
    report = validate(store)
    assert report.ok, report.fails
    assert any(f.key == "chronozarr.history.mask_path" for f in report.findings if f.section == "history")


def test_info_reports_the_mask_copys_size(pair):
    summary = info(pair / "good")["history"]
    files = [p for p in (pair / "good" / "history_mask" / "c").rglob("*") if p.is_file()]
    assert (summary["mask_shards"], summary["mask_bytes"]) == (len(files), sum(p.stat().st_size for p in files))
    text = CliRunner().invoke(app, ["info", str(pair / "good")]).output
    assert f"mask copy {len(files)} shards" in text


def test_doctor_reads_the_mask_copys_first_shard_index_by_range(pair):
    report = doctor(str(pair / "good"))
    lines = [f for f in report.findings if f.key == "history mask copy"]
    assert [f.severity for f in lines] == ["ok"] and "2 range request(s)" in lines[0].message
