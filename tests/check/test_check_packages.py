"""check/ holds its three tools as subpackages (validate/, info/, doctor/) beside what they share
(findings, context, objects); the modules' old paths still import, as the same module objects,
so `from chronozarr.check.doctor_client import ...` and the like keep working for a release."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import chronozarr.check

CHECK = Path(chronozarr.check.__file__).parent
MOVED = {
    "doctor_caching": "doctor.caching", "doctor_client": "doctor.client", "doctor_decode": "doctor.decode",
    "doctor_http": "doctor.http", "doctor_plain": "doctor.plain", "doctor_report": "doctor.report",
    "doctor_source": "doctor.source", "arraydocs": "validate.arraydocs", "checksums": "validate.checksums",
    "coords": "validate.coords", "gridmapping": "validate.gridmapping", "history": "validate.history",
    "levels": "validate.levels", "pyramid": "validate.pyramid", "root": "validate.root",
}


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_module_path_is_the_moved_module(old: str, new: str) -> None:
    assert importlib.import_module(f"chronozarr.check.{old}") is importlib.import_module(f"chronozarr.check.{new}")


def test_the_tools_public_names_import_from_the_old_places() -> None:
    from chronozarr.check import Report, info, info_text, validate
    from chronozarr.check.doctor import DEFAULT_ORIGIN, doctor
    from chronozarr.check.info.run import info as info_run
    from chronozarr.check.validate.run import validate as validate_run

    assert validate is validate_run and info is info_run and callable(info_text) and callable(doctor)
    assert isinstance(DEFAULT_ORIGIN, str) and Report.__module__ == "chronozarr.check.findings"


def test_check_s_top_holds_only_what_the_tools_share_and_the_old_names() -> None:
    top = {p.stem for p in CHECK.glob("*.py")}
    assert top == {"__init__", "findings", "context", "objects"} | set(MOVED)
    assert {p.name for p in CHECK.iterdir() if p.is_dir() and p.name != "__pycache__"} == {"doctor", "info", "validate"}
