"""Manifests: CSV and JSON forms, URI resolution, date order and the errors that name a row."""

from __future__ import annotations

import numpy as np
import pytest
from raster_inputs import csv_manifest, json_manifest

from chronozarr.errors import InputError
from chronozarr.inputs.manifest import is_manifest, parse_bounds, read_manifest


def test_csv_rows_are_sorted_by_date_and_resolved_against_the_manifest_folder(tmp_path):
    path = csv_manifest(
        tmp_path / "m.csv",
        [("b.tif", "2024-02-01"), ("/abs/a.tif", "2024-01-01"), ("https://host/c.tif", "2024-03-01T10:30:00Z")],
    )
    manifest = read_manifest(path)
    assert [i.uri for i in manifest.items] == ["/abs/a.tif", str(tmp_path / "b.tif"), "/vsicurl/https://host/c.tif"]
    assert [i.row for i in manifest.items] == ["line 3", "line 2", "line 4"]
    expected = np.array(["2024-01-01", "2024-02-01", "2024-03-01T10:30"], dtype="datetime64[ns]")
    np.testing.assert_array_equal([i.datetime for i in manifest.items], expected)
    assert manifest.bands is None and manifest.bounds is None


def test_a_time_zone_is_converted_to_utc(tmp_path):
    path = csv_manifest(tmp_path / "m.csv", [("a.tif", "2024-01-01T12:00:00+02:00")])
    assert read_manifest(path).items[0].datetime == np.datetime64("2024-01-01T10:00", "ns")


def test_json_object_with_items_bounds_and_band_names(tmp_path):
    items = [{"uri": "a.png", "datetime": "2024-01-01", "bands": ["r", "g", "b"]}, {"uri": "b.png", "datetime": "2024-02-01"}]
    path = json_manifest(tmp_path / "m.json", {"bounds": [0, 1, 10, 11], "items": items})
    manifest = read_manifest(path)
    assert manifest.bounds == (0.0, 1.0, 10.0, 11.0)
    assert manifest.bands == ("r", "g", "b")
    assert [i.row for i in manifest.items] == ["item 0", "item 1"]


def test_csv_band_names_are_one_quoted_field(tmp_path):
    path = csv_manifest(tmp_path / "m.csv", [("a.tif", "2024-01-01", '"B04,B08"')], header="uri,datetime,bands")
    assert read_manifest(path).bands == ("B04", "B08")


def test_json_list_form(tmp_path):
    path = json_manifest(tmp_path / "m.json", [{"uri": "a.tif", "datetime": "2024-01-01"}])
    assert read_manifest(path).items[0].uri == str(tmp_path / "a.tif")


@pytest.mark.parametrize(
    "rows, header, message",
    [
        ([("a.tif", "2024-01-01"), ("b.tif", "2024-01-01")], "uri,datetime", "and line 3"),
        ([("a.tif", "January")], "uri,datetime", "line 2 has the datetime 'January'"),
        ([("a.tif", "")], "uri,datetime", "line 2 has the datetime ''"),
        ([("a.tif", "2024-01-01")], "path,date", "has no uri and no datetime column"),
        ([("a.tif", "2024-01-01", "x,y"), ("b.tif", "2024-02-01", "x,z")], "uri,datetime,bands", "give the same names"),
        ([], "uri,datetime", "lists no files"),
    ],
)
def test_manifest_errors_name_the_row_and_the_fix(tmp_path, rows, header, message):
    quoted = [tuple(f'"{v}"' if "," in v else v for v in row) for row in rows]
    path = csv_manifest(tmp_path / "m.csv", quoted, header=header)
    with pytest.raises(InputError) as caught:
        read_manifest(path).bands
    assert message in str(caught.value)


def test_duplicate_dates_name_both_rows(tmp_path):
    path = csv_manifest(tmp_path / "m.csv", [("a.tif", "2024-01-01"), ("c.tif", "2024-02-01"), ("b.tif", "2024-01-01")])
    with pytest.raises(InputError) as caught:
        read_manifest(path)
    text = str(caught.value)
    assert "line 2" in text and "line 4" in text and "same date" in text and "remove one of them" in text


def test_json_that_is_not_a_list_of_items(tmp_path):
    with pytest.raises(InputError, match="must hold a list"):
        read_manifest(json_manifest(tmp_path / "m.json", {"files": []}))


@pytest.mark.parametrize("value", ["1,2,3", "5,0,1,10", "0,0,10,x"])
def test_bounds_need_four_ordered_numbers(value):
    with pytest.raises(InputError, match="--bounds"):
        parse_bounds(value, "--bounds")


def test_manifests_are_csv_or_json_files(tmp_path):
    (tmp_path / "store.json").mkdir()
    assert is_manifest("a.CSV") and is_manifest("b.json")
    assert not is_manifest(tmp_path / "store.json") and not is_manifest("cube.nc") and not is_manifest("cube.zarr")
