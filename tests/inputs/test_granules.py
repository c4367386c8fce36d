"""A glob of NetCDF or HDF5 granules (one file per acquisition, no time dimension) is one series:
each file dated by its ACDD time_coverage_start or by what --time-from names, joined in date
order, and a quality flag made the mask with --mask-valid; files that cannot be joined are named."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from source_inputs import HEIGHT, WIDTH, grid_mapping, values

import chronozarr
from chronozarr.convert import convert
from chronozarr.errors import InputError

FAST = {"chunk_size": 16, "progress": False, "encoding": "none"}
STARTS = ["2024-03-12T00:10:22.000000Z", "2024-01-30T00:10:22.000000Z", "2024-02-20T00:10:22.000000Z"]


def granule(path, k: int, start: str | None = STARTS[0], x0: float = 500_000.0, attrs: dict | None = None):
    """A SWOT-like granule: (y, x) float32 `wse` with a fill value and `wse_qual` flags, y south to north."""
    wse = values((HEIGHT, WIDTH), "float32", seed=k)
    wse[0, :4] = 9.96921e36  # outside the swath: the fill value
    qual = (np.arange(HEIGHT * WIDTH).reshape(HEIGHT, WIDTH) + k) % 4
    ds = xr.Dataset(
        {"wse": (("y", "x"), wse, {"grid_mapping": "crs"}), "wse_qual": (("y", "x"), qual.astype("uint8"), {"grid_mapping": "crs"}),
         "crs": grid_mapping()},
        coords={"y": 4_999_800 + (np.arange(HEIGHT) + 0.5) * 10.0, "x": x0 + (np.arange(WIDTH) + 0.5) * 10.0},
        attrs=({"time_coverage_start": start} if start else {}) | (attrs or {}),
    )
    ds.to_netcdf(path, engine="netcdf4", encoding={"wse": {"_FillValue": np.float32(9.96921e36)}, "wse_qual": {"_FillValue": np.uint8(255)}})
    return wse, qual


def test_granules_are_joined_in_date_order_with_their_flags_as_the_mask(tmp_path):
    written = [granule(tmp_path / f"g{k}.nc", k, STARTS[k]) for k in range(3)]
    result = convert(str(tmp_path / "g*.nc"), tmp_path / "out", source_options={"variables": ["wse"], "mask_variable": "wse_qual",
                     "mask_valid": "0,1"}, **FAST)
    order = np.argsort(np.array([s.rstrip("Z") for s in STARTS], dtype="datetime64[ns]"))  # g1, g2, g0
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert list(store.times) == sorted(np.datetime64(s.rstrip("Z"), "ms") for s in STARTS)
        assert store.nodata == pytest.approx(9.96921e36)
        for t, k in enumerate(order):
            wse, qual = written[k]
            np.testing.assert_array_equal(store.read(t)[0], wse[::-1])  # south-up rows flipped, values as stored
            np.testing.assert_array_equal(store.read_mask(t), (qual[::-1] <= 1).astype(np.uint8))
    assert "3 granules" in " ".join(result.notes) and "dated by its time_coverage_start attribute" in " ".join(result.notes)
    assert any("mask from wse_qual: valid where it is 0, 1" in n for n in result.notes)


def test_time_from_names_a_global_attribute_or_a_variable_in_another_group(tmp_path):
    for k in range(2):
        granule(tmp_path / f"a{k}.nc", k, None, attrs={"time_granule_start": STARTS[k]})
    convert(str(tmp_path / "a*.nc"), tmp_path / "attr", source_options={"variables": ["wse"], "time_from": "time_granule_start"}, **FAST)
    with chronozarr.open_dataset(tmp_path / "attr") as store:
        assert list(store.times) == [np.datetime64(STARTS[1].rstrip("Z"), "ms"), np.datetime64(STARTS[0].rstrip("Z"), "ms")]
    for k in range(2):
        path = tmp_path / f"h{k}.nc"
        granule(path, k, None)
        xr.Dataset({"zeroDopplerStartTime": ((), np.bytes_(STARTS[k].replace("Z", "000")))}).to_netcdf(
            path, mode="a", group="/science/LSAR/identification")
    convert(str(tmp_path / "h*.nc"), tmp_path / "var", **FAST,
            source_options={"variables": ["wse"], "time_from": "/science/LSAR/identification/zeroDopplerStartTime"})
    with chronozarr.open_dataset(tmp_path / "var") as store:
        assert list(store.times) == [np.datetime64(STARTS[1].rstrip("Z"), "ms"), np.datetime64(STARTS[0].rstrip("Z"), "ms")]


def test_a_granule_without_a_date_names_the_fix(tmp_path):
    granule(tmp_path / "n0.nc", 0, None)
    with pytest.raises(InputError, match=r"n0.nc has no attribute 'time_coverage_start'.*--time-from NAME"):
        convert(str(tmp_path / "n*.nc"), tmp_path / "out", source_options={"variables": ["wse"]}, **FAST)
    with pytest.raises(InputError, match=r"has no variable /nowhere/start"):
        convert(str(tmp_path / "n*.nc"), tmp_path / "out", source_options={"variables": ["wse"], "time_from": "/nowhere/start"}, **FAST)
    assert not (tmp_path / "out" / "zarr.json").exists()


def test_a_granule_on_another_grid_or_date_is_named(tmp_path):
    granule(tmp_path / "s0.nc", 0, STARTS[0])
    granule(tmp_path / "s1.nc", 1, STARTS[1], x0=500_010.0)
    with pytest.raises(InputError, match=r"s1.nc is not on the grid of .*s0.nc \(its 'x' differs\)"):
        convert(str(tmp_path / "s*.nc"), tmp_path / "out", source_options={"variables": ["wse"]}, **FAST)
    granule(tmp_path / "d0.nc", 0, STARTS[0])
    granule(tmp_path / "d1.nc", 1, STARTS[0])
    with pytest.raises(InputError, match=r"d0.nc and .*d1.nc have the same date"):
        convert(str(tmp_path / "d*.nc"), tmp_path / "out", source_options={"variables": ["wse"]}, **FAST)


def test_mask_valid_needs_a_mask_variable_and_numbers(tmp_path):
    granule(tmp_path / "m0.nc", 0)
    options = {"variables": ["wse"], "mask_valid": "0,1"}
    with pytest.raises(InputError, match="give --mask-variable NAME too"):
        convert(str(tmp_path / "m*.nc"), tmp_path / "out", source_options=options, **FAST)
    with pytest.raises(InputError, match="--mask-valid 'good': give the valid values as numbers"):
        convert(str(tmp_path / "m*.nc"), tmp_path / "out", source_options=options | {"mask_variable": "wse_qual", "mask_valid": "good"}, **FAST)


def test_time_from_on_one_file_is_refused(tmp_path):
    granule(tmp_path / "one.nc", 0)
    with pytest.raises(InputError, match="--time-from dates the files of a glob"):
        convert(tmp_path / "one.nc", tmp_path / "out", source_options={"variables": ["wse"], "time_from": "x"}, **FAST)


def test_append_grows_a_store_with_later_granules_and_the_same_flag_rule(tmp_path):
    from typer.testing import CliRunner

    from chronozarr.cli import app

    written = [granule(tmp_path / f"{'ab'[k // 2]}{k}.nc", k, f"2024-0{k + 1}-15T00:00:00Z") for k in range(4)]
    flags = ["--variables", "wse", "--mask-variable", "wse_qual", "--mask-valid", "0,1"]
    convert(str(tmp_path / "a*.nc"), tmp_path / "out", source_options={"variables": ["wse"], "mask_variable": "wse_qual",
            "mask_valid": "0,1"}, **FAST)
    result = CliRunner().invoke(app, ["append", str(tmp_path / "out"), str(tmp_path / "b*.nc"), *flags, "--no-progress"])
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert [str(t)[:10] for t in store.times] == [f"2024-0{k + 1}-15" for k in range(4)]
        for t, (wse, qual) in enumerate(written):
            np.testing.assert_array_equal(store.read(t)[0], wse[::-1])
            np.testing.assert_array_equal(store.read_mask(t), (qual[::-1] <= 1).astype(np.uint8))
