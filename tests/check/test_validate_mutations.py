"""validate: each single mutation of a valid store is caught, first, under the spec section it breaks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
from check_stores import (
    base_stores,  # noqa: F401  (fixture: copy_store needs it)
    add_unexpected_object,
    assert_caught,
    copy_store,  # noqa: F401  (fixture)
    delete_field,
    drop_node,
    edit_block,
    edit_node,
    edit_root,
    level_count,
    overwrite_chunk,
    set_field,
)

from chronozarr import validate

# -- single mutations ---------------------------------------------------------------------------


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
    edit_block(store, set_field(["mask_variable"], "mask"))


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
    _all_levels(store, "data", set_field(["data_type"], "int16"))


def _unsupported_codec(store: Path) -> None:
    edit_node(store, "0/data", set_field(["codecs", 1], {"name": "lz4", "configuration": {"acceleration": 1}}))


def _bitshuffle(store: Path) -> None:
    blosc = {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}}
    _all_levels(store, "data", set_field(["codecs", 1], blosc))


def _chunk_size_differs(store: Path) -> None:
    edit_node(store, "2/data", set_field(["chunk_grid", "configuration", "chunk_shape"], [1, 2, 16, 16]))


def _odd_chunk(store: Path) -> None:
    edit_node(store, "0/data", set_field(["chunk_grid", "configuration", "chunk_shape"], [1, 2, 7, 7]))


def _level_order(store: Path) -> None:
    def swap(root: dict[str, Any]) -> None:
        ds = root["attributes"]["multiscales"][0]["datasets"]
        ds[0], ds[1] = ds[1], ds[0]

    edit_root(store, swap)


def _level1_transform(store: Path) -> None:
    edit_node(store, "1", set_field(["attributes", "transform", 2], 500_005.0))
    edit_block(store, set_field(["levels", 1, "transform", 2], 500_005.0))


def _consolidated_differs(store: Path) -> None:
    edit_root(store, lambda r: r["consolidated_metadata"]["metadata"]["1"]["attributes"].update(resolution=25.0))


def _volatility_shape(store: Path) -> None:
    edit_node(store, "volatility", lambda d: d.update(shape=[2, 2], chunk_grid={"name": "regular", "configuration": {"chunk_shape": [2, 2]}}))


def _zarr_v2_file(store: Path) -> None:
    (store / "0" / ".zattrs").write_text("{}")


def _pyramid_chunk(store: Path) -> None:
    overwrite_chunk(store, "1/data/c/4/0/0/0")


def _extra_reference_key(store: Path) -> None:
    edit_block(store, set_field(["temporal", "delta_reference", "9"], 8))


MUTATIONS: dict[str, tuple[str, str, Callable[[Path], None]]] = {
    # name: (base store, expected section, mutation)
    "spec_version": ("unsharded", "3.2", lambda s: edit_block(s, set_field(["spec_version"], "0.3.0"))),
    "times_mirror": ("unsharded", "2.2", lambda s: edit_block(s, set_field(["times", 3], "2024-04-15T00:00:00Z"))),
    "band_names": ("unsharded", "3.2", lambda s: edit_block(s, set_field(["band_names"], ["b0", "bX"]))),
    "band_names_and_bands": ("unsharded", "2.2", lambda s: edit_block(s, lambda b: (b.update(band_names=["b0", "bX"]), b["bands"][1].update(name="bX")))),
    "levels_shape": ("unsharded", "3.7", lambda s: edit_block(s, set_field(["levels", 1, "shape", 2], 18))),
    "levels_grid": ("unsharded", "3.7", lambda s: edit_block(s, set_field(["levels", 0, "grid"], [4, 4]))),
    "level1_transform": ("unsharded", "3.3", _level1_transform),
    "multiscales_order": ("unsharded", "3.4", _level_order),
    "multiscales_crs": ("unsharded", "3.4", lambda s: edit_root(s, set_field(["attributes", "multiscales", 0, "datasets", 1, "crs"], "EPSG:32632"))),
    "level_crs": ("unsharded", "3.3", lambda s: edit_node(s, "1", set_field(["attributes", "crs"], "EPSG:32632"))),
    "nodata_vs_fill": ("unsharded", "2.3", lambda s: edit_node(s, "0/data", set_field(["fill_value"], 7))),
    "nodata_attribute_missing": ("unsharded", "2.3", lambda s: edit_node(s, "1/data", delete_field(["attributes", "nodata"]))),
    "nodata_nan": ("plain", "2.3", lambda s: (s / "zarr.json").write_text((s / "zarr.json").read_text().replace('"nodata": 0,', '"nodata": NaN,', 1))),
    "anchor_indices": ("unsharded", "4.2", lambda s: edit_block(s, set_field(["temporal", "anchor_indices"], [0, 3]))),
    "reference_missing": ("unsharded", "4.1", lambda s: edit_block(s, delete_field(["temporal", "delta_reference", "3"]))),
    "reference_to_non_anchor": ("unsharded", "4.2", lambda s: edit_block(s, set_field(["temporal", "delta_reference", "3"], 1))),
    "reference_too_far": ("unsharded", "4.2", lambda s: edit_block(s, set_field(["temporal", "delta_reference", "3"], 0))),
    "anchor_referenced": ("unsharded", "4.1", lambda s: edit_block(s, set_field(["temporal", "delta_reference", "2"], 0))),
    "reference_outside_time": ("unsharded", "4.1", _extra_reference_key),
    "none_with_anchor_fields": ("unsharded", "4.1", lambda s: edit_block(s, set_field(["temporal", "encoding"], "none"))),
    "star_delta_int16": ("unsharded", "4.1", _int16_star),
    "dimension_names": ("unsharded", "2.2", lambda s: edit_node(s, "0/x", set_field(["attributes", "_ARRAY_DIMENSIONS"], ["lon"]))),
    "odd_chunk_size": ("unsharded", "2.1", _odd_chunk),
    "chunk_size_differs": ("unsharded", "2.1", _chunk_size_differs),
    "unsupported_codec": ("unsharded", "8", _unsupported_codec),
    "blosc_bitshuffle": ("unsharded", "8", _bitshuffle),
    "shard_bytes_length": ("sharded", "7.3", _shard_bytes_wrong),
    "shard_bytes_missing_shard": ("sharded", "7.3", _shard_bytes_missing),
    "shard_bytes_unsharded": ("unsharded", "7.3", lambda s: edit_block(s, set_field(["shard_bytes"], {"0": {}}))),
    "shard_index_crc": ("sharded", "7.2", _flip_index_crc),
    "consolidated_differs": ("unsharded", "3.1", _consolidated_differs),
    "mask_level0_only": ("unsharded", "2.4", _drop_mask_above_0),
    "mask_variable_without_mask": ("plain", "2.4", _drop_all_masks_keep_variable),
    "mask_without_variable": ("unsharded", "2.4", lambda s: edit_block(s, delete_field(["mask_variable"]))),
    "volatility_missing": ("unsharded", "5", lambda s: drop_node(s, "volatility")),
    "volatility_shape": ("unsharded", "5", _volatility_shape),
    "time_not_increasing": ("unsharded", "2.2", _time_swap),
    "unexpected_object": ("unsharded", "2", add_unexpected_object),
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


