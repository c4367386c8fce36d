"""The region reader (read/region.py) needs no root metadata: given an array's zarr.json and its
level's geometry, and for star-delta the anchor of each timestep, it reads any window of a store
the writer made as the values zarr-python and the residual rule give (tests/expected.py), into a
caller's (non-contiguous) output too, from several threads at once."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr
from expected import chronozarr_attrs, true_values

import chronozarr
from chronozarr.format.array_doc import ArrayDocument
from chronozarr.format.geometry import Level, pyramid_levels
from chronozarr.read.region import RegionReader
from chronozarr.store.directory import DirectoryStore

LAYOUTS = {
    "none": dict(encoding="none"),
    "star-sharded": dict(encoding="star-delta", anchor_interval=2, shard=True, shard_time=3),
}


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def written(request, tmp_path_factory) -> Path:
    from conftest import make_series

    da = make_series(n_time=7, n_band=2, height=37, width=29, seed=5)
    path = tmp_path_factory.mktemp(request.param) / "store"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, progress=False, mask=(da.isel(band=0) % 3 != 0).astype("uint8"), **LAYOUTS[request.param])
    return path


def _reader(path: Path) -> RegionReader:
    """A reader told only the anchors, from the test's own reading of the root (no ChronoDataset)."""
    temporal = chronozarr_attrs(path)["temporal"]
    references = {int(t): a for t, a in temporal.get("delta_reference", {}).items()}
    star = (set(references.values()), references.get) if temporal["encoding"] == "star-delta" else None
    return RegionReader(DirectoryStore(path), concurrency=2, anchor_bytes=2**20, star_delta=star)


def _level0(path: Path) -> Level:
    """Level 0 from its arrays' own zarr.json and the grid the test made, not from the root."""
    docs = {name: ArrayDocument.from_json(f"0/{name}", json.loads((path / "0" / name / "zarr.json").read_text())) for name in ("data", "mask")}
    level = pyramid_levels(37, 29, 16, (10.0, 0.0, 0.0, 0.0, -10.0, 0.0), max_levels=1)[0]
    return replace(level, data=docs["data"], mask=docs["mask"])


@pytest.mark.parametrize("window", [(slice(0, 37), slice(0, 29)), (slice(3, 20), slice(15, 17)), (slice(16, 32), slice(0, 16))])
def test_a_window_of_every_timestep_is_the_true_values(written, window) -> None:
    level = _level0(written)
    expected = true_values(written, 0)
    mask = zarr.open_group(written, mode="r")["0/mask"][:]
    reader = _reader(written)
    try:
        steps = list(range(7))
        np.testing.assert_array_equal(reader.read(level, level.data_array, steps, *window), expected[(slice(None), slice(None), *window)])
        assert level.mask is not None
        np.testing.assert_array_equal(reader.read(level, level.mask, [6, 1], *window), mask[[6, 1]][(slice(None), *window)])
    finally:
        reader.close()


def test_reads_into_a_caller_s_output_from_several_threads(written) -> None:
    level = _level0(written)
    expected = true_values(written, 0)
    block = np.zeros((7, 2, 20, 20), dtype=expected.dtype)  # larger than the window: each timestep's output is a strided view
    reader = _reader(written)
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda t: reader.read(level, level.data_array, [t], slice(16, 32), slice(0, 16), block[t, :, :16, :16][None]), range(7)))
    finally:
        reader.close()
    np.testing.assert_array_equal(block[:, :, :16, :16], expected[:, :, 16:32, 0:16])
    assert not block[:, :, 16:, :].any() and not block[:, :, :, 16:].any()



class _CountingStore(DirectoryStore):
    """Counts every object read, by key (get, get_into, get_range)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reads: list[str] = []

    def _read(self, key: str, read: Callable[..., Any]) -> Any:
        self.reads.append(key)
        return super()._read(key, read)


def test_the_writer_s_read_back_reads_each_chunk_once_a_timestep_at_a_time(tmp_path) -> None:
    """reuse_anchors (the writer's read-back, StoredLevels): an anchor fetched for the delta before
    it is cached, and its own timestep then comes from the cache, not from a second read."""
    from conftest import make_series

    da = make_series(n_time=6, n_band=2, height=37, width=29, seed=5)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, progress=False, encoding="star-delta", anchor_interval=3)
    temporal = chronozarr_attrs(tmp_path / "s")["temporal"]
    references = {int(t): a for t, a in temporal["delta_reference"].items()}
    assert any(a > t for t, a in references.items())  # a delta stored against a later anchor
    data = ArrayDocument.from_json("0/data", json.loads((tmp_path / "s" / "0" / "data" / "zarr.json").read_text()))
    level = replace(pyramid_levels(37, 29, 16, (10.0, 0.0, 0.0, 0.0, -10.0, 0.0), max_levels=1)[0], data=data)
    store = _CountingStore(tmp_path / "s")
    reader = RegionReader(store, concurrency=1, anchor_bytes=2**20, star_delta=(set(references.values()), references.get), reuse_anchors=True)
    try:
        got = np.stack([reader.read(level, level.data_array, [t], slice(0, 37), slice(0, 29))[0] for t in range(6)])
    finally:
        reader.close()
    np.testing.assert_array_equal(got, true_values(tmp_path / "s", 0))
    assert len(store.reads) == len(set(store.reads)) == 6 * 3 * 2  # every chunk of 6 timesteps x 3 x 2 cells, once
