"""Composites at the edges of what a period holds, end to end from dated files: a year of 260
daily scenes (more than the 255 `coverage` holds, and more than the sorting network sorts), and a
float32 series whose mean is the float64 mean cast to float32. Each compared with numpy's."""

from __future__ import annotations

import warnings
from datetime import date, timedelta
from pathlib import Path

import numpy as np
from raster_inputs import geotiff

import chronozarr
from chronozarr.convert import convert

FAST = {"chunk_size": 8, "progress": False, "encoding": "none"}
SIZE = 6


def _write(folder: Path, values: np.ndarray, nodata: float) -> None:
    folder.mkdir()
    for k, stack in enumerate(values):
        day = date(2023, 1, 1) + timedelta(days=k)
        geotiff(folder / f"S_{day:%Y%m%d}.tif", stack, nodata=nodata)


def _nan_reduced(values: np.ndarray, valid: np.ndarray, how) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # pixels no observation covers
        return how(np.where(valid[:, None], values.astype(np.float64), np.nan), axis=0)


def test_a_year_of_260_scenes_saturates_coverage_at_255_and_takes_numpy_s_median(tmp_path: Path) -> None:
    rng = np.random.default_rng(111)
    n = 260
    values = rng.integers(1, 3000, (n, 2, SIZE, SIZE)).astype(np.uint16)
    holes = rng.random((n, SIZE, SIZE)) < np.linspace(0, 0.9, SIZE * SIZE).reshape(SIZE, SIZE)  # from none to most missing
    holes[:, 0, :3] = False  # every scene valid: 260 observations
    holes[:, -1, -1] = True  # none valid
    values[:, 1][holes] = 0  # nodata in one band makes the observation invalid
    _write(tmp_path / "scenes", values, nodata=0)
    convert(str(tmp_path / "scenes" / "*.tif"), tmp_path / "out", composite="year", reducer="median", **FAST)
    valid = (values != 0).all(axis=1)
    count = valid.sum(axis=0)
    median = _nan_reduced(values, valid, np.nanmedian)
    want = np.where(count > 0, np.rint(np.nan_to_num(median)), 0).astype(np.uint16)
    assert count.max() == n and (count > 255).sum() > 1 and (count < 255).any()
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.times_iso == ["2023-01-01T00:00:00Z"]
        np.testing.assert_array_equal(store.read_coverage(0), np.minimum(count, 255))
        np.testing.assert_array_equal(store.read_mask(0), (count > 0).astype(np.uint8))
        np.testing.assert_array_equal(store.read(0), want)


def test_a_float32_mean_is_the_float64_mean_cast_to_float32(tmp_path: Path) -> None:
    rng = np.random.default_rng(112)
    values = rng.normal(0.2, 0.05, (9, 2, SIZE, SIZE)).astype(np.float32)
    values[rng.random(values.shape) < 0.2] = -9999.0
    _write(tmp_path / "scenes", values, nodata=-9999.0)
    convert(str(tmp_path / "scenes" / "*.tif"), tmp_path / "out", composite="4D", reducer="mean", **FAST)
    valid = (values != -9999.0).all(axis=1)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.times_iso == ["2023-01-01T00:00:00Z", "2023-01-05T00:00:00Z", "2023-01-09T00:00:00Z"]
        for t, scenes in enumerate((slice(0, 4), slice(4, 8), slice(8, 9))):
            count = valid[scenes].sum(axis=0)
            mean = _nan_reduced(values[scenes], valid[scenes], np.nanmean).astype(np.float32)
            got = store.read(t)
            np.testing.assert_array_equal(store.read_coverage(t), count)
            np.testing.assert_array_equal(got[:, count > 0], mean[:, count > 0])
            assert (got[:, count == 0] == -9999.0).all()
