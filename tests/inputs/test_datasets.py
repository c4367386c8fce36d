"""Opening NetCDF files and Zarr stores as the (time, band, y, x) series encode takes."""

from __future__ import annotations

import warnings

import cftime
import dask.array
import numpy as np
import pytest
import xarray as xr
import zarr
from source_inputs import HEIGHT, TIMES, WIDTH, band_variables, cube, latlon, utm_coords, values, write

import chronozarr
from chronozarr import InputError
from chronozarr.inputs import open_input_dataset


@pytest.mark.parametrize("suffix", [".nc", ".zarr", ".zarr2"])
def test_the_only_4d_variable_is_found_lazily_with_its_grid_mapping_crs(tmp_path, suffix):
    ds = cube()
    with open_input_dataset(write(ds, tmp_path / f"in{suffix}")) as source:
        assert source.data.dims == ("time", "band", "y", "x")
        assert isinstance(source.data.data, dask.array.Array)
        assert source.data.chunks[0] == (1, 1, 1)  # one timestep per read
        assert source.crs == "EPSG:32631"
        np.testing.assert_array_equal(source.data.values, ds["reflectance"].values)
        assert list(source.data["band"].values) == ["b0", "b1"]


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_a_zarr_input_without_consolidated_metadata_opens_without_warnings(tmp_path, zarr_format):
    """The CLI prints no multi-line xarray advice when the input store is not consolidated."""
    ds = cube()
    path = tmp_path / "plain.zarr"
    ds.to_zarr(path, zarr_format=zarr_format, consolidated=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with open_input_dataset(path) as source:
            np.testing.assert_array_equal(source.data.values, ds["reflectance"].values)
    assert [str(w.message) for w in caught if "consolidated" in str(w.message)] == []


def test_variables_stack_as_bands_named_after_them(tmp_path):
    ds = band_variables()
    with open_input_dataset(write(ds, tmp_path / "in.zarr"), variables=["B04", "B02"], mask_variable="valid") as source:
        assert list(source.data["band"].values) == ["B04", "B02"]
        np.testing.assert_array_equal(source.data.values[:, 0], ds["B04"].values)
        np.testing.assert_array_equal(source.data.values[:, 1], ds["B02"].values)
        assert source.crs == "EPSG:32631"  # from epsg_code on the grid mapping
        assert source.mask.dims == ("time", "y", "x")
        np.testing.assert_array_equal(source.mask.values, ds["valid"].values)


def test_south_up_latlon_is_renamed_flipped_and_geographic(tmp_path):
    ds = latlon(south_up=True)
    with open_input_dataset(write(ds, tmp_path / "in.nc")) as source:
        assert source.data.dims == ("time", "band", "y", "x")
        assert source.crs == "EPSG:4326"
        y = source.data["y"].values
        assert y[0] > y[-1]
        np.testing.assert_array_equal(source.data.values, ds["ndvi"].values[:, :, ::-1, :])


def test_latitude_longitude_names_and_an_oddly_named_band_dim(tmp_path):
    ds = latlon(south_up=False, names=("latitude", "longitude")).rename(band="wavelength")
    with open_input_dataset(write(ds, tmp_path / "in.zarr")) as source:
        assert source.data.dims == ("time", "band", "y", "x")
        np.testing.assert_array_equal(source.data.values, ds["ndvi"].values)


def test_a_single_3d_variable_is_one_band(tmp_path):
    ds = band_variables(names=("ndvi",)).drop_vars("valid")
    with open_input_dataset(write(ds, tmp_path / "in.nc")) as source:
        assert source.data.shape == (len(TIMES), 1, HEIGHT, WIDTH)
        assert list(source.data["band"].values) == ["ndvi"]


@pytest.mark.parametrize("key", ["crs_wkt", "spatial_ref", "epsg_code"])
def test_crs_from_each_grid_mapping_attribute(tmp_path, key):
    with open_input_dataset(write(cube(crs_key=key), tmp_path / "in.nc")) as source:
        assert source.crs == "EPSG:32631"


def test_rioxarray_style_spatial_ref_coordinate(tmp_path):
    from pyproj import CRS

    ds = cube(crs_key=None).assign_coords(spatial_ref=xr.DataArray(0, attrs={"spatial_ref": CRS.from_epsg(32633).to_wkt()}))
    with open_input_dataset(write(ds, tmp_path / "in.zarr")) as source:
        assert source.crs == "EPSG:32633"


def test_explicit_crs_is_the_crs_of_an_input_declaring_none(tmp_path):
    with open_input_dataset(write(cube(crs_key=None), tmp_path / "in.nc"), crs="epsg:32632") as source:
        assert source.crs == "EPSG:32632"


def test_explicit_crs_naming_another_than_the_declared_one_is_refused_not_relabelled(tmp_path):
    with pytest.raises(InputError, match="--crs EPSG:32632 is the CRS to store in.*differs from --crs EPSG:32632 in"):
        open_input_dataset(write(cube(), tmp_path / "in.nc"), crs="epsg:32632")
    with open_input_dataset(write(cube(), tmp_path / "same.nc"), crs="epsg:32631") as source:
        assert source.crs == "EPSG:32631" and not source.notes


def test_group_option(tmp_path):
    path = tmp_path / "in.nc"
    cube().to_netcdf(path, group="scenes", engine="netcdf4")
    with open_input_dataset(path, group="scenes") as source:
        assert source.crs == "EPSG:32631"
    with pytest.raises(InputError, match="group 'nope' is not in .*--group"):
        open_input_dataset(path, group="nope")


def test_cftime_noleap_dates_become_datetime64(tmp_path):
    ds = cube()
    ds["time"] = [cftime.DatetimeNoLeap(2024, m, 1) for m in (1, 2, 3)]
    with open_input_dataset(write(ds, tmp_path / "in.nc")) as source:
        np.testing.assert_array_equal(source.data["time"].values, TIMES)


def test_cast_to_float32_is_explicit_and_integer_casts_are_exact(tmp_path):
    ds = cube(dtype="float64")
    path = write(ds, tmp_path / "in.nc")
    with open_input_dataset(path) as source:
        assert source.data.dtype == np.float64  # never cast silently
    with open_input_dataset(path, cast="float32", lossy=True) as source:
        assert source.data.dtype == np.float32
    with open_input_dataset(path, cast="uint16") as source:
        assert source.data.dtype == np.uint16
        with pytest.raises(InputError, match="--cast uint16 would change the value"):
            source.data.values
    whole = ds.copy()
    whole["reflectance"] = whole["reflectance"].round() + 1
    with open_input_dataset(write(whole, tmp_path / "whole.nc"), cast="uint16") as source:
        np.testing.assert_array_equal(source.data.values, whole["reflectance"].values.astype("uint16"))
    with pytest.raises(InputError, match="--cast 'float64' is not a dtype chronozarr stores"):
        open_input_dataset(path, cast="float64")


def test_nan_fill_values_reach_encode_as_a_derived_mask(tmp_path):
    ds = cube(dtype="float32")
    ds["reflectance"][1, :, 0, 0] = np.nan
    path = write(ds, tmp_path / "in.nc")
    with open_input_dataset(path) as source:
        chronozarr.encode(source.data, tmp_path / "out", chunk_size=16, **source.encode_arguments())
    mask = zarr.open_group(tmp_path / "out", mode="r")["0/mask"][:]
    assert mask[1, 0, 0] == 0 and mask.sum() == mask.size - 1


@pytest.mark.parametrize(
    ("dataset", "kwargs", "message"),
    [
        (cube, {"variable": "missing"}, r"--variable: variable 'missing' is not in .*reflectance\('time', 'band'"),
        (band_variables, {"variables": ["B02", "nope"]}, "--variables: variable 'nope' is not in"),
        (band_variables, {}, "no \\(time, band, y, x\\) variable; stack .* --variables B02,B03,B04,valid"),
        (band_variables, {"variables": ["B02", "B02"]}, "lists B02 more than once"),
        (cube, {"variables": ["reflectance"]}, "--variables stacks \\(time, y, x\\) variables"),
        (cube, {"variable": "reflectance", "variables": ["B02"]}, "either --variable .* or --variables"),
        (cube, {"mask_variable": "reflectance"}, "--mask-variable 'reflectance' has dims"),
        (cube, {"crs": "EPSG:999999"}, "EPSG:999999 is not a known EPSG code"),
    ],
)
def test_bad_selections_name_the_variable_and_the_fix(tmp_path, dataset, kwargs, message):
    path = write(dataset(), tmp_path / "in.nc")
    with pytest.raises(InputError, match=message):
        open_input_dataset(path, **kwargs)


def test_several_4d_variables_need_a_choice(tmp_path):
    ds = cube()
    ds["other"] = ds["reflectance"] + 1
    with pytest.raises(InputError, match="several .*other.*--variable NAME|several .*reflectance, other"):
        open_input_dataset(write(ds, tmp_path / "in.zarr"))


def test_stacked_variables_must_share_a_dtype(tmp_path):
    ds = band_variables()
    ds["B03"] = ds["B03"].astype("int16")
    with pytest.raises(InputError, match="share one dtype, got B02: uint16, B03: int16"):
        open_input_dataset(write(ds, tmp_path / "in.nc"), variables=["B02", "B03"])


def test_x_decreasing_is_refused(tmp_path):
    ds = latlon(south_up=False).isel(lon=slice(None, None, -1))
    with pytest.raises(InputError, match="coordinate 'lon' decreases .* x increasing west to east"):
        open_input_dataset(write(ds, tmp_path / "in.nc"))


def test_projected_grid_without_crs_asks_for_one(tmp_path):
    with pytest.raises(InputError, match="declares no CRS .*--crs EPSG:<code>"):
        open_input_dataset(write(cube(crs_key=None), tmp_path / "in.nc"))


def test_grid_mapping_naming_an_absent_variable(tmp_path):
    ds = cube(crs_key=None)
    ds["reflectance"].attrs["grid_mapping"] = "ghost"
    with pytest.raises(InputError, match="grid mapping 'ghost', which is not in the input"):
        open_input_dataset(write(ds, tmp_path / "in.zarr"))


def test_unreadable_inputs(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        open_input_dataset(tmp_path / "missing.nc")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(InputError, match="directory but not a Zarr store"):
        open_input_dataset(tmp_path / "empty_dir")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(InputError, match="neither a NetCDF file nor a Zarr store"):
        open_input_dataset(tmp_path / "notes.txt")
    broken = tmp_path / "broken.nc"
    broken.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    with pytest.raises(InputError, match="cannot open .*broken.nc as a NetCDF"):
        open_input_dataset(broken)


def test_the_dataset_is_closed_when_selection_fails(tmp_path, monkeypatch):
    closed = []
    original = xr.Dataset.close
    monkeypatch.setattr(xr.Dataset, "close", lambda self: closed.append(True) or original(self))
    with pytest.raises(InputError):
        open_input_dataset(write(cube(), tmp_path / "in.nc"), variable="missing")
    assert closed



# -- shapes real producers write -----------------------------------------------------------------


def test_extra_singleton_dims_are_dropped(tmp_path):
    stored = values((len(TIMES), 1, 2, HEIGHT, WIDTH), seed=5)
    ds = xr.Dataset(
        {"v": (("time", "depth", "band", "y", "x"), stored), "valid": (("time", "depth", "y", "x"), np.ones((len(TIMES), 1, HEIGHT, WIDTH), "uint8"))},
        coords=utm_coords() | {"depth": [5.0], "band": ["a", "b"]},
    )
    with open_input_dataset(write(ds, tmp_path / "in.nc"), crs="EPSG:32631", mask_variable="valid") as source:
        assert source.data.dims == ("time", "band", "y", "x")
        np.testing.assert_array_equal(source.data.values, stored[:, 0])
        assert source.mask.dims == ("time", "y", "x")


@pytest.mark.parametrize(
    ("lon", "expected"),
    [([340, 345, 350, 355, 0, 5, 10, 15], [-20, -15, -10, -5, 0, 5, 10, 15]), ([160, 165, 170, 175, -180, -175], [160, 165, 170, 175, 180, 185])],
)
def test_longitudes_that_wrap_once_become_one_increasing_run(tmp_path, lon, expected):
    lon = np.array(lon, dtype=float) + 2.5
    stored = values((len(TIMES), 4, lon.size), seed=7)
    ds = xr.Dataset({"v": (("time", "lat", "lon"), stored)}, coords={"time": TIMES, "lat": [7.5, 2.5, -2.5, -7.5], "lon": lon})
    with open_input_dataset(write(ds, tmp_path / "in.nc")) as source:
        np.testing.assert_array_equal(source.data["x"].values, np.array(expected) + 2.5)
        np.testing.assert_array_equal(source.data.values[:, 0], stored)  # the same columns, relabelled
