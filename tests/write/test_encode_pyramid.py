"""Every pyramid level equals an independent numpy block reduction of the level below (spec 2.4, 2.5, 6)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr
from conftest import make_series
from expected import chronozarr_attrs, level_count, pyramid, true_values

import chronozarr


def _encode(tmp_path: Path, da: Any, **options: Any) -> Path:
    store = tmp_path / "store"
    chronozarr.encode(da, store, crs="EPSG:32631", workers=2, **options)
    return store


def _check_levels(
    store: Path,
    data: np.ndarray,
    mask: np.ndarray | None,
    coverage: np.ndarray | None,
    nodata: float | None,
    cs: int,
) -> None:
    """Shapes, level count and every level's data, mask and coverage against the reference."""
    _, _, height, width = data.shape
    n_levels = level_count(height, width, cs)
    block = chronozarr_attrs(store)
    assert len(block["levels"]) == n_levels
    group = zarr.open_group(store, mode="r")
    assert sorted(k for k in group.group_keys()) == sorted(str(k) for k in range(n_levels))
    want = pyramid(data, mask, coverage, nodata, n_levels)
    for k, (d, m, c) in enumerate(want):
        assert d.shape[2:] == (math.ceil(height / 2**k), math.ceil(width / 2**k))
        got = true_values(store, k)
        assert got.dtype == data.dtype
        np.testing.assert_array_equal(got, d, err_msg=f"level {k} data")
        if m is not None:
            np.testing.assert_array_equal(group[f"{k}/mask"][:], m, err_msg=f"level {k} mask")
        if c is not None:
            np.testing.assert_array_equal(group[f"{k}/coverage"][:], c, err_msg=f"level {k} coverage")
    assert block["levels"][-1]["grid"] == [1, 1]


@pytest.mark.parametrize("shard", [False, True])
@pytest.mark.parametrize("encoding", ["none", "star-delta"])
def test_uint16_with_nodata_pixels(tmp_path: Path, encoding: str, shard: bool) -> None:
    """Nodata (0) pixels are left out of each band's mean; all-nodata blocks stay nodata."""
    da = make_series(n_time=4, n_band=2, height=37, width=29, dtype="uint16", seed=21)
    values = da.values.copy()
    rng = np.random.default_rng(21)
    values[rng.random(values.shape) < 0.3] = 0
    values[:, :, :6, :6] = 0  # whole blocks invalid for two levels
    values[2, 1] = 0  # a band that is entirely nodata at one timestep
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding=encoding, anchor_interval=2, chunk_size=8, shard=shard)
    _check_levels(store, values, None, None, 0, 8)


def test_uint8_with_mask_and_coverage(tmp_path: Path) -> None:
    """With a mask only mask==1 counts (data equal to nodata included); mask by max, coverage by rounded mean."""
    da = make_series(n_time=3, n_band=3, height=21, width=19, dtype="uint8", seed=22)
    rng = np.random.default_rng(22)
    values = da.values.copy()
    values[rng.random(values.shape) < 0.1] = 0  # zeros under mask==1 are valid data
    mask = (rng.random((3, 21, 19)) < 0.7).astype(np.uint8)
    mask[:, :4, :4] = 0
    mask[1] = 0  # a timestep with no valid pixel at all
    coverage = rng.integers(0, 300, size=(3, 21, 19)).astype(np.uint16)  # saturates at 255
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="none", chunk_size=4, mask=mask, coverage=coverage)
    stored_coverage = np.minimum(coverage, 255).astype(np.uint8)
    np.testing.assert_array_equal(zarr.open_group(store, mode="r")["0/coverage"][:], stored_coverage)
    _check_levels(store, values, mask, stored_coverage, 0, 4)


@pytest.mark.parametrize("nodata", [None, -7])
def test_int16_negative_values_floor_toward_minus_infinity(tmp_path: Path, nodata: int | None) -> None:
    """int16 block means floor the exact sum (-1.75 -> -2); with nodata -7 those pixels are skipped."""
    rng = np.random.default_rng(23)
    da = make_series(n_time=2, n_band=2, height=19, width=23, dtype="int16", seed=23)
    values = rng.integers(-32768, 0, size=da.shape, endpoint=True).astype(np.int16)
    values[0, 0, 0:2, 0:2] = [[-1, -2], [-2, -2]]
    if nodata is not None:
        values[rng.random(values.shape) < 0.25] = nodata
    da = da.copy(data=values)
    store = _encode(tmp_path, da, chunk_size=8, nodata=nodata)
    _check_levels(store, values, None, None, nodata, 8)
    if nodata is None:
        assert zarr.open_group(store, mode="r")["1/data"][0, 0, 0, 0] == -2


@pytest.mark.parametrize("nodata", [None, -9999.0])
def test_float32_means_accumulate_in_float64(tmp_path: Path, nodata: float | None) -> None:
    """float32 levels are float64 block means stored as float32; nodata pixels are skipped."""
    da = make_series(n_time=2, n_band=2, height=17, width=13, dtype="float32", seed=24)
    values = da.values.copy()
    values[0, 0, 0:2, 0:2] = [[1.0e8, 1.0], [1.0, 1.0]]
    if nodata is not None:
        values[np.random.default_rng(24).random(values.shape) < 0.3] = nodata
    da = da.copy(data=values)
    store = _encode(tmp_path, da, chunk_size=4, nodata=nodata)
    _check_levels(store, values, None, None, nodata, 4)


def test_level_k_is_reduced_from_level_k_minus_1(tmp_path: Path) -> None:
    """Level 2 equals the mean of level 1 means, which differs from a direct 4x4 mean of level 0."""
    rng = np.random.default_rng(25)
    da = make_series(n_time=2, n_band=1, height=32, width=32, dtype="uint16", seed=25)
    values = rng.integers(1, 1000, size=da.shape, endpoint=True).astype(np.uint16)
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="none", chunk_size=8)
    _check_levels(store, values, None, None, 0, 8)
    level2 = zarr.open_group(store, mode="r")["2/data"][:]
    direct = values.reshape(2, 1, 8, 4, 8, 4).astype(np.int64).sum(axis=(3, 5)) // 16
    assert np.any(level2 != direct), "the fixture must tell the two constructions apart"


def test_level_count_stops_at_first_single_cell(tmp_path: Path) -> None:
    """37x29 at cs=8 gives grids 5x4, 3x2, 2x1, 1x1 and no further level."""
    da = make_series(n_time=1, height=37, width=29, dtype="uint8")
    store = _encode(tmp_path, da, chunk_size=8)
    block = chronozarr_attrs(store)
    assert [lv["grid"] for lv in block["levels"]] == [[5, 4], [3, 2], [2, 1], [1, 1]]
    assert [lv["shape"] for lv in block["levels"]] == [[1, 2, 37, 29], [1, 2, 19, 15], [1, 2, 10, 8], [1, 2, 5, 4]]
    assert not (store / "4").exists()
