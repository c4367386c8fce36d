"""The code style's size rules, checked by machine over src/: no module over ~350 lines and no
function over ~80. A function counts with the functions and classes defined inside it: its
closures share its state, so they are one unit to read, as in js/test/code-size.test.js."""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "chronozarr"
MODULE_LINES = 360  # ~350: a module this long is split by job
FUNCTION_LINES = 80

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _lines(function: Function) -> int:
    """Lines of `function` from its `def` to its end, what is defined inside it included."""
    return (function.end_lineno or function.lineno) - function.lineno + 1


def _long_functions(text: str) -> list[tuple[str, int]]:
    return [
        (node.name, _lines(node)) for node in ast.walk(ast.parse(text))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _lines(node) > FUNCTION_LINES
    ]


def test_no_module_is_longer_than_the_rule() -> None:
    long = {str(p.relative_to(SOURCE)): n for p in SOURCE.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert not long, f"modules over {MODULE_LINES} lines, to split by job: {long}"


def test_no_function_is_longer_than_the_rule() -> None:
    long = {f"{p.relative_to(SOURCE)}:{name}": n for p in SOURCE.rglob("*.py") for name, n in _long_functions(p.read_text(encoding="utf-8"))}
    assert not long, f"functions over {FUNCTION_LINES} lines, counted with their closures: {long}"


def test_a_nested_function_counts_as_lines_of_the_one_around_it() -> None:
    # Two closures of half the rule each: neither is long, the function around them is.
    half = "\n".join(f"        x{i} = {i}" for i in range(FUNCTION_LINES // 2))
    text = f"def outer():\n    def a():\n{half}\n    def b():\n{half}\n    return a, b\n"
    assert _long_functions(text) == [("outer", FUNCTION_LINES + 4)]
    # A class made inside a function counts too; methods of a module-level class count on their own.
    inner = "\n".join(f"            x{i} = {i}" for i in range(FUNCTION_LINES // 2))
    made = f"def make():\n    class C:\n        def a(self):\n{inner}\n        def b(self):\n{inner}\n    return C\n"
    assert _long_functions(made) == [("make", FUNCTION_LINES + 5)]
    assert _long_functions(f"class D:\n    def a(self):\n{half}\n    def b(self):\n{half}\n") == []
    flat = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES - 1))
    assert _long_functions(f"def flat():\n{flat}\n") == []
