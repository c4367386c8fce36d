"""The CF grid mapping each level carries (spatial_ref), and appends to stores with and without it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import zarr

import chronozarr
from conftest import make_series, strip_grid_mapping

import pyproj


def _doc(store: Path, node: str) -> dict:
    return json.loads((store / node / "zarr.json").read_text())


def test_every_level_has_a_spatial_ref_that_its_arrays_name(tmp_path: Path) -> None:
    da = make_series(n_time=3, height=40, width=36)
    valid = np.ones((3, 40, 36), dtype=np.uint8)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, mask=valid, coverage=valid, progress=False)
    levels = sorted(p.name for p in (tmp_path / "s").iterdir() if p.name.isdigit())
    assert levels == ["0", "1", "2"]
    for level in levels:
        ref = _doc(tmp_path / "s", f"{level}/spatial_ref")
        attrs = ref["attributes"]
        assert (ref["shape"], ref["dimension_names"], attrs.pop("_ARRAY_DIMENSIONS")) == ([], [], [])
        assert attrs == pyproj.CRS.from_epsg(32631).to_cf()  # what pyproj (and so rioxarray) writes
        assert attrs["grid_mapping_name"] == "transverse_mercator" and attrs["longitude_of_central_meridian"] == 3.0
        assert pyproj.CRS.from_wkt(attrs["crs_wkt"]).to_epsg() == 32631
        assert list((tmp_path / "s" / level / "spatial_ref").iterdir()) == [tmp_path / "s" / level / "spatial_ref" / "zarr.json"]
        for name in ("data", "mask", "coverage"):
            node = _doc(tmp_path / "s", f"{level}/{name}")["attributes"]
            assert (node["grid_mapping"], node["coordinates"]) == ("spatial_ref", "spatial_ref")
    group = zarr.open_group(tmp_path / "s", mode="r")
    assert group["0/spatial_ref"][()] == 0  # no chunk stored: the fill value


@pytest.mark.parametrize("written", ["before", "after"])
def test_append_keeps_the_grid_mapping_a_store_has_or_lacks(tmp_path: Path, written: str) -> None:
    full = make_series(n_time=5, height=40, width=36)
    store = tmp_path / "s"
    chronozarr.encode(full[:3], store, crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=2, progress=False)
    if written == "before":
        strip_grid_mapping(store)
    before = {p: p.read_bytes() for p in store.glob("*/spatial_ref/zarr.json")}
    chronozarr.append(store, full[3:], progress=False)
    report = chronozarr.validate(store)
    assert report.ok and not report.warnings, report.to_text()
    assert {p: p.read_bytes() for p in store.glob("*/spatial_ref/zarr.json")} == before
    assert bool(before) == (written == "after")
    attrs = _doc(store, "0/data")["attributes"]
    assert ("grid_mapping" in attrs) == (written == "after")
    with chronozarr.open_dataset(store) as reader:
        for t in range(5):
            np.testing.assert_array_equal(reader.read(t), full.values[t])
