"""Cache classes (spec 9 and 14 "Publishing") of every object of random store layouts, against the
list spec 14 gives: the root and every other zarr.json, time/c/0 of each level, volatility/c/0/0,
and in a sharded store the shard holding the last timestep change in place; nothing else does."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_settings import PROPERTIES

from chronozarr.format.caching import IMMUTABLE, TRAILING, cache_control, object_class

SHORT, YEAR = "public, max-age=300", "public, max-age=31536000, immutable"  # docs/hosting.md section 3


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "n_time": draw(st.integers(1, 30)),
        "shard_time": draw(st.none() | st.integers(1, 12)),
        "levels": draw(st.integers(1, 3)),
        "grid": (draw(st.integers(1, 3)), draw(st.integers(1, 3))),
        "planes": draw(st.sampled_from([(), ("mask",), ("mask", "coverage")])),
    }


def _array_doc(layout: dict[str, Any], name: str) -> dict[str, Any]:
    """The parts of a time-dependent array's zarr.json that say how timesteps map to objects."""
    n_time, shard_time = layout["n_time"], layout["shard_time"]
    dims = ["time", "band", "y", "x"] if name == "data" else ["time", "y", "x"]
    inner = [1] + [8] * (len(dims) - 1)
    codecs: list[dict[str, Any]] = [{"name": "bytes"}]
    if shard_time is not None:
        codecs = [{"name": "sharding_indexed", "configuration": {"chunk_shape": inner, "codecs": codecs}}]
    per_object = inner if shard_time is None else [shard_time] + inner[1:]
    return {
        "node_type": "array",
        "shape": [n_time] + [16] * (len(dims) - 1),
        "dimension_names": dims,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": per_object}},
        "codecs": codecs,
    }


def _objects(layout: dict[str, Any]) -> dict[str, str]:
    """Every key of the store with the class spec 14 gives it."""
    n_time, shard_time, (rows, cols) = layout["n_time"], layout["shard_time"], layout["grid"]
    objects = {"zarr.json": "root", "volatility/zarr.json": "metadata", "volatility/c/0/0": "rewritten"}
    last_shard = None if shard_time is None else (n_time - 1) // shard_time
    for k in range(layout["levels"]):
        objects[f"{k}/zarr.json"] = "metadata"
        for coord in ("time", "band", "y", "x"):
            objects[f"{k}/{coord}/zarr.json"] = "metadata"
            objects[f"{k}/{coord}/c/0"] = "rewritten" if coord == "time" else "immutable"
        for name in ("data", *layout["planes"]):
            objects[f"{k}/{name}/zarr.json"] = "metadata"
            band = ["0"] if name == "data" else []
            for index in range(n_time if shard_time is None else last_shard + 1):
                for r in range(rows):
                    for c in range(cols):
                        key = "/".join([str(k), name, "c", str(index), *band, str(r), str(c)])
                        objects[key] = "trailing" if index == last_shard else "immutable"
    return objects


@PROPERTIES
@given(layout=layouts())
def test_every_object_has_the_class_spec_14_gives_it(layout: dict[str, Any]) -> None:
    block = {"variable": "data", "volatility_path": "volatility"}
    block |= {f"{p}_variable": p for p in layout["planes"]}
    docs = {f"{k}/{name}": _array_doc(layout, name) for k in range(layout["levels"]) for name in ("data", *layout["planes"])}
    for key, want in _objects(layout).items():
        assert object_class(key, block, docs.get) == want, key


@pytest.mark.parametrize(("cls", "header"), [("root", SHORT), ("metadata", SHORT), ("rewritten", SHORT), ("trailing", SHORT), ("immutable", YEAR)])
def test_short_lived_classes_get_five_minutes_and_the_rest_a_year(cls: str, header: str) -> None:
    assert cache_control(cls) == header


@PROPERTIES
@given(seconds=st.integers(0, 10**7))
def test_the_short_lifetime_can_be_chosen(seconds: int) -> None:
    assert cache_control("trailing", seconds) == f"public, max-age={seconds}"
    assert cache_control("immutable", seconds) == YEAR


@pytest.mark.parametrize("field", ["variable", "mask_variable", "coverage_variable"])
@pytest.mark.parametrize("value", [["coverage"], {"name": "coverage"}, 7, None])
def test_a_block_field_that_is_not_a_name_classes_objects_without_failing(field, value):
    """Found by the hostile corpus: doctor crashed (TypeError: unhashable type) on a block whose
    coverage_variable was a list. Such a field names no array, so it changes no class."""
    shape = {"shape": [5, 16, 16], "chunk_grid": {"configuration": {"chunk_shape": [4, 16, 16]}}}
    doc = {"node_type": "array", "dimension_names": ["t", "y", "x"], "codecs": [{"name": "sharding_indexed"}], **shape}
    block = {"variable": "data", field: value}
    assert object_class("0/coverage/c/1/0/0", block, lambda path: doc) == IMMUTABLE


@pytest.mark.parametrize("field, value", [
    ("dimension_names", {"0": "time"}), ("dimension_names", "time"), ("dimension_names", 7),
    ("codecs", 7), ("codecs", {"name": "sharding_indexed"}), ("shape", "5"), ("chunk_grid", ["x"]),
])
def test_an_array_document_field_of_another_type_classes_its_objects_without_failing(field, value):
    """Found by the hostile corpus: `serve` printed a KeyError traceback (and answered nothing) for
    a chunk of an array whose dimension_names was an object. A field of the wrong type says
    nothing of how timesteps map to objects, so the object keeps the class a chunk has."""
    doc = {"node_type": "array", "dimension_names": ["time", "y", "x"], "shape": [5, 16, 16],
           "chunk_grid": {"configuration": {"chunk_shape": [4, 16, 16]}}, "codecs": [{"name": "sharding_indexed"}]}
    doc[field] = value
    assert object_class("0/data/c/1/0/0", {"variable": "data"}, lambda path: doc) in (IMMUTABLE, TRAILING)
