"""Dates read from file names: ISO dates and YYYYMMDD standing apart from other digits, one per
name, or where --date-format says."""

from __future__ import annotations

import numpy as np
import pytest

from chronozarr.errors import InputError
from chronozarr.inputs.dated_files import dated_timesteps, is_glob


def touch(folder, *names):
    for name in names:
        (folder / name).write_bytes(b"")
    return f"{folder}/*.tif"


@pytest.mark.parametrize("name, expected", [
    ("2024-03-01.tif", "2024-03-01"),
    ("scene_2024-03-01T10:30:05_v2.tif", "2024-03-01T10:30:05"),
    ("S2_20240301.tif", "2024-03-01"),
    ("S2_20240301T103005_r1.tif", "2024-03-01T10:30:05"),
    ("tile123_20240301_B04.tif", "2024-03-01"),
    ("2024-03-01_20240301.tif", "2024-03-01"),  # one date written twice is one date
])
def test_a_date_in_a_name(tmp_path, name, expected):
    steps = dated_timesteps(touch(tmp_path, name))
    assert steps[0].datetime == np.datetime64(expected, "ns")


@pytest.mark.parametrize("name, message", [
    ("scene_b.tif", "its name holds no date"),
    ("id_120240301.tif", "its name holds no date"),  # nine digits are no YYYYMMDD
    ("x_20241301.tif", "its name holds no date"),  # month 13
    ("S2A_MSIL2A_20240105T103021_N0510_R108_T32TNS_20240105T123456.tif", "holds two dates (20240105T103021 and 20240105T123456)"),
])
def test_names_without_exactly_one_date_are_named(tmp_path, name, message):
    with pytest.raises(InputError, match=re_escape(f"{tmp_path / name}: ") + ".*" + re_escape(message)):
        dated_timesteps(touch(tmp_path, name))


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


@pytest.mark.parametrize("date_format, expected", [
    ("MSIL2A_%Y%m%dT%H%M%S", "2024-01-05T10:30:21"),
    ("*_T32TNS_%Y%m%dT%H%M%S", "2024-01-05T12:34:56"),
    ("MSIL2A_%Y%j", None),  # seven of the eight digits are no day of year
])
def test_date_format_points_at_one_date(tmp_path, date_format, expected):
    pattern = touch(tmp_path, "S2A_MSIL2A_20240105T103021_N0510_R108_T32TNS_20240105T123456.tif")
    if expected is None:
        with pytest.raises(InputError, match="holds no date matching --date-format"):
            dated_timesteps(pattern, date_format)
        return
    assert dated_timesteps(pattern, date_format)[0].datetime == np.datetime64(expected, "ns")


def test_day_of_year_and_two_digit_years(tmp_path):
    touch(tmp_path, "MOD_A2024061.tif", "x_240302.tif")
    steps = dated_timesteps(f"{tmp_path}/MOD_*.tif", "%Y%j")
    assert [s.datetime for s in steps] == [np.datetime64("2024-03-01", "ns")]
    assert dated_timesteps(f"{tmp_path}/x_*.tif", "x_%y%m%d")[0].datetime == np.datetime64("2024-03-02", "ns")


@pytest.mark.parametrize("date_format, message", [("%m%d", "has no year"), ("%Y%Y", "%Y is repeated"), ("%Y%q", "%q is not supported")])
def test_bad_date_formats(tmp_path, date_format, message):
    with pytest.raises(InputError, match=message):
        dated_timesteps(touch(tmp_path, "a_20240301.tif"), date_format)


def test_a_pattern_matching_nothing_and_what_counts_as_a_glob(tmp_path):
    with pytest.raises(InputError, match="no file matches"):
        dated_timesteps(f"{tmp_path}/*.tif")
    assert is_glob("scenes/*.tif") and is_glob("s/2024-0[1-3]*.tif") and not is_glob("cube.zarr")
