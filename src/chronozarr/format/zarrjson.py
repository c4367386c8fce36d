"""Zarr v3 node documents (`zarr.json`) for every object of a store (spec 2, 3, 7), written and read."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .codecs import CodecSpec, bytes_codec

INDEX_CODECS = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
# A chronozarr document nests about ten deep (root, consolidated copy, sharding codec, ...); one
# nested far deeper is built to exhaust a parser's stack or a reader's recursion, not to be read.
MAX_JSON_DEPTH = 64


def parse_json(raw: bytes) -> Any:
    """A zarr.json document; ValueError for bytes that are not JSON or nest deeper than MAX_JSON_DEPTH."""
    try:
        doc = json.loads(raw)
    except RecursionError:
        raise ValueError(f"is not a usable JSON document: it is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"is not valid JSON ({exc})") from None
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"is not a usable JSON document: it is nested deeper than {MAX_JSON_DEPTH} levels")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return doc


def json_fill(fill: float | int | str, dtype: np.dtype | str) -> Any:
    """The fill value as the JSON number (or string) Zarr v3 expects for the dtype."""
    if str(dtype) == "string":
        return str(fill)
    kind = np.dtype(dtype).kind
    return float(fill) if kind == "f" else int(fill)


def array_json(
    *,
    shape: Sequence[int],
    dtype: str,
    chunk_shape: Sequence[int],
    codec: CodecSpec,
    dimension_names: Sequence[str],
    fill_value: float | int | str = 0,
    attributes: Mapping[str, Any] | None = None,
    shard_shape: Sequence[int] | None = None,
) -> dict[str, Any]:
    """An array document; with shard_shape the chunks sit inside `sharding_indexed` shards."""
    if dtype == "string":
        codecs: list[dict[str, Any]] = [{"name": "vlen-utf8", "configuration": {}}, *codec.chain_json(np.dtype("u1"))]
    else:
        codecs = [bytes_codec(np.dtype(dtype)), *codec.chain_json(np.dtype(dtype))]
    grid_shape = list(chunk_shape)
    if shard_shape is not None:
        codecs = [
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": list(chunk_shape),
                    "codecs": codecs,
                    "index_codecs": INDEX_CODECS,
                    "index_location": "end",
                },
            }
        ]
        grid_shape = list(shard_shape)
    attrs = {"_ARRAY_DIMENSIONS": list(dimension_names), **(attributes or {})}
    return {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [int(s) for s in shape],
        "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [int(s) for s in grid_shape]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": json_fill(fill_value, dtype),
        "codecs": codecs,
        "dimension_names": list(dimension_names),
        "attributes": attrs,
    }


def group_json(attributes: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"zarr_format": 3, "node_type": "group", "attributes": dict(attributes or {})}


def with_consolidated(root: dict[str, Any], nodes: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """The root document carrying zarr-python 3 inline consolidated metadata of every node below it."""
    out = dict(root)
    out["consolidated_metadata"] = {
        "kind": "inline",
        "must_understand": False,
        "metadata": {key: nodes[key] for key in sorted(nodes)},
    }
    return out
