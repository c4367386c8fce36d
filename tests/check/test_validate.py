"""validate: stores written by encode pass; each single mutation is caught under its section."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr
from conftest import make_series
from check_stores import (
    base_stores,  # noqa: F401  (fixture)
    build,
    copy_store,  # noqa: F401  (fixture)
    scratch,  # noqa: F401  (fixture)
    drop_node,
    edit_block,
    edit_node,
    edit_root,
    level_count,
)

import chronozarr
from chronozarr import validate
from chronozarr.check import Report


def assert_valid(report: Report) -> None:
    assert report.ok, report.to_text()


def assert_caught(report: Report, section: str, *, first: bool = True) -> None:
    """A fail under `section` exists and, by default, it is the first fail reported."""
    assert not report.ok, "mutation not caught"
    assert section in report.sections(), f"no fail in section {section}:\n{report.to_text()}"
    if first:
        assert report.fails[0].section == section, report.to_text()


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
    """Section 5 names no dimensions for volatility; only the example in 3.9 says row and col."""
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
    _overwrite_chunk(store, "1/data/c/4/0/0/0")
    assert_valid(validate(store, sample_pyramid=False))


# -- single mutations ---------------------------------------------------------------------------


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target = doc
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value

    return change


def _delete(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target = doc
        for part in path[:-1]:
            target = target[part]
        del target[path[-1]]

    return change


def _overwrite_chunk(store: Path, key: str) -> None:
    """Replace a uint16 chunk (1, 2, 8, 8) with other values that still decode."""
    values = np.arange(2 * 8 * 8, dtype="<u2").reshape(1, 2, 8, 8) + 40000
    (store / key).write_bytes(numcodecs.Zstd(level=5).encode(values.tobytes()))


def _shard_key(store: Path) -> str:
    return sorted(p.relative_to(store).as_posix() for p in (store / "0" / "data" / "c").rglob("*") if p.is_file())[-1]


def _all_levels(store: Path, node: str, change: Callable[[dict[str, Any]], None]) -> None:
    for k in range(level_count(store)):
        edit_node(store, f"{k}/{node}", change)


def _time_swap(store: Path) -> None:
    """time[1] and time[2] swapped in every time array and in the mirror (consistent, but decreasing)."""
    for k in range(level_count(store)):
        key = store / f"{k}/time/c/0"
        values = np.frombuffer(numcodecs.Zstd().decode(key.read_bytes()), dtype="<i8").copy()
        values[[1, 2]] = values[[2, 1]]
        key.write_bytes(numcodecs.Zstd(level=5).encode(values.tobytes()))
    edit_block(store, lambda b: b["times"].__setitem__(slice(1, 3), [b["times"][2], b["times"][1]]))


def _drop_mask_above_0(store: Path) -> None:
    for k in range(1, level_count(store)):
        drop_node(store, f"{k}/mask")


def _drop_all_masks_keep_variable(store: Path) -> None:
    edit_block(store, _set(["mask_variable"], "mask"))


def _flip_index_crc(store: Path) -> None:
    key = store / _shard_key(store)
    blob = bytearray(key.read_bytes())
    blob[-1] ^= 0xFF
    key.write_bytes(bytes(blob))


def _shard_bytes_wrong(store: Path) -> None:
    edit_block(store, lambda b: b["shard_bytes"]["0"].update({"0/0/0": b["shard_bytes"]["0"]["0/0/0"] + 1}))


def _shard_bytes_missing(store: Path) -> None:
    edit_block(store, lambda b: b["shard_bytes"]["1"].pop("2/0/0"))


def _int16_star(store: Path) -> None:
    _all_levels(store, "data", _set(["data_type"], "int16"))


def _unsupported_codec(store: Path) -> None:
    edit_node(store, "0/data", _set(["codecs", 1], {"name": "lz4", "configuration": {"acceleration": 1}}))


def _bitshuffle(store: Path) -> None:
    blosc = {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}}
    _all_levels(store, "data", _set(["codecs", 1], blosc))


def _chunk_size_differs(store: Path) -> None:
    edit_node(store, "2/data", _set(["chunk_grid", "configuration", "chunk_shape"], [1, 2, 16, 16]))


def _odd_chunk(store: Path) -> None:
    edit_node(store, "0/data", _set(["chunk_grid", "configuration", "chunk_shape"], [1, 2, 7, 7]))


def _level_order(store: Path) -> None:
    def swap(root: dict[str, Any]) -> None:
        ds = root["attributes"]["multiscales"][0]["datasets"]
        ds[0], ds[1] = ds[1], ds[0]

    edit_root(store, swap)


def _level1_transform(store: Path) -> None:
    edit_node(store, "1", _set(["attributes", "transform", 2], 500_005.0))
    edit_block(store, _set(["levels", 1, "transform", 2], 500_005.0))


def _consolidated_differs(store: Path) -> None:
    edit_root(store, lambda r: r["consolidated_metadata"]["metadata"]["1"]["attributes"].update(resolution=25.0))


def _volatility_shape(store: Path) -> None:
    edit_node(store, "volatility", lambda d: d.update(shape=[2, 2], chunk_grid={"name": "regular", "configuration": {"chunk_shape": [2, 2]}}))


def _unexpected(store: Path) -> None:
    (store / "0" / "data" / "notes.txt").write_text("hello")


def _zarr_v2_file(store: Path) -> None:
    (store / "0" / ".zattrs").write_text("{}")


def _pyramid_chunk(store: Path) -> None:
    _overwrite_chunk(store, "1/data/c/4/0/0/0")


def _extra_reference_key(store: Path) -> None:
    edit_block(store, _set(["temporal", "delta_reference", "9"], 8))


MUTATIONS: dict[str, tuple[str, str, Callable[[Path], None]]] = {
    # name: (base store, expected section, mutation)
    "spec_version": ("unsharded", "3.2", lambda s: edit_block(s, _set(["spec_version"], "0.3.0"))),
    "times_mirror": ("unsharded", "2.2", lambda s: edit_block(s, _set(["times", 3], "2024-04-15T00:00:00Z"))),
    "band_names": ("unsharded", "3.2", lambda s: edit_block(s, _set(["band_names"], ["b0", "bX"]))),
    "band_names_and_bands": ("unsharded", "2.2", lambda s: edit_block(s, lambda b: (b.update(band_names=["b0", "bX"]), b["bands"][1].update(name="bX")))),
    "levels_shape": ("unsharded", "3.7", lambda s: edit_block(s, _set(["levels", 1, "shape", 2], 18))),
    "levels_grid": ("unsharded", "3.7", lambda s: edit_block(s, _set(["levels", 0, "grid"], [4, 4]))),
    "level1_transform": ("unsharded", "3.3", _level1_transform),
    "multiscales_order": ("unsharded", "3.4", _level_order),
    "multiscales_crs": ("unsharded", "3.4", lambda s: edit_root(s, _set(["attributes", "multiscales", 0, "datasets", 1, "crs"], "EPSG:32632"))),
    "level_crs": ("unsharded", "3.3", lambda s: edit_node(s, "1", _set(["attributes", "crs"], "EPSG:32632"))),
    "nodata_vs_fill": ("unsharded", "2.3", lambda s: edit_node(s, "0/data", _set(["fill_value"], 7))),
    "nodata_attribute_missing": ("unsharded", "2.3", lambda s: edit_node(s, "1/data", _delete(["attributes", "nodata"]))),
    "nodata_nan": ("plain", "2.3", lambda s: (s / "zarr.json").write_text((s / "zarr.json").read_text().replace('"nodata": 0,', '"nodata": NaN,', 1))),
    "anchor_indices": ("unsharded", "4.2", lambda s: edit_block(s, _set(["temporal", "anchor_indices"], [0, 3]))),
    "reference_missing": ("unsharded", "4.1", lambda s: edit_block(s, _delete(["temporal", "delta_reference", "3"]))),
    "reference_to_non_anchor": ("unsharded", "4.2", lambda s: edit_block(s, _set(["temporal", "delta_reference", "3"], 1))),
    "reference_too_far": ("unsharded", "4.2", lambda s: edit_block(s, _set(["temporal", "delta_reference", "3"], 0))),
    "anchor_referenced": ("unsharded", "4.1", lambda s: edit_block(s, _set(["temporal", "delta_reference", "2"], 0))),
    "reference_outside_time": ("unsharded", "4.1", _extra_reference_key),
    "none_with_anchor_fields": ("unsharded", "4.1", lambda s: edit_block(s, _set(["temporal", "encoding"], "none"))),
    "star_delta_int16": ("unsharded", "4.1", _int16_star),
    "dimension_names": ("unsharded", "2.2", lambda s: edit_node(s, "0/x", _set(["attributes", "_ARRAY_DIMENSIONS"], ["lon"]))),
    "odd_chunk_size": ("unsharded", "2.1", _odd_chunk),
    "chunk_size_differs": ("unsharded", "2.1", _chunk_size_differs),
    "unsupported_codec": ("unsharded", "8", _unsupported_codec),
    "blosc_bitshuffle": ("unsharded", "8", _bitshuffle),
    "shard_bytes_length": ("sharded", "7.3", _shard_bytes_wrong),
    "shard_bytes_missing_shard": ("sharded", "7.3", _shard_bytes_missing),
    "shard_bytes_unsharded": ("unsharded", "7.3", lambda s: edit_block(s, _set(["shard_bytes"], {"0": {}}))),
    "shard_index_crc": ("sharded", "7.2", _flip_index_crc),
    "consolidated_differs": ("unsharded", "3.1", _consolidated_differs),
    "mask_level0_only": ("unsharded", "2.4", _drop_mask_above_0),
    "mask_variable_without_mask": ("plain", "2.4", _drop_all_masks_keep_variable),
    "mask_without_variable": ("unsharded", "2.4", lambda s: edit_block(s, _delete(["mask_variable"]))),
    "volatility_missing": ("unsharded", "5", lambda s: drop_node(s, "volatility")),
    "volatility_shape": ("unsharded", "5", _volatility_shape),
    "time_not_increasing": ("unsharded", "2.2", _time_swap),
    "unexpected_object": ("unsharded", "2", _unexpected),
    "zarr_v2_metadata": ("unsharded", "9", _zarr_v2_file),
    "pyramid_chunk": ("unsharded", "6", _pyramid_chunk),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_is_caught(copy_store: Callable[[str], Path], name: str) -> None:
    base, section, mutate = MUTATIONS[name]
    store = copy_store(base)
    mutate(store)
    assert_caught(validate(store), section)


def test_mutations_cover_many_sections() -> None:
    assert len(MUTATIONS) >= 25
    assert {s for _, s, _ in MUTATIONS.values()} >= {"2", "2.1", "2.2", "2.3", "2.4", "3.1", "3.2", "3.3", "3.4", "3.7", "4.1", "4.2", "5", "6", "7.2", "7.3", "8"}


def test_findings_name_the_key_and_value(copy_store: Callable[[str], Path]) -> None:
    store = copy_store("sharded")
    _shard_bytes_wrong(store)
    fail = validate(store).fails[0]
    assert fail.key == "0/data/c/0/0/0/0"
    assert "lists" in fail.message and "the object has" in fail.message
    assert fail.line().startswith("FAIL 7.3 0/data/c/0/0/0/0: ")


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
        edit_block(scratch, _set([field], value))
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
    _unexpected(store)
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
