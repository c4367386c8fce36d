"""Fuzz targets on what a store holds besides its data chunks and documents: coordinate, time,
band and volatility arrays (their chunks and documents), level shapes that disagree with each
other or claim far more than is stored, and keys that are directories on disk. Allowed outcomes:
values, or our own error, within the memory a read of the variant implies."""

from __future__ import annotations

import json
import resource
import shutil
import tempfile
from pathlib import Path

import pytest
from budget import fuzz
from hostile_stores import streamed_zstd_bomb
from hypothesis import strategies as st
from mutations import encode_json, mutated_bytes, mutated_document
from reading import BASES, read_everything

import chronozarr
from chronozarr.store import MemoryStore

GROWTH_BOUND = 256 * 2**20  # a variant of a 32 x 32 store: nothing it holds needs more
SMALL_ARRAYS = ("0/band", "0/time", "0/x", "0/y", "1/band", "volatility")


def _chunk_key(objects: dict[str, bytes], node: str) -> str:
    return next(k for k in sorted(objects) if k.startswith(f"{node}/c/"))


@st.composite
def small_array_cases(draw: st.DrawFn) -> tuple[str, str, str, bytes]:
    """(base, array, what is changed: "chunk" or "document", the new bytes)."""
    base = draw(st.sampled_from(sorted(BASES)))
    node = draw(st.sampled_from(SMALL_ARRAYS))
    objects = BASES[base]
    kind = draw(st.sampled_from(["bomb", "chunk", "document"]))
    if kind == "bomb":
        return base, node, "chunk", streamed_zstd_bomb(2**30)
    if kind == "chunk":
        return base, node, "chunk", draw(mutated_bytes(objects[_chunk_key(objects, node)]))
    doc = json.loads(objects["zarr.json"])["consolidated_metadata"]["metadata"][node]
    return base, node, "document", encode_json(draw(mutated_document(doc)))


@fuzz("small_arrays", small_array_cases(), slice_examples=30)
def check_small_arrays(case: tuple[str, str, str, bytes]) -> None:
    """A coordinate, time, band or volatility chunk mutated (a 1 GiB streamed zstd frame among
    them), or its array document, in the consolidated copy and the node's own zarr.json."""
    base, node, kind, new = case
    objects = dict(BASES[base])
    if kind == "chunk":
        objects[_chunk_key(objects, node)] = new
    else:
        root = json.loads(objects["zarr.json"])
        root["consolidated_metadata"]["metadata"][node] = json.loads(new)
        objects |= {"zarr.json": encode_json(root), f"{node}/zarr.json": new}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    read_everything(objects)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert grown < GROWTH_BOUND, f"{node} {kind}: peak memory grew {grown} bytes"


EXTENTS = st.one_of(st.sampled_from([0, 1, 15, 16, 17, 2**20, 2**31, 2**53]), st.integers(0, 2**40))


@fuzz("level_shapes", st.tuples(st.sampled_from(sorted(BASES)), st.integers(0, 2), st.integers(0, 3), EXTENTS, st.booleans()), slice_examples=30)
def check_level_shapes(case: tuple[str, int, int, int, bool]) -> None:
    """One extent of one level's data array changed, in both copies of its document and, when
    drawn, in chronozarr.levels too (a store that agrees with itself about a shape it does not hold)."""
    base, level, dim, extent, mirrored = case
    objects = dict(BASES[base])
    root = json.loads(objects["zarr.json"])
    block = root["attributes"]["chronozarr"]
    level = min(level, len(block["levels"]) - 1)
    doc = root["consolidated_metadata"]["metadata"][f"{level}/data"]
    disagrees = doc["shape"][dim] != extent and not mirrored
    doc["shape"][dim] = extent
    if mirrored:
        block["levels"][level]["shape"][dim] = extent
    objects |= {"zarr.json": encode_json(root), f"{level}/data/zarr.json": encode_json(doc)}
    if disagrees:  # the shape the arrays claim is not the store's: refused when opened
        with pytest.raises(chronozarr.StoreError):
            chronozarr.open_dataset(MemoryStore(objects))
    read_everything(objects)


@fuzz("directory_keys", st.tuples(st.sampled_from(sorted(BASES)), st.integers(0, 10**6), st.booleans()), slice_examples=12)
def check_directory_keys(case: tuple[str, int, bool]) -> None:
    """On disk, an object replaced by a directory (holding a file, as a sync gone wrong leaves it),
    or a directory above objects replaced by a file."""
    base, pick, above = case
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s"
        for key, data in BASES[base].items():
            (store / key).parent.mkdir(parents=True, exist_ok=True)
            (store / key).write_bytes(data)
        # what the reads of read_everything and validate meet: cell (0, 0) of level 0, the small arrays
        keys = sorted(k for k in BASES[base] if k.endswith("/0/0/0") and k.startswith("0/data/c/") or k.startswith(("0/band/c/", "0/x/c/")))
        key = keys[pick % len(keys)]
        target = store / key
        if above and "/" in key:
            shutil.rmtree(target.parent)
            target.parent.write_bytes(b"\x00" * 8)
        else:
            target.unlink()
            target.mkdir()
            (target / "0").write_bytes(b"\x00" * 8)
        read_everything(store)


test_fuzz_small_arrays = check_small_arrays
test_fuzz_level_shapes = check_level_shapes
test_fuzz_directory_keys = check_directory_keys
