"""Fuzz targets: root and array documents of a small honest store, mutated, opened and read by
the reader and judged by the validator. Allowed outcomes: values, or our own error; the
validator never raises."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from budget import fuzz
from hostile_stores import build_base
from hypothesis import strategies as st
from memory_source import MemorySource
from mutations import encode_json, mutated_document

import chronozarr
from chronozarr.errors import ChronozarrError
from chronozarr.read.store import ChronoStore


def _base(name: str) -> dict[str, bytes]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        build_base(Path(tmp) / "s", name)
        return MemorySource.of_directory(Path(tmp) / "s")


BASES = {name: _base(name) for name in ("star", "sharded")}


def _read_everything(objects: dict[str, bytes]) -> None:
    """Open, read the first and last timestep of every level's first cell, a mask and a pixel
    history where there is one, and validate; any exception that is not ours fails the target."""
    source = MemorySource(objects)
    try:
        with ChronoStore(source, concurrency=2) as store:
            n = len(store.times)
            for level in store.levels[:3]:
                if 0 in level.grid:
                    continue  # a level with no cells has none to read (IndexError names the grid)
                for t in sorted({0, n - 1}) if n else []:
                    cell = store.read_cell(t, 0, 0, lod=level.index)
                    assert isinstance(cell, np.ndarray)
                    store.read_mask(t, lod=level.index, window=(0, 1, 0, 1))
            if n and 0 not in store.levels[0].grid:
                store.read_point(0, 0)
    except ChronozarrError:
        pass
    report = chronozarr.validate(MemorySource(objects), sample_pyramid=True)
    assert report is not None


# Cases are drawn as encoded bytes, so that a failing example prints as bytes however deep it nests.
ROOTS = st.sampled_from(sorted(BASES)).flatmap(
    lambda b: st.tuples(st.just(b), mutated_document(json.loads(BASES[b]["zarr.json"])).map(encode_json))
)


@fuzz("root_documents", ROOTS, slice_examples=40)
def check_root(case: tuple[str, bytes]) -> None:
    """A root zarr.json with parts replaced, removed or nested deep."""
    base, root = case
    _read_everything({**BASES[base], "zarr.json": root})


def _array_case(base: str) -> st.SearchStrategy[tuple[str, bytes]]:
    root = json.loads(BASES[base]["zarr.json"])
    doc = root["consolidated_metadata"]["metadata"]["0/data"]
    return st.tuples(st.just(base), mutated_document(doc).map(encode_json))


ARRAYS = st.sampled_from(sorted(BASES)).flatmap(_array_case)


@fuzz("array_documents", ARRAYS, slice_examples=40)
def check_array(case: tuple[str, bytes]) -> None:
    """The level-0 data array document, in the consolidated copy and the node's own zarr.json."""
    base, doc = case
    root = json.loads(BASES[base]["zarr.json"])
    root["consolidated_metadata"]["metadata"]["0/data"] = json.loads(doc)
    _read_everything({**BASES[base], "zarr.json": encode_json(root), "0/data/zarr.json": doc})


test_fuzz_root_documents = check_root
test_fuzz_array_documents = check_array
