"""`chronozarr series`: CSV rows equal to numpy statistics of the written arrays, a point's
pixel, and one error line with exit status 2 for every kind of bad input."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from conftest import make_series
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app

X0, Y0 = 500_000.0, 5_000_000.0
runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    da = make_series(n_time=4, n_band=2, height=30, width=26, seed=11, bands=["B03", "B08"])
    values = da.values.copy()
    values[:, :, :5, :5] = 0
    values[1] = 0  # a date without any valid pixel
    path = tmp_path_factory.mktemp("series") / "s"
    bands = [{"name": "B03", "common_name": "green", "scale": 1e-4}, {"name": "B08", "common_name": "nir", "scale": 1e-4}]
    chronozarr.encode(da.copy(data=values), path, crs="EPSG:32631", chunk_size=16, nodata=0, bands=bands, progress=False)
    return path, values


def _rows(output: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(output)))


def test_the_csv_has_one_row_per_date_and_band_with_numpys_statistics(store):
    path, values = store
    result = runner.invoke(app, ["series", str(path), "--bbox", f"{X0 + 5},{Y0 - 195},{X0 + 145},{Y0 - 5}", "--csv", "-"])
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    assert list(rows[0]) == ["time", "band", "level", "valid_pixels", "mean", "std", "min", "max"]
    assert [(r["time"][:10], r["band"]) for r in rows[:3]] == [("2024-01-01", "B03"), ("2024-01-01", "B08"), ("2024-02-01", "B03")]
    window = values[:, :, 0:20, 0:15]  # centres x0+5..x0+145 and y0-5..y0-195, edges included
    for row in rows:
        t, b = [r[:10] for r in (row["time"],)][0], row["band"]
        ti, bi = ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"].index(t), ["B03", "B08"].index(b)
        v = window[ti, bi][window[ti, bi] != 0].astype(np.float64) * 1e-4
        assert int(row["valid_pixels"]) == v.size and row["level"] == "0"
        if v.size == 0:
            assert row["mean"] == row["std"] == row["min"] == row["max"] == ""
        else:
            np.testing.assert_allclose([float(row[k]) for k in ("mean", "std", "min", "max")], [v.mean(), v.std(), v.min(), v.max()], rtol=1e-9)


def test_a_geojson_file_and_a_csv_file(store, tmp_path):
    path, values = store
    feature = {"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {
        "type": "Polygon", "coordinates": [[[X0, Y0], [X0 + 100, Y0], [X0 + 100, Y0 - 100], [X0, Y0 - 100], [X0, Y0]]]}}]}
    (tmp_path / "a.geojson").write_text(json.dumps(feature))
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["series", str(path), "--geojson", str(tmp_path / "a.geojson"), "--band", "water", "--csv", str(out)])
    assert result.exit_code == 0, result.output
    rows = _rows(out.read_text())
    green, nir = (values[:, i, :10, :10].astype(np.float64) * 1e-4 for i in range(2))
    ok = (values[:, 0, :10, :10] != 0) & (values[:, 1, :10, :10] != 0)
    with np.errstate(invalid="ignore"):
        water = ((green - nir) / (green + nir) > 0) & ok
    assert [int(r["valid_pixels"]) for r in rows] == list(ok.sum(axis=(1, 2)))
    np.testing.assert_allclose([float(r["water_km2"]) for r in rows], water.sum(axis=(1, 2)) * 100 / 1e6)


def test_a_point_gives_its_pixels_values(store):
    path, values = store
    result = runner.invoke(app, ["series", str(path), "--point", f"{X0 + 77},{Y0 - 133}", "--band", "B08"])
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    assert [float(r["mean"]) if r["mean"] else None for r in rows] == [v * 1e-4 if v else None for v in values[:, 1, 13, 7]]


def test_help_shows_examples():
    result = runner.invoke(app, ["series", "--help"])
    assert result.exit_code == 0 and "--bbox" in result.output and "chronozarr series my_store --geojson" in result.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--bbox", "0,0,10,10"], "outside the store"),
        (["--bbox", "1,2,3"], "is not 4 numbers"),
        (["--bbox", f"{X0 + 50},{Y0 - 10},{X0 + 20},{Y0}"], "empty"),
        (["--geojson", "BOWTIE"], "crosses itself"),
        (["--bbox", f"{X0},{Y0 - 50},{X0 + 50},{Y0}", "--crs", "EPSG:999999"], "unknown CRS"),
        (["--bbox", f"{X0},{Y0 - 50},{X0 + 50},{Y0}", "--band", "B99"], "cannot give 'B99'"),
        (["--bbox", f"{X0},{Y0 - 50},{X0 + 50},{Y0}", "--lod", "9"], "level 9 does not exist"),
        (["--bbox", f"{X0},{Y0 - 50},{X0 + 50},{Y0}", "--point", "1,2"], "exactly one of"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(store, tmp_path, args, words):
    path, _ = store
    if "BOWTIE" in args:
        bowtie = {"type": "Polygon", "coordinates": [[[X0, Y0], [X0 + 50, Y0 - 50], [X0 + 50, Y0], [X0, Y0 - 50], [X0, Y0]]]}
        (tmp_path / "b.json").write_text(json.dumps(bowtie))
        args = ["--geojson", str(tmp_path / "b.json")]
    result = runner.invoke(app, ["series", str(path), *args])
    assert result.exit_code == 2, result.output
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_lon_lat_point_with_its_crs_is_the_same_pixel(store):
    pyproj = pytest.importorskip("pyproj")
    path, values = store
    lon, lat = pyproj.Transformer.from_crs("EPSG:32631", "EPSG:4326", always_xy=True).transform(X0 + 77, Y0 - 133)
    utm = runner.invoke(app, ["series", str(path), "--point", f"{X0 + 77},{Y0 - 133}", "--csv", "-"])
    ll = runner.invoke(app, ["series", str(path), "--point", f"{lon!r},{lat!r}", "--crs", "EPSG:4326", "--csv", "-"])
    assert utm.exit_code == 0 and ll.exit_code == 0, ll.output
    assert _rows(ll.stdout) == _rows(utm.stdout)
    assert [r["mean"] for r in _rows(utm.stdout) if r["band"] == "B03"] == [repr(float(v) * 1e-4) if v else "" for v in values[:, 0, 13, 7]]
