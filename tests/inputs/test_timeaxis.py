"""The input's time axis: named time, one dimension, standard dates."""

from __future__ import annotations

import cftime
import numpy as np
import pytest
import xarray as xr
from source_inputs import HEIGHT, TIMES, WIDTH, band_variables, cube, utm_coords, values, write

from chronozarr import InputError
from chronozarr.inputs import open_input_dataset


def test_one_date_as_a_scalar_time_coordinate(tmp_path):
    stored = values((1, HEIGHT, WIDTH), seed=6)
    coords = utm_coords()
    ds = xr.Dataset({"v": (("band", "y", "x"), stored)}, coords={"band": ["b1"], "y": coords["y"], "x": coords["x"], "time": TIMES[0]})
    with open_input_dataset(write(ds, tmp_path / "in.nc"), crs="EPSG:32631") as source:
        assert source.data.shape == (1, 1, HEIGHT, WIDTH)
        assert source.data["time"].values[0] == TIMES[0]


def test_a_time_dimension_under_another_name(tmp_path):
    ds = band_variables(names=("t2m",)).drop_vars("valid").rename(time="valid_time")
    with open_input_dataset(write(ds, tmp_path / "in.nc")) as source:
        np.testing.assert_array_equal(source.data["time"].values, TIMES)


def test_a_360_day_date_without_a_standard_twin_names_convert_calendar(tmp_path):
    ds = cube()
    ds["time"] = [cftime.Datetime360Day(2024, 2, d) for d in (28, 29, 30)]
    with pytest.raises(InputError, match=r"360_day calendar .*convert_calendar\('proleptic_gregorian'"):
        open_input_dataset(write(ds, tmp_path / "in.nc"))
