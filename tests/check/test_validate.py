"""validate: stores written by encode pass, and broken stores end as findings, never as tracebacks
(the single mutations, each caught under its section, are in test_validate_mutations.py)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zarr
from check_stores import (
    add_unexpected_object,
    assert_caught,
    assert_valid,
    base_stores,  # noqa: F401  (fixture)
    build,
    copy_store,  # noqa: F401  (fixture)
    edit_block,
    edit_node,
    edit_root,
    overwrite_chunk,
    scratch,  # noqa: F401  (fixture)
    set_field,
)
from conftest import make_series

import chronozarr
from chronozarr import validate

# -- valid stores -----------------------------------------------------------------------------

VALID = {
    "uint16-auto-unsharded-planes": dict(dtype="uint16"),
    "uint16-star-sharded-3-shards": dict(dtype="uint16", encoding="star-delta", anchor_interval=2, shard=True, shard_time=2),
    "uint16-star-shard-time-over-n": dict(dtype="uint16", encoding="star-delta", anchor_interval=3, shard=True, shard_time=8),
    "uint8-auto-sharded-whole-axis": dict(dtype="uint8", shard=True),
    "int16-none-nodata-none": dict(dtype="int16", planes_too=False),
    "int16-nodata-number-blosc": dict(dtype="int16", nodata=-999, codec="blosc", blosc_cname="lz4", blosc_shuffle="shuffle"),
    "float32-none-gzip": dict(dtype="float32", codec="gzip", planes_too=False),
    "float32-sharded-planes": dict(dtype="float32", shard=True, shard_time=3),
    "uint16-none-nodata-none": dict(dtype="uint16", encoding="none", nodata=None, planes_too=False),
    "uint16-single-timestep": dict(dtype="uint16", n_time=1),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_stores_written_by_encode_are_valid(tmp_path: Path, name: str) -> None:
    store = build(tmp_path / name, **VALID[name])
    report = validate(store)
    assert_valid(report)
    assert not report.warnings, report.to_text()


def test_base_stores_are_valid(base_stores: dict[str, Path]) -> None:
    for store in base_stores.values():
        assert_valid(validate(store))


def test_pixels_per_tile_is_accepted(copy_store: Callable[[str], Path]) -> None:
    store = copy_store("unsharded")
    edit_root(store, lambda r: [d.update(pixels_per_tile=8) for d in r["attributes"]["multiscales"][0]["datasets"]])
    assert_valid(validate(store))


def test_a_store_consolidated_by_zarr_python_is_valid(copy_store: Callable[[str], Path]) -> None:
    """zarr-python's consolidate_metadata gives each group copy a nested consolidated_metadata and
    each array copy storage_transformers: []; neither changes what the node says."""
    store = copy_store("sharded")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(store)
    copies = json.loads((store / "zarr.json").read_text())["consolidated_metadata"]["metadata"]
    assert "consolidated_metadata" in copies["0"] and copies["0/data"]["storage_transformers"] == []
    assert_valid(validate(store))


def test_an_unknown_array_is_a_warning_not_a_failure(copy_store: Callable[[str], Path]) -> None:
    """Another convention's array beside the layout: readers ignore it, so it breaks no MUST."""
    store = copy_store("unsharded")
    thumbnail = zarr.open_group(store / "0", mode="a", zarr_format=3).create_array("thumbnail", shape=(4,), chunks=(2,), dtype="uint8")
    thumbnail[:] = [1, 2, 3, 4]
    report = validate(store)
    assert_valid(report)
    assert [w.key for w in report.warnings] == ["0/thumbnail/zarr.json"]
    assert "not part of the chronozarr layout" in report.warnings[0].message


def test_other_volatility_dimension_names_are_a_warning(copy_store: Callable[[str], Path]) -> None:
    """Spec 5 names no dimensions for volatility; only the example in spec 3.9 says row and col."""
    store = copy_store("unsharded")
    edit_node(store, "volatility", lambda d: (d.update(dimension_names=["y", "x"]), d["attributes"].update(_ARRAY_DIMENSIONS=["y", "x"])))
    report = validate(store)
    assert_valid(report)
    assert [(w.section, w.key) for w in report.warnings] == [("5", "volatility/zarr.json")]


def test_v01_form_is_accepted(copy_store: Callable[[str], Path]) -> None:
    """A 0.1 store: bands as strings, no levels or band_names mirror, encoding implied."""
    store = copy_store("unsharded")

    def to_v01(block: dict[str, Any]) -> None:
        block.update(spec_version="0.1.0", bands=[b["name"] for b in block["bands"]])
        for name in ("levels", "band_names"):
            del block[name]
        del block["temporal"]["encoding"]

    edit_block(store, to_v01)
    assert_valid(validate(store))


def test_append_journal_is_ignored(copy_store: Callable[[str], Path]) -> None:
    store = copy_store("sharded")
    (store / ".chronozarr-append-journal").write_text("{}")
    (store / ".chronozarr-staging").mkdir()
    (store / ".chronozarr-staging" / "x").write_bytes(b"1")
    assert_valid(validate(store))


def test_without_pyramid_sample_no_chunk_is_read(copy_store: Callable[[str], Path]) -> None:
    store = copy_store("unsharded")
    overwrite_chunk(store, "1/data/c/4/0/0/0")
    assert_valid(validate(store, sample_pyramid=False))


# -- broken stores end as findings, never as tracebacks ------------------------------------------


def test_missing_store_is_one_finding(tmp_path: Path) -> None:
    report = validate(tmp_path / "nowhere")
    assert len(report) == 1 and not report.ok


def test_missing_root_is_one_finding(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    report = validate(tmp_path / "s")
    assert len(report) == 1 and report.fails[0].key == "zarr.json"


@pytest.mark.parametrize("text", ["not json", "[1, 2]", "{}", '{"attributes": {"chronozarr": 3}}'])
def test_broken_root_is_a_fail(tmp_path: Path, text: str) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "zarr.json").write_text(text)
    report = validate(tmp_path / "s")
    assert not report.ok


BLOCK_FIELDS = ["spec_version", "variable", "times", "bands", "band_names", "nodata", "crs", "temporal", "volatility_path", "levels", "mask_variable"]


@pytest.mark.parametrize("field", BLOCK_FIELDS)
@pytest.mark.parametrize("value", [None, 42, [None], {"a": None}])
def test_malformed_block_fields_never_raise(scratch: Path, field: str, value: Any) -> None:
    original = (scratch / "zarr.json").read_text()
    try:
        edit_block(scratch, set_field([field], value))
        report = validate(scratch)
    finally:
        (scratch / "zarr.json").write_text(original)
    assert not report.ok, f"{field}={value!r} accepted"


@pytest.mark.parametrize("node", ["0/data", "1", "0/time", "0/band", "volatility", "2/mask"])
@pytest.mark.parametrize("text", ["{", "[]", '{"zarr_format": 3, "node_type": "array"}', '{"zarr_format": 3, "node_type": "array", "shape": "x", "codecs": 5}'])
def test_malformed_node_documents_never_raise(copy_store: Callable[[str], Path], node: str, text: str) -> None:
    store = copy_store("unsharded")
    (store / node / "zarr.json").write_text(text)
    report = validate(store)
    assert not report.ok
    assert not any("could not finish" in f.message for f in report.fails), report.to_text()


def test_report_serialises(copy_store: Callable[[str], Path]) -> None:
    store = copy_store("unsharded")
    add_unexpected_object(store)
    data = json.loads(json.dumps(validate(store).to_dict()))
    assert data["ok"] is False
    assert data["findings"][0]["section"] == "2"


def test_http_store_is_validated(tmp_path: Path) -> None:
    """Over HTTP nothing is listed, but shard_bytes is checked by probing its keys."""
    from chronozarr.serve import StoreServer

    store = tmp_path / "site" / "store"
    da = make_series(n_time=3, height=16, width=16, seed=1)
    chronozarr.encode(da, store, crs="EPSG:32631", chunk_size=8, shard=True, shard_time=2, workers=2)
    with StoreServer(store.parent, port=0) as server:
        assert_valid(validate(f"{server.url}/store", sample_pyramid=False))
        edit_block(store, lambda b: b["shard_bytes"]["0"].pop("1/1/1"))
        assert_caught(validate(f"{server.url}/store", sample_pyramid=False), "7.3")
