"""Level 0 returns the exact input (Invariant 1) for every dtype, encoding, layout and codec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
import zarr
from conftest import make_series
from expected import chronozarr_attrs, true_values

import chronozarr

DTYPE_ENCODINGS = [
    ("uint8", "none"),
    ("uint8", "star-delta"),
    ("uint16", "none"),
    ("uint16", "star-delta"),
    ("int16", "none"),
    ("float32", "none"),
]
CODECS: dict[str, dict[str, Any]] = {
    "zstd": {"codec": "zstd"},
    "blosc-zstd-shuffle": {"codec": "blosc", "blosc_cname": "zstd", "blosc_shuffle": "shuffle"},
    "blosc-lz4-noshuffle": {"codec": "blosc", "blosc_cname": "lz4", "blosc_shuffle": "noshuffle"},
    "gzip": {"codec": "gzip"},
}
# (shard, shard_time, chunk_size): unsharded, three time shards (last one partial), one oversized shard
LAYOUTS = {
    "unsharded-cs8": (False, None, 8),
    "shard_time2-cs16": (True, 2, 16),
    "shard_time8-cs8": (True, 8, 8),
}
N_TIME = 5


def _expected_codec(options: dict[str, Any], dtype: str) -> dict[str, Any]:
    if options["codec"] == "zstd":
        return {"name": "zstd", "configuration": {"level": 5, "checksum": False}}
    if options["codec"] == "gzip":
        return {"name": "gzip", "configuration": {"level": 5}}
    return {
        "name": "blosc",
        "configuration": {
            "cname": options["blosc_cname"],
            "clevel": 5,
            "shuffle": options["blosc_shuffle"],
            "typesize": np.dtype(dtype).itemsize,
            "blocksize": 0,
        },
    }


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("codec", list(CODECS))
@pytest.mark.parametrize(("dtype", "encoding"), DTYPE_ENCODINGS)
def test_level0_round_trip_is_exact(tmp_path: Path, dtype: str, encoding: str, codec: str, layout: str) -> None:
    """37x29 pixels, 5 timesteps: level 0 reconstructs bit-exactly and the metadata names the codec."""
    shard, shard_time, cs = LAYOUTS[layout]
    da = make_series(n_time=N_TIME, n_band=2, height=37, width=29, dtype=dtype, seed=11)
    store = tmp_path / "store"
    chronozarr.encode(
        da, store, crs="EPSG:32631", encoding=encoding, anchor_interval=3, chunk_size=cs,
        shard=shard, shard_time=shard_time, workers=2, **CODECS[codec],
    )
    got = true_values(store, 0)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, da.values)

    block = chronozarr_attrs(store)
    assert block["temporal"]["encoding"] == encoding
    meta = json.loads((store / "0" / "data" / "zarr.json").read_text())
    assert meta["data_type"] == dtype
    item = np.dtype(dtype).itemsize
    bytes_codec = {"name": "bytes"} if item == 1 else {"name": "bytes", "configuration": {"endian": "little"}}
    chain = [bytes_codec, _expected_codec(CODECS[codec], dtype)]
    if shard:
        assert meta["chunk_grid"]["configuration"]["chunk_shape"] == [shard_time, 2, cs, cs]
        (sharding,) = meta["codecs"]
        assert sharding["name"] == "sharding_indexed"
        assert sharding["configuration"]["chunk_shape"] == [1, 2, cs, cs]
        assert sharding["configuration"]["codecs"] == chain
        n_shards = -(-N_TIME // shard_time)
        assert {p.name for p in (store / "0" / "data" / "c").iterdir()} == {str(i) for i in range(n_shards)}
    else:
        assert meta["chunk_grid"]["configuration"]["chunk_shape"] == [1, 2, cs, cs]
        assert meta["codecs"] == chain
        assert {p.name for p in (store / "0" / "data" / "c").iterdir()} == {str(t) for t in range(N_TIME)}


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32"])
def test_none_store_reads_in_plain_zarr_and_xarray(tmp_path: Path, dtype: str) -> None:
    """A none store is ordinary Zarr: zarr-python and xarray give true values and decoded datetimes."""
    da = make_series(n_time=4, height=13, width=10, dtype=dtype, seed=5)
    store = tmp_path / "store"
    chronozarr.encode(da, store, crs="EPSG:32631", encoding="none", chunk_size=8)

    group = zarr.open_group(store, mode="r")
    np.testing.assert_array_equal(group["0/data"][:], da.values)
    expected_ms = da["time"].values.astype("datetime64[ms]").astype(np.int64)
    np.testing.assert_array_equal(group["0/time"][:], expected_ms)

    ds = xr.open_zarr(store, group="0", zarr_format=3, consolidated=False)
    assert ds["data"].dtype == np.dtype(dtype)
    assert ds["data"].dims == ("time", "band", "y", "x")
    np.testing.assert_array_equal(ds["data"].values, da.values)
    assert np.issubdtype(ds["time"].dtype, np.datetime64)
    np.testing.assert_array_equal(ds["time"].values.astype("datetime64[ms]"), da["time"].values.astype("datetime64[ms]"))
    assert [str(v) for v in ds["band"].values] == [str(v) for v in da["band"].values]
    np.testing.assert_allclose(ds["x"].values, da["x"].values)
    np.testing.assert_allclose(ds["y"].values, da["y"].values)


def test_float32_nan_becomes_invalid_through_a_derived_mask(tmp_path: Path) -> None:
    """NaN with no nodata: a mask array appears, mask is 0 where any band is NaN, data holds fill there."""
    da = make_series(n_time=3, height=11, width=9, dtype="float32", seed=6)
    values = da.values.copy()
    values[0, 0, 2:5, 3] = np.nan
    values[1, 1, 0, 0] = np.nan
    values[2, :, 7:, 6:] = np.nan
    nan = np.isnan(values)
    da = da.copy(data=values)
    store = tmp_path / "store"
    chronozarr.encode(da, store, crs="EPSG:32631", chunk_size=8)

    block = chronozarr_attrs(store)
    assert block["nodata"] is None
    assert block["mask_variable"] == "mask"
    group = zarr.open_group(store, mode="r")
    fill = group["0/data"].fill_value
    assert fill == 0
    data = group["0/data"][:]
    np.testing.assert_array_equal(data[nan], np.zeros(nan.sum(), dtype=np.float32))
    np.testing.assert_array_equal(data[~nan], values[~nan])
    np.testing.assert_array_equal(group["0/mask"][:], (~nan.any(axis=1)).astype(np.uint8))
    for level in range(len(block["levels"])):
        assert not np.isnan(group[f"{level}/data"][:]).any()


def test_float32_nan_with_numeric_nodata_becomes_nodata_without_mask(tmp_path: Path) -> None:
    """NaN with nodata=-9999.0: NaN is stored as -9999 and no mask array is written."""
    da = make_series(n_time=3, height=11, width=9, dtype="float32", seed=7)
    values = da.values.copy()
    values[1, 0, 4:6, 2:8] = np.nan
    nan = np.isnan(values)
    da = da.copy(data=values)
    store = tmp_path / "store"
    chronozarr.encode(da, store, crs="EPSG:32631", chunk_size=8, nodata=-9999.0)

    block = chronozarr_attrs(store)
    assert block["nodata"] == -9999.0
    assert "mask_variable" not in block
    assert not (store / "0" / "mask").exists()
    group = zarr.open_group(store, mode="r")
    assert group["0/data"].fill_value == -9999.0
    assert group["0/data"].attrs["nodata"] == -9999.0
    data = group["0/data"][:]
    np.testing.assert_array_equal(data, np.where(nan, np.float32(-9999.0), values))
    for level in range(len(block["levels"])):
        assert not np.isnan(group[f"{level}/data"][:]).any()


def test_float32_lat_lon_centres_are_a_regular_grid(tmp_path: Path) -> None:
    """NetCDF producers store lat/lon in float32, whose rounding makes 0.1-degree steps jitter by
    about 1e-5; that is still the regular grid it describes."""
    lat = (59.95 - 0.1 * np.arange(120)).astype("float32")
    lon = (-179.95 + 0.1 * np.arange(360)).astype("float32")
    assert np.ptp(np.diff(lon.astype(np.float64))) > 1e-6 * 0.1  # the jitter the old check refused
    values = np.random.default_rng(3).integers(1, 1000, size=(2, 1, lat.size, lon.size)).astype("uint16")
    times = np.array(["2024-01-01", "2024-02-01"], dtype="datetime64[ns]")
    da = xr.DataArray(values, dims=("time", "band", "y", "x"), coords={"time": times, "band": ["p"], "y": lat, "x": lon})
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:4326", chunk_size=64, encoding="none")
    with chronozarr.open_dataset(tmp_path / "s") as store:
        a, _, c, _, e, f = store.levels[0].transform
        np.testing.assert_allclose([a, e, c, f], [0.1, -0.1, -180.0, 60.0], atol=1e-5)
        np.testing.assert_array_equal(store.read(1), values[1])


def test_an_irregular_float32_grid_is_still_refused(tmp_path: Path) -> None:
    lon = (-179.95 + 0.1 * np.arange(360)).astype("float32")
    lon[200:] += np.float32(0.002)
    da = xr.DataArray(
        np.ones((1, 1, 4, lon.size), "uint16"), dims=("time", "band", "y", "x"),
        coords={"time": np.array(["2024-01-01"], dtype="datetime64[ns]"), "band": ["p"], "y": [1.5, 1.0, 0.5, 0.0], "x": lon},
    )
    with pytest.raises(chronozarr.InputError, match="coordinate x is not a regular grid"):
        chronozarr.encode(da, tmp_path / "s", crs="EPSG:4326", chunk_size=64)
