"""The xarray engine: lazy until values are asked for, dask chunks on request, values equal read()."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

import chronozarr


def _store(tmp_path):
    from conftest import make_series

    da = make_series(n_time=5, height=40, width=24, seed=6, bands=["B04", "B08"])
    mask = (np.random.default_rng(0).random((5, 40, 24)) > 0.2).astype(np.uint8)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=2, mask=mask)
    return tmp_path / "s", da.values, mask


def test_open_dataset_reads_nothing_until_values_are_asked_for(tmp_path, monkeypatch):
    path, values, mask = _store(tmp_path)
    calls = []
    original = chronozarr.ChronoDataset._gather
    monkeypatch.setattr(chronozarr.ChronoDataset, "_gather", lambda self, *a: calls.append(a) or original(self, *a))
    ds = xr.open_dataset(path, engine="chronozarr", physical=False)
    assert set(ds.data_vars) == {"data", "mask"} and calls == []
    assert ds.data.dims == ("time", "band", "y", "x") and ds.mask.dims == ("time", "y", "x")
    np.testing.assert_array_equal(ds.data.isel(time=3, y=slice(5, 30)).values, values[3, :, 5:30])
    np.testing.assert_array_equal(ds.mask.isel(time=[0, 4]).values, mask[[0, 4]])
    assert len(calls) == 2


def test_physical_values_apply_scale_and_give_nan_where_invalid(tmp_path):
    path, values, mask = _store(tmp_path)
    ds = xr.open_dataset(path, engine="chronozarr")
    expected = (values[1] * 1e-4).astype(np.float32)  # uint16 reflectance: float32 keeps every step apart
    expected[:, mask[1] == 0] = np.nan
    assert ds.data.dtype == np.float32 and ds.data.nbytes == values.size * 4
    np.testing.assert_array_equal(ds.data.isel(time=1).values, expected)


def test_physical_values_are_float64_where_float32_would_merge_stored_values(tmp_path):
    from conftest import make_series

    from chronozarr.format.metadata import Band

    da = make_series(n_time=2, n_band=1, height=16, width=16, seed=1, bands=["t"])
    # kelvin in 1e-5 steps above 250 K: float32's step near 250 is 1.5e-5, so neighbours would merge
    chronozarr.encode(da, tmp_path / "k", crs="EPSG:32631", chunk_size=16, bands=[Band("t", scale=1e-5, offset=250.0)])
    with xr.open_dataset(tmp_path / "k", engine="chronozarr") as ds:
        assert ds.data.dtype == np.float64
        np.testing.assert_array_equal(ds.data.values[0], da.values[0] * 1e-5 + 250.0)
        assert np.float32(250.0 + 1e-5) == np.float32(250.0 + 2e-5)  # the independent reason: they would merge


def test_dask_chunks_follow_the_store_chunks(tmp_path):
    path, values, _ = _store(tmp_path)
    ds = xr.open_dataset(path, engine="chronozarr", physical=False, chunks={})
    assert ds.data.chunks == ((1,) * 5, (2,), (16, 16, 8), (16, 8))
    np.testing.assert_array_equal(ds.data.values, values)
    with chronozarr.open_dataset(path) as store:
        np.testing.assert_array_equal(ds.data.isel(time=2).values, store.read(2))


def test_coarser_level_and_coordinates(tmp_path):
    path, _, _ = _store(tmp_path)
    ds = xr.open_dataset(path, engine="chronozarr", lod=1, physical=False)
    assert ds.data.shape == (5, 2, 20, 12)
    np.testing.assert_allclose(ds.x.values, 500_000 + (np.arange(12) + 0.5) * 20)
    assert ds.attrs["crs"] == "EPSG:32631" and list(ds.band.values) == ["B04", "B08"]


def test_the_region_read_the_engine_uses_gives_the_input_over_any_region(tmp_path):
    path, values, mask = _store(tmp_path)
    with chronozarr.open_dataset(path) as store:
        np.testing.assert_array_equal(store.read_region("data", [3, 0], slice(5, 30), slice(2, 24)), values[[3, 0], :, 5:30, 2:24])
        np.testing.assert_array_equal(store.read_region("mask", [1, 2, 4], slice(0, 40), slice(20, 21)), mask[[1, 2, 4], :, 20:21])
        assert store.read_region("data", [], slice(0, 3), slice(0, 4)).shape == (0, 2, 3, 4)


def test_the_region_read_refuses_what_the_level_does_not_hold(tmp_path):
    path, _, _ = _store(tmp_path)
    with chronozarr.open_dataset(path) as store:
        with pytest.raises(IndexError, match="not pixels of level 0"):
            store.read_region("data", [0], slice(0, 41), slice(0, 4))
        with pytest.raises(KeyError, match="no coverage array"):
            store.read_region("coverage", [0], slice(0, 4), slice(0, 4))
        with pytest.raises(KeyError, match="not 'volatility'"):
            store.read_region("volatility", [0], slice(0, 4), slice(0, 4))


def test_the_engine_gives_each_variable_the_dtype_of_its_array_document(tmp_path):
    path, _, _ = _store(tmp_path)
    documents = {name: json.loads((path / "0" / name / "zarr.json").read_text())["data_type"] for name in ("data", "mask")}
    with xr.open_dataset(path, engine="chronozarr", physical=False) as ds:
        assert {name: str(ds[name].dtype) for name in ("data", "mask")} == documents
