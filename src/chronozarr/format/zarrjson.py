"""Zarr v3 group documents, and the one bounded JSON parse of every document the package reads
(spec 2, 3): a store's `zarr.json`, a journal, a run record, a manifest, a STAC collection, an
answer from the network. Array documents are format/array_doc.py."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import DocumentError

# A chronozarr document nests about ten deep (root, consolidated copy, sharding codec, ...); one
# nested far deeper (MAX_JSON_DEPTH, shared with the JS reader) is built to exhaust a parser's stack
# or a reader's recursion, not to be read.
from ..limits import MAX_JSON_DEPTH


def parse_json(raw: bytes | str) -> Any:
    """A JSON document; DocumentError (a ValueError) for text that is not JSON or nests deeper
    than MAX_JSON_DEPTH. The message reads after the document's name: "<name> is not valid JSON"."""
    try:
        doc = json.loads(raw)
    except RecursionError:
        raise DocumentError(f"is not a usable JSON document: it is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DocumentError(f"is not valid JSON ({exc})") from None
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise DocumentError(f"is not a usable JSON document: it is nested deeper than {MAX_JSON_DEPTH} levels")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return doc


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
