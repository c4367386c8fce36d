"""Fuzz targets: root and array documents of a small honest store, mutated, opened and read by
the reader and judged by the validator. Allowed outcomes: values, or our own error; the
validator never raises."""

from __future__ import annotations

import json

from budget import fuzz
from hypothesis import strategies as st
from mutations import encode_json, mutated_document
from reading import BASES, read_everything


# Cases are drawn as encoded bytes, so that a failing example prints as bytes however deep it nests.
ROOTS = st.sampled_from(sorted(BASES)).flatmap(
    lambda b: st.tuples(st.just(b), mutated_document(json.loads(BASES[b]["zarr.json"])).map(encode_json))
)


@fuzz("root_documents", ROOTS, slice_examples=40)
def check_root(case: tuple[str, bytes]) -> None:
    """A root zarr.json with parts replaced, removed or nested deep."""
    base, root = case
    read_everything({**BASES[base], "zarr.json": root})


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
    read_everything({**BASES[base], "zarr.json": encode_json(root), "0/data/zarr.json": doc})


test_fuzz_root_documents = check_root
test_fuzz_array_documents = check_array
