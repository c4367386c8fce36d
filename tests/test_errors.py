"""Every exception a user can meet is one of ours and lives in errors.py, so `except
ChronozarrError` catches them all and the CLI prints them as one line. Read from the source with
`ast`, so a class added anywhere else is caught without being listed here."""

from __future__ import annotations

import ast
import builtins
import inspect
from pathlib import Path

from chronozarr import errors

SOURCE = Path(__file__).resolve().parents[1] / "src" / "chronozarr"


def _exception_classes_outside_errors() -> list[str]:
    """Classes outside errors.py whose bases name an exception (ours or Python's)."""
    ours = {name for name, obj in vars(errors).items() if inspect.isclass(obj) and issubclass(obj, BaseException)}
    found = []
    for path in SOURCE.rglob("*.py"):
        if path.name == "errors.py" and path.parent == SOURCE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases}
            if bases & ours or any(b.endswith(("Error", "Exception")) for b in bases):
                found.append(f"{path.relative_to(SOURCE)}: {node.name}")
    return found


def test_no_exception_class_is_defined_outside_errors_py() -> None:
    assert _exception_classes_outside_errors() == []


def test_every_class_in_errors_py_is_a_chronozarr_error() -> None:
    classes = [obj for obj in vars(errors).values() if inspect.isclass(obj) and obj.__module__ == errors.__name__]
    assert len(classes) >= 10
    others = [c.__name__ for c in classes if not issubclass(c, (errors.ChronozarrError, errors.ChronozarrWarning))]
    assert others == []


def test_the_error_names_the_js_reader_shares_mean_the_same_there() -> None:
    """The JS reader throws FetchError and StoreError (js/src/reader/errors.js): a failed request
    that is not a missing key, and a store that cannot be used. Here a FetchError is a StoreError,
    as a JS caller's `instanceof` order expects the narrower one first."""
    js = (SOURCE.parents[1] / "js" / "src" / "reader" / "errors.js").read_text(encoding="utf-8")
    for name in ("FetchError", "StoreError"):
        assert f"export class {name} extends Error" in js
        assert issubclass(getattr(errors, name), errors.ChronozarrError)
    exc = errors.FetchError("http://127.0.0.1:1/s/zarr.json", 403, "refused")
    assert (exc.url, exc.status) == ("http://127.0.0.1:1/s/zarr.json", 403)
    assert str(exc) == "refused: http://127.0.0.1:1/s/zarr.json (HTTP 403)"


BUILTIN_EXCEPTIONS = {
    name: obj for name, obj in vars(builtins).items()
    if inspect.isclass(obj) and issubclass(obj, BaseException) and not issubclass(obj, Warning)
}

# Raises of a builtin that never reach a user, each with the reason.
ALLOWED_BUILTIN_RAISES = {
    # socketserver's get_request contract: _handle_request_noblock swallows an OSError and asks again
    ("serve/server.py", "OSError"),
    # obstore's missing-key signal inside the bucket backend: `_answer` turns it into None (absent)
    ("store/bucket.py", "FileNotFoundError"),
    # setup.py runs webapps.py by path while the package is being built (no relative imports there)
    # and turns this FileNotFoundError into its own one-line SystemExit
    ("webapps.py", "FileNotFoundError"),
}
# The protocol of a dunder method demands the builtin: Mapping.get and hasattr() catch exactly these.
PROTOCOL_RAISES = {("__getitem__", "KeyError"), ("__getattr__", "AttributeError")}


def _raised_builtin(node: ast.Raise) -> str | None:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return exc.id if isinstance(exc, ast.Name) and exc.id in BUILTIN_EXCEPTIONS else None


def _caught_here(name: str, chain: list[ast.AST]) -> bool:
    """Whether an enclosing `try` of the same function catches the raise: control flow, not an error
    that leaves the function. `chain` runs from the module down to the raise."""
    for parent, child in zip(reversed(chain[:-1]), reversed(chain[1:]), strict=True):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                for kind in kinds:
                    caught = BUILTIN_EXCEPTIONS.get(kind.id) if isinstance(kind, ast.Name) else None
                    if kind is None or caught is not None and issubclass(BUILTIN_EXCEPTIONS[name], caught):
                        return True
    return False


def _function(chain: list[ast.AST]) -> str:
    return next((n.name for n in reversed(chain) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), "")


def _walk(node: ast.AST, chain: list[ast.AST]):
    chain = [*chain, node]
    yield node, chain
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, chain)


def bare_builtin_raises(text: str, where: str) -> list[str]:
    """`where:line raise Name` for each raise of a builtin exception that can leave its function."""
    found = []
    for node, chain in _walk(ast.parse(text), []):
        name = _raised_builtin(node) if isinstance(node, ast.Raise) else None
        if name is None or name == "NotImplementedError" or (where, name) in ALLOWED_BUILTIN_RAISES:
            continue
        if (_function(chain), name) in PROTOCOL_RAISES or _caught_here(name, chain):
            continue
        found.append(f"{where}:{node.lineno} raise {name}")
    return found


def test_no_error_a_user_can_get_is_a_bare_builtin() -> None:
    """Every raise in src/ is of a class in errors.py (with the builtin as a mixin where callers
    catch it), except those listed above with their reason and NotImplementedError."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        found += bare_builtin_raises(path.read_text(encoding="utf-8"), path.relative_to(SOURCE).as_posix())
    assert found == []


def test_the_raise_walker_tells_control_flow_from_an_escaping_error() -> None:
    text = (
        "def escapes(x):\n    if x:\n        raise ValueError('bad')\n"
        "def caught():\n    try:\n        raise ValueError('retry')\n    except (OSError, ValueError):\n        pass\n"
        "def handler_raises():\n    try:\n        pass\n    except OSError:\n        raise KeyError('k')\n"
        "def inner():\n    try:\n        def f():\n            raise TypeError('t')\n    except TypeError:\n        pass\n"
        "class M:\n    def __getitem__(self, k):\n        raise KeyError(k)\n"
    )
    assert bare_builtin_raises(text, "m.py") == ["m.py:3 raise ValueError", "m.py:13 raise KeyError", "m.py:17 raise TypeError"]


def test_the_warnings_live_in_errors_py_and_the_old_import_still_works() -> None:
    from chronozarr.read.history import HistoryWarning

    assert HistoryWarning is errors.HistoryWarning and issubclass(HistoryWarning, errors.ChronozarrWarning)
    assert issubclass(errors.ChronozarrWarning, UserWarning)
