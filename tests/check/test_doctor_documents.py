"""doctor over HTTP on stores whose root block or level-0 array document holds a field of another
type than the spec's (found by the hostile corpus: a TypeError traceback, exit 1). Each is a
report, never a crash: the checks that do not depend on the field still run."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile_stores import build_base, edit_array_docs, edit_block

from chronozarr.check.doctor import doctor
from chronozarr.serve import StoreServer


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc.__setitem__(key, value)


def _consolidated_list(store: Path) -> None:
    root = json.loads((store / "zarr.json").read_text())
    root["consolidated_metadata"]["metadata"] = ["0/data"]
    (store / "zarr.json").write_text(json.dumps(root))


EDITS: dict[str, Callable[[Path], None]] = {
    "times is a number": lambda s: edit_block(s, _set("times", 5)),
    "levels is a string": lambda s: edit_block(s, _set("levels", "0")),
    "levels holds a number": lambda s: edit_block(s, _set("levels", [5])),
    "variable is a list": lambda s: edit_block(s, _set("variable", ["data"])),
    "shard_bytes of level 0 is a number": lambda s: edit_block(s, _set("shard_bytes", {"0": 5})),
    "consolidated metadata is a list": _consolidated_list,
    "codecs is null": lambda s: edit_array_docs(s, lambda doc, level: doc.__setitem__("codecs", None)),
    "dimension_names is a number": lambda s: edit_array_docs(s, lambda doc, level: doc.__setitem__("dimension_names", 1.5)),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("doctor-documents") / "base"
    build_base(path, "star")
    return path


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_field_of_another_type_is_a_report_not_a_crash(base: Path, tmp_path: Path, name: str) -> None:
    store = tmp_path / "s"
    shutil.copytree(base, store)
    EDITS[name](store)
    with StoreServer(tmp_path) as server:
        report = doctor(f"{server.url}/s", timeout=2, total_timeout=30)
    assert not report.ok, report.to_text()
    assert any(f.key == "validate" and f.severity == "fail" for f in report), report.to_text()
