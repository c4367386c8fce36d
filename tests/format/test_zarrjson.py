"""Every JSON document the package reads (a store's, a journal's, a run record, a manifest, a STAC
collection, an answer from the network) goes through the one bounded parser, format/zarrjson.py."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from chronozarr.errors import DocumentError
from chronozarr.format.zarrjson import MAX_JSON_DEPTH, parse_json

SOURCE = Path(__file__).resolve().parents[2] / "src" / "chronozarr"
PARSER = SOURCE / "format" / "zarrjson.py"
# limits.py reads the package's own limits.json, which holds the parser's depth limit: it cannot use the parser
OWN_FILES = (SOURCE / "limits.py",)


def _json_reads(text: str) -> list[int]:
    """Lines calling json.load or json.loads (as `json.x(...)` or imported by name)."""
    tree = ast.parse(text)
    names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "json" for a in n.names if a.name in ("load", "loads")}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("load", "loads") and isinstance(f.value, ast.Name) and f.value.id == "json":
            found.append(node.lineno)
        elif isinstance(f, ast.Name) and f.id in names:
            found.append(node.lineno)
    return found


def test_no_module_parses_json_outside_the_bounded_parser() -> None:
    found = [f"{p.relative_to(SOURCE)}:{line}" for p in sorted(SOURCE.rglob("*.py")) if p != PARSER and p not in OWN_FILES for line in _json_reads(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_json_read_finder_sees_both_spellings() -> None:
    assert _json_reads("import json\nfrom json import loads as l\njson.load(f)\nl('1')\njson.dumps(1)\n") == [3, 4]


def test_the_parser_reads_text_and_bytes_and_refuses_deep_or_broken_json() -> None:
    doc = {"a": [1, {"b": None}], "c": "é"}
    assert parse_json(json.dumps(doc)) == doc and parse_json(json.dumps(doc).encode()) == doc
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    assert parse_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    for raw in (deep, b"{", b"\xff\xfe{"):
        with pytest.raises(DocumentError, match="JSON"):
            parse_json(raw)
