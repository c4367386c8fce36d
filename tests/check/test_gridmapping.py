"""The validator and the optional CF grid mapping: accepted with or without it, and what it says
must agree with the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import chronozarr
from conftest import make_series, strip_grid_mapping

import pyproj


@pytest.fixture
def store(tmp_path: Path) -> Path:
    chronozarr.encode(make_series(n_time=2, height=20, width=20), tmp_path / "s", crs="EPSG:32631", chunk_size=16, progress=False)
    return tmp_path / "s"


def _edit(store: Path, node: str, change) -> None:
    """Apply `change` to a node's document and to its consolidated copy alike."""
    path = store / node / "zarr.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    root = json.loads((store / "zarr.json").read_text())
    change(root["consolidated_metadata"]["metadata"][node])
    (store / "zarr.json").write_text(json.dumps(root))


def _lines(store: Path) -> list[str]:
    return chronozarr.validate(store).to_text().splitlines()


def test_with_and_without_a_grid_mapping_a_store_is_valid(store: Path) -> None:
    assert _lines(store)[-1].endswith("valid (0 fail, 0 warn, 0 info)")
    strip_grid_mapping(store)
    assert _lines(store)[-1].endswith("valid (0 fail, 0 warn, 0 info)")


def test_a_grid_mapping_of_another_crs_fails(store: Path) -> None:
    _edit(store, "0/spatial_ref", lambda d: d["attributes"].update(crs_wkt=pyproj.CRS.from_epsg(32632).to_wkt()))
    lines = _lines(store)
    assert lines[0] == (
        "FAIL 3.3 0/spatial_ref/zarr.json:attributes.crs_wkt: describes EPSG:32632, but chronozarr.crs is "
        "EPSG:32631: CF tools would place the store wrongly"
    )


def test_a_grid_mapping_that_is_not_0d_fails(store: Path) -> None:
    def widen(doc: dict) -> None:
        doc["shape"] = [1]
        doc["chunk_grid"]["configuration"]["chunk_shape"] = [1]
        doc["dimension_names"] = doc["attributes"]["_ARRAY_DIMENSIONS"] = ["one"]

    _edit(store, "1/spatial_ref", widen)
    assert any(line.startswith("FAIL 3.3 1/spatial_ref/zarr.json: dimension_names is ['one'], expected []") for line in _lines(store))


def test_an_array_naming_a_missing_grid_mapping_is_a_warning(store: Path) -> None:
    strip_grid_mapping(store)
    _edit(store, "0/data", lambda d: d["attributes"].update(grid_mapping="spatial_ref"))
    assert "WARN 3.3 0/data/zarr.json:attributes.grid_mapping: names 'spatial_ref', which level 0 does not have" in _lines(store)
