"""doctor on a remote store written before the 0.2 spec dropped `pixels_per_tile` (spec 3.4, 13; reference: "doctor
prints one info line for a remote store that still carries the key"); the store stays valid."""

from __future__ import annotations

import json
from pathlib import Path

import chronozarr
from chronozarr.check.doctor import doctor
from chronozarr.serve import StoreServer
from conftest import make_series


def _with_pixels_per_tile(path: Path, cs: int) -> None:
    """The root as an earlier writer left it: every multiscales dataset names the tile size."""
    doc = json.loads((path / "zarr.json").read_text())
    for dataset in doc["attributes"]["multiscales"][0]["datasets"]:
        dataset["pixels_per_tile"] = cs
    (path / "zarr.json").write_text(json.dumps(doc))


def test_a_remote_store_with_pixels_per_tile_gets_one_info_line(tmp_path: Path) -> None:
    for name in ("old", "new"):
        chronozarr.encode(make_series(n_time=3, height=40, width=30), tmp_path / name / "chronozarr-1", crs="EPSG:32631",
                          chunk_size=16, encoding="none", progress=False)
    _with_pixels_per_tile(tmp_path / "old" / "chronozarr-1", 16)
    with StoreServer(tmp_path) as srv:
        old = doctor(f"{srv.url}/old/chronozarr-1")
        new = doctor(f"{srv.url}/new/chronozarr-1")
    lines = [f for f in old if f.key == "pixels_per_tile"]
    assert len(lines) == 1 and lines[0].severity == "info", old.to_text()
    assert "zarr-layer" in lines[0].message and "crs and bounds" in lines[0].message
    assert old.ok and old.status_of("validate") == "ok", old.to_text()
    assert [f for f in new if f.key == "pixels_per_tile"] == []
    assert old.counts()["info"] == new.counts()["info"] + 1
