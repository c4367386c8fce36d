"""Stores written by another implementation (zarr-python, from the spec text) read exactly, through
every reading interface, from disk and over HTTP, and validate; layouts the reader cannot place are
refused by name instead of read as the wrong pixels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from foreign_stores import LAYOUTS, REWRITES, Layout, build, rewrite_documents

import chronozarr
from chronozarr import StoreError
from chronozarr.serve import StoreServer



@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list]]:
    root = tmp_path_factory.mktemp("foreign")
    truth = {name: build(root / name, layout) for name, layout in LAYOUTS.items()}
    for name, change in REWRITES.items():
        truth[name] = build(root / name, Layout(anchor_interval=2, mask=True))
        rewrite_documents(root / name, change)
    return root, truth


def _assert_reads_exactly(location: str, levels: list, layout_has_mask: bool) -> None:
    with chronozarr.open_dataset(location) as store:
        assert len(store.levels) == len(levels)
        for k, (data, mask, coverage) in enumerate(levels):
            for t in range(len(data)):
                np.testing.assert_array_equal(store.read(t, lod=k), data[t], err_msg=f"t={t} lod={k}")
                if layout_has_mask:
                    np.testing.assert_array_equal(store.read_mask(t, lod=k), mask[t])
                if coverage is not None:
                    np.testing.assert_array_equal(store.read_coverage(t, lod=k), coverage[t])
        top = levels[0][0]
        cs = store.levels[0].chunk_size
        np.testing.assert_array_equal(store.read_cell(len(top) - 1, 0, 1), top[-1, :, :cs, cs : 2 * cs])
        np.testing.assert_array_equal(store.read_point(5, 7), top[:, :, 5, 7])
    with xr.open_dataset(location, engine="chronozarr", physical=False) as ds:
        np.testing.assert_array_equal(ds["data"].values, top)
        np.testing.assert_array_equal(ds["data"].isel(time=[0, -1], x=slice(3, 20)).values, top[[0, -1], :, :, 3:20])


@pytest.mark.parametrize("name", [*LAYOUTS, *REWRITES])
def test_foreign_store_reads_exactly_and_validates(stores, name):
    root, truth = stores
    has_mask = truth[name][0][1] is not None
    _assert_reads_exactly(str(root / name), truth[name], has_mask)
    report = chronozarr.validate(root / name)
    assert report.ok, report.to_text()


@pytest.mark.parametrize("name", ["shard_time_without_shard_bytes", "index_at_start", "star_delta_3_sharded", "reversed_keys"])
def test_foreign_store_over_http(stores, name):
    root, truth = stores
    with StoreServer(root) as server:
        url = f"{server.url}/{name}"
        _assert_reads_exactly(url, truth[name], truth[name][0][1] is not None)
        report = chronozarr.validate(url)
        assert report.ok, report.to_text()


def _rechunk(store: Path, node: str, chunk_shape: list[int]) -> None:
    """A data or mask array document claiming another chunking, as another writer might produce."""
    doc_path = store / node / "zarr.json"
    doc = json.loads(doc_path.read_text())
    doc["chunk_grid"]["configuration"]["chunk_shape"] = chunk_shape
    doc_path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    ("node", "chunk_shape", "message"),
    [
        ("0/data", [2, 2, 16, 16], r"chunk shape \[2, 2, 16, 16\] is not \[1, n_band, cs, cs\]"),
        ("0/data", [1, 1, 16, 16], r"chunk shape \[1, 1, 16, 16\] is not \[1, n_band, cs, cs\]"),
        ("0/data", [1, 2, 16, 32], r"chunk shape \[1, 2, 16, 32\] is not \[1, n_band, cs, cs\]"),
        ("0/mask", [1, 8, 8], r"0/mask: chunk shape \[1, 8, 8\] is not \[1, cs, cs\] with the data array's cs"),
    ],
)
def test_chunking_the_reader_cannot_place_is_refused(tmp_path, node, chunk_shape, message):
    build(tmp_path / "s", Layout(mask=True, consolidated=False))
    _rechunk(tmp_path / "s", node, chunk_shape)
    with pytest.raises(StoreError, match=message):
        chronozarr.open_dataset(tmp_path / "s")


def test_a_shard_spanning_several_cells_is_refused(tmp_path):
    build(tmp_path / "s", Layout(shard_time=2, shard_bytes=False, consolidated=False))
    doc_path = tmp_path / "s" / "0" / "data" / "zarr.json"
    doc = json.loads(doc_path.read_text())
    doc["chunk_grid"]["configuration"]["chunk_shape"] = [2, 2, 32, 32]
    doc_path.write_text(json.dumps(doc))
    with pytest.raises(StoreError, match=r"shard shape \[2, 2, 32, 32\] must be \[shard_time, 2, 16, 16\]"):
        chronozarr.open_dataset(tmp_path / "s")
