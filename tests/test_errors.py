"""Every exception a user can meet is one of ours and lives in errors.py, so `except
ChronozarrError` catches them all and the CLI prints them as one line. Read from the source with
`ast`, so a class added anywhere else is caught without being listed here."""

from __future__ import annotations

import ast
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
    assert [c.__name__ for c in classes if not issubclass(c, errors.ChronozarrError)] == []


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
