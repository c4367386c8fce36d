"""Renamed public names (CHANGELOG.md, "Names") answer under their old name as the same object, with
a DeprecationWarning that names the new one and points at the caller; importing the package warns
about nothing, and a name a module never had is still an AttributeError."""

from __future__ import annotations

import subprocess
import sys

import pytest

import chronozarr
import chronozarr.notebook_map
import chronozarr.read.attributes

RENAMED = [
    (chronozarr, "ChronoStore", "ChronoDataset"),
    (chronozarr.notebook_map, "MapStore", "MapLayer"),
    (chronozarr.read.attributes, "StoreAttrs", "DatasetAttrs"),
]


@pytest.mark.parametrize(("module", "old", "new"), RENAMED, ids=[f"{m.__name__}.{old}" for m, old, _ in RENAMED])
def test_an_old_name_is_the_new_object_with_a_warning_naming_it(module, old, new):
    with pytest.warns(DeprecationWarning, match=rf"{module.__name__}\.{old} is deprecated.*use {module.__name__}\.{new}") as caught:
        got = getattr(module, old)
    assert got is getattr(module, new)
    assert caught[0].filename == __file__  # the warning points at the code that used the old name


def test_from_import_of_an_old_name_warns_too():
    with pytest.warns(DeprecationWarning, match="ChronoDataset"):
        from chronozarr import ChronoStore
    assert ChronoStore is chronozarr.ChronoDataset


def test_open_store_stays_the_reference_entry_point_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from chronozarr import open_store
    assert open_store is chronozarr.open_dataset
    assert "open_store" in chronozarr.__all__


def test_a_name_a_module_never_had_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'ChronoStorage'"):
        chronozarr.ChronoStorage  # noqa: B018
    assert not hasattr(chronozarr.notebook_map, "MapDataset")


def test_the_old_names_are_not_exported_and_importing_the_package_does_not_warn():
    assert "ChronoStore" not in chronozarr.__all__
    assert {"ChronoDataset", "open_dataset"} <= set(chronozarr.__all__)
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    import chronozarr, chronozarr.notebook_map, chronozarr.read.attributes\n"
        "    from chronozarr import *\n"
        "ours = [str(w.message) for w in seen if 'is deprecated and goes in the next release' in str(w.message)]\n"
        "assert not ours, ours\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
