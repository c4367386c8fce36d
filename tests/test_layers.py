"""Layers point one way (ARCHITECTURE.md, "Layers", draws this table): format/ imports nothing of ours
but the error classes (errors.py, a leaf); store/ (the object-store interface and its backends) builds
only on the support modules; the reader builds on format, store and the support modules; write,
check, inputs and export build on the reader, store and format but not on each other; serve builds on
store and format; compositions (convert, publish, view, demo) sit above them, and the commands above
everything. The imports are read from the source with `ast`, so a new module is checked without
being listed here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "chronozarr"

SUPPORT = {"errors", "limits", "extras", "progress", "crs_match", "crs", "buckets", "webapps", "deprecation"}
BELOW_COMPOSITIONS = {"format", "store", "read", "write", "check", "inputs", "export", "serve"} | SUPPORT
COMPOSITIONS = {"convert", "publish", "view", "notebook_map", "notebook_widget", "hosted_viewer", "demo"}

# What each unit (a subpackage, or a module at the top of the package) may import of ours.
ALLOWED: dict[str, set[str]] = {
    "format": {"errors", "limits"},  # leaves: the format's refusals are chronozarr errors, its limits are shared with JS
    **{name: SUPPORT for name in SUPPORT},
    "store": SUPPORT,  # the object-store interface and its backends, beside format at the bottom
    "read": {"format", "store"} | SUPPORT,
    "write": {"format", "store", "read"} | SUPPORT,
    "check": {"format", "store", "read"} | SUPPORT,
    "inputs": {"format", "store", "read"} | SUPPORT,
    "export": {"format", "store", "read"} | SUPPORT,
    "serve": {"format", "store"} | SUPPORT,
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
    (`from ..read import x`, `from . import convert`) or absolute (`import chronozarr.inputs`)."""
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
    """The checker itself, on a write/ module that imports check/, inputs/ and itself three ways."""
    text = "from ..check import validate\nimport chronozarr.inputs.open\nfrom chronozarr.export import cog\nfrom . import plan\nfrom .. import errors\n"
    assert _imports(text, ["write"]) == {"check", "inputs", "export", "write", "errors"}
    assert _imports("from . import convert\n", []) == {"convert"}


# Import cycles between modules (type-only imports included: a cycle is a cycle for the reader of
# the code) that are still to be broken. A new cycle fails the test; so does one of these once it
# is gone, so the list only shrinks.
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (relative or absolute, at any depth of the file)."""
    paths = {_module_name(p): p for p in SOURCE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = [p for p in package if p]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("chronozarr."):
                base = (node.module or "").removeprefix("chronozarr.")
            else:
                continue
            # `from . import faults` imports the module faults; `from .ranges import x` the module ranges.
            modules = {f"{base}.{a.name}".strip(".") for a in node.names} & paths.keys()
            found.update(t for t in (modules or {base}) if t in paths and t != name)
        graph[name] = found
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while (w := stack.pop()) != v:
                group.append(w)
            if group:
                out.add(tuple(sorted([v, *group])))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_new_import_cycle_and_the_known_ones_are_still_there_to_break() -> None:
    assert _cycles(_module_graph()) == KNOWN_CYCLES


def test_the_cycle_finder_sees_a_cycle_through_a_type_only_import() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert _cycles({"a": {"b"}, "b": set()}) == set()
