"""The code style's size rules, checked by machine over src/: no module over ~350 lines and no
function over ~80. A nested function counts on its own, not as lines of the one around it."""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "chronozarr"
MODULE_LINES = 360  # ~350: a module this long is split by job
FUNCTION_LINES = 80

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _own_lines(function: Function) -> int:
    """Lines of `function` less those of the functions and classes defined in its body."""
    nested = [n for n in ast.walk(function) if n is not function and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    outermost = [n for n in nested if not any(o is not n and o.lineno <= n.lineno and (n.end_lineno or 0) <= (o.end_lineno or 0) for o in nested)]
    return (function.end_lineno or function.lineno) - function.lineno + 1 - sum((n.end_lineno or n.lineno) - n.lineno + 1 for n in outermost)


def _long_functions(text: str) -> list[tuple[str, int]]:
    return [
        (node.name, _own_lines(node)) for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _own_lines(node) > FUNCTION_LINES
    ]


def test_no_module_is_longer_than_the_rule() -> None:
    long = {str(p.relative_to(SOURCE)): n for p in SOURCE.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert not long, f"modules over {MODULE_LINES} lines, to split by job: {long}"


def test_no_function_is_longer_than_the_rule() -> None:
    long = {f"{p.relative_to(SOURCE)}:{name}": n for p in SOURCE.rglob("*.py") for name, n in _long_functions(p.read_text(encoding="utf-8"))}
    assert not long, f"functions over {FUNCTION_LINES} lines: {long}"


def test_a_nested_function_counts_on_its_own() -> None:
    inner = "\n".join(f"        x{i} = {i}" for i in range(FUNCTION_LINES))
    text = f"def outer():\n    def inner():\n{inner}\n    return inner\n"
    assert _long_functions(text) == [("inner", FUNCTION_LINES + 1)]
    flat = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    assert _long_functions(f"def flat():\n{flat}\n") == [("flat", FUNCTION_LINES + 1)]
