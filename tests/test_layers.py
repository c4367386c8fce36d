"""Layers point one way (DESIGN.md): format/ imports nothing of ours; the reader builds on format
and the shared support modules; write, check, io, export and serve build on the reader and
format but not on each other; compositions (convert, publish, view, demo) sit above them, and the
commands above everything. The imports are read from the source with `ast`, so a new module is
checked without being listed here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "chronozarr"

SUPPORT = {"errors", "extras", "progress", "crs_match", "crs", "buckets", "webapps"}
BELOW_COMPOSITIONS = {"format", "read", "write", "check", "io", "export", "serve"} | SUPPORT
COMPOSITIONS = {"convert", "publish", "view", "notebook_map", "hosted_viewer", "demo"}

# What each unit (a subpackage, or a module at the top of the package) may import of ours.
ALLOWED: dict[str, set[str]] = {
    "format": set(),
    **{name: SUPPORT for name in SUPPORT},
    "read": {"format"} | SUPPORT,
    "write": {"format", "read"} | SUPPORT,
    "check": {"format", "read"} | SUPPORT,
    "io": {"format", "read"} | SUPPORT,
    "export": {"format", "read"} | SUPPORT,
    "serve": {"format"} | SUPPORT,
    **{name: BELOW_COMPOSITIONS | COMPOSITIONS for name in COMPOSITIONS},
}


def _unit(path: Path) -> str:
    rel = path.relative_to(SOURCE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imported_units(path: Path) -> set[str]:
    """The units of ours that `path` imports, other than its own."""
    return _imports(path.read_text(encoding="utf-8"), list(path.relative_to(SOURCE).parts[:-1])) - {_unit(path)}


def _imports(text: str, package: list[str]) -> set[str]:
    """The units of ours that module source `text` in `package` imports, relative
    (`from ..read import x`, `from . import convert`) or absolute (`import chronozarr.io`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            parts = base + (node.module.split(".") if node.module else [])
            found.update([parts[0]] if parts else [alias.name for alias in node.names])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("chronozarr."):
            found.add((node.module or "").split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("chronozarr."))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in SOURCE.rglob("*.py") if _unit(p) in ALLOWED)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SOURCE)))
def test_module_imports_only_the_layers_below_it(path: Path) -> None:
    unit = _unit(path)
    refused = _imported_units(path) - ALLOWED[unit]
    assert not refused, f"{path.relative_to(SOURCE)} ({unit}) imports {sorted(refused)}; it may import {sorted(ALLOWED[unit])}"


def test_every_unit_of_the_package_has_a_layer() -> None:
    units = {_unit(p) for p in SOURCE.rglob("*.py")}
    assert units - set(ALLOWED) == {"__init__", "cli", "commands"}


def test_the_import_reader_sees_relative_and_absolute_imports() -> None:
    """The checker itself, on a write/ module that imports check/, io/ and itself three ways."""
    text = "from ..check import validate\nimport chronozarr.io.inputs\nfrom chronozarr.export import cog\nfrom . import plan\nfrom .. import errors\n"
    assert _imports(text, ["write"]) == {"check", "io", "export", "write", "errors"}
    assert _imports("from . import convert\n", []) == {"convert"}
