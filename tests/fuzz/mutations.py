"""Hypothesis strategies for what a stranger's store may hold: JSON documents with one part
replaced, removed or nested deep, and byte strings with bytes flipped, cut or inserted."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

# JSON values as a hostile writer picks them: types that do not belong, numbers at the edges of
# what parsers hold (Python's json also reads NaN and Infinity), long strings, lists and objects.
EDGE_NUMBERS = st.sampled_from([0, -1, 1, 2**31, 2**53, 2**53 + 1, 2**63, 2**64, -(2**63), 10**30, 0.5, -0.0, 1e308, float("inf"), float("-inf"), float("nan")])
SCALARS = st.one_of(
    st.none(), st.booleans(), EDGE_NUMBERS, st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.sampled_from(["", "0", "NaN", "zstd", "sharding_indexed", "bytes", "star-delta", "none", "2024-01-01T00:00:00Z", "99999-01-01", "../x", "data/x"]),
)
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document (keys of objects, indices of lists), outermost first."""
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc[:16]):
            out += _paths(value, (*prefix, i))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


@st.composite
def mutated_document(draw: st.DrawFn, doc: Any, edits: int = 3) -> Any:
    """`doc` with one to `edits` places replaced by other JSON, removed, or wrapped deep."""
    out = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, edits))):
        paths = [p for p in _paths(out) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(out, path)
        action = draw(st.sampled_from(["replace", "replace", "replace", "remove", "deepen", "grow"]))
        if action == "remove":
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
        elif action == "deepen":
            depth = draw(st.sampled_from([2, 50, 70, 300]))  # deeper is tests/hostile_stores.py deep_json
            value: Any = parent[path[-1]]
            for _ in range(depth):
                value = [value]
            parent[path[-1]] = value
        elif action == "grow" and isinstance(parent[path[-1]], list):
            parent[path[-1]] = parent[path[-1]] * draw(st.sampled_from([2, 100]))
        else:
            parent[path[-1]] = draw(JSON)
    return out


def encode_json(doc: Any) -> bytes:
    """The document as a writer would store it (Python's json, which writes Infinity and NaN)."""
    return json.dumps(doc).encode()


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` with a few bytes flipped, a cut, an insertion, or replaced by noise altogether."""
    kind = draw(st.sampled_from(["flip", "flip", "cut", "insert", "noise", "empty"]))
    if kind == "noise":
        return draw(st.binary(max_size=2 * len(data) + 16))
    if kind == "empty":
        return b""
    out = bytearray(data)
    if kind == "cut":
        return bytes(out[: draw(st.integers(0, max(len(out) - 1, 0)))])
    if kind == "insert":
        at = draw(st.integers(0, len(out)))
        return bytes(out[:at] + draw(st.binary(min_size=1, max_size=64)) + out[at:])
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if out:
            out[at] ^= draw(st.integers(1, 255))
    return bytes(out)
