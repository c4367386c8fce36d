"""Opening a store whose root fields have the wrong types: a StoreError naming the field, from the
API, the xarray engine and `chronozarr info` alike, never a traceback from deep inside a read."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import xarray as xr
from foreign_stores import Layout, build
from typer.testing import CliRunner

import chronozarr
from chronozarr import StoreError
from chronozarr.cli import app


def _edit_block(store: Path, change: Callable[[dict[str, Any]], None]) -> None:
    root = json.loads((store / "zarr.json").read_text())
    change(root["attributes"]["chronozarr"])
    (store / "zarr.json").write_text(json.dumps(root))


def _first_band(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda block: block["bands"][0].update(fields)


MALFORMED = {
    "nodata_text": (lambda b: b.update(nodata="0"), r"chronozarr.nodata must be a finite number or null, got '0'"),
    "nodata_list": (lambda b: b.update(nodata=[0]), r"chronozarr.nodata must be a finite number or null"),
    "shard_bytes_text": (lambda b: b.update(shard_bytes="x"), r"chronozarr.shard_bytes must map level paths .* got str"),
    "shard_bytes_text_length": (
        lambda b: b["shard_bytes"]["0"].update({k: str(v) for k, v in b["shard_bytes"]["0"].items()}),
        r"chronozarr.shard_bytes .*\['0'\]\['\d/\d/\d'\] is '\d+', not an integer",
    ),
    "band_common_name_number": (_first_band(common_name=4), r"band 'B0' common_name: expected a string, got 4"),
    "band_units_list": (_first_band(units=["m"]), r"band 'B0' units: expected a string"),
    "times_numbers": (lambda b: b.update(times=list(range(5))), r"chronozarr.times\[0\] must be an ISO-8601 string, got 0"),
    "times_not_iso": (lambda b: b["times"].__setitem__(2, "yesterday"), r"chronozarr.times holds a value that is not an ISO-8601"),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("metadata") / "store"
    build(path, Layout(shard_time=2, consolidated=False))
    return path


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_root_fields_are_store_errors_naming_the_field(base, tmp_path, name):
    change, message = MALFORMED[name]
    store = tmp_path / "s"
    shutil.copytree(base, store)
    _edit_block(store, change)
    with pytest.raises(StoreError, match=message):
        chronozarr.open_dataset(store)
    with pytest.raises(StoreError, match=message):
        xr.open_dataset(store, engine="chronozarr")
    result = CliRunner().invoke(app, ["info", str(store)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and "Traceback" not in result.output


def test_an_unusable_consolidated_entry_falls_back_to_the_node_document(base, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(base, store)
    root = json.loads((store / "zarr.json").read_text())
    root["consolidated_metadata"] = {"kind": "inline", "must_understand": False, "metadata": {"0/data": "damaged"}}
    (store / "zarr.json").write_text(json.dumps(root))
    with chronozarr.open_dataset(store) as reader:
        assert reader.levels[0].chunk_size == 16


def test_bands_as_a_string_is_refused_not_read_as_its_letters(base, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(base, store)
    _edit_block(store, lambda b: b.update(bands="B0", band_names="B0"))
    with pytest.raises(StoreError, match="chronozarr.bands must be a list"):
        chronozarr.open_dataset(store)


def test_anchor_indices_holding_text_are_refused(tmp_path):
    store = tmp_path / "s"
    build(store, Layout(anchor_interval=3, consolidated=False))
    _edit_block(store, lambda b: b["temporal"]["anchor_indices"].__setitem__(1, "3"))
    with pytest.raises(StoreError, match="anchor_indices: expected integers"):
        chronozarr.open_dataset(store)


def test_a_storage_transformer_on_the_data_array_is_refused(base, tmp_path):
    store = tmp_path / "s"
    shutil.copytree(base, store)
    document = json.loads((store / "0" / "data" / "zarr.json").read_text())
    document["storage_transformers"] = [{"name": "chunk-manifest-json", "configuration": {}}]
    (store / "0" / "data" / "zarr.json").write_text(json.dumps(document))
    with pytest.raises(StoreError, match="storage_transformers .* not supported"):
        chronozarr.open_dataset(store)
