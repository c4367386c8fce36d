"""`chronozarr convert`: the command end to end, and every input mistake as `error: ...`, status 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from raster_inputs import DATES, TRANSFORM, UTM, csv_manifest, geotiff, pixels, png
from rasterio.transform import from_origin
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app

FAST = ["--chunk-size", "16", "--no-progress"]


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def tiffs(folder: Path, n: int = 2, **declared) -> list[tuple[str, str]]:
    """n uint16 GeoTIFFs on one grid, as manifest rows."""
    return [(geotiff(folder / f"{i}.tif", pixels(2, seed=i), **declared).name, DATES[i]) for i in range(n)]


def test_help_lists_examples_and_the_shared_options():
    result = run("convert", "--help")
    assert result.exit_code == 0
    for text in ("chronozarr convert scenes.csv my_store --dry-run", "--bounds", "--cast", "--chunk-size", "--shard", "--dry-run"):
        assert text in result.stdout


def test_convert_writes_the_store_and_reports_it(tmp_path):
    rows = tiffs(tmp_path, nodata=7)
    out = tmp_path / "out"
    result = run("convert", csv_manifest(tmp_path / "m.csv", rows), out, "--encoding", "none", *FAST)
    assert result.exit_code == 0, result.output
    assert str(out) in result.stdout and "encoding none" in result.stdout
    with chronozarr.open_dataset(out) as store:
        assert store.nodata == 7
        np.testing.assert_array_equal(store.read(1), pixels(2, seed=1))


def test_every_summary_counts_the_source_pixels_resampled_and_dropped(tmp_path):
    from source_inputs import cube, write

    result = run("convert", csv_manifest(tmp_path / "m.csv", tiffs(tmp_path)), tmp_path / "out", *FAST)
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(tmp_path / "out") as store:
        n_time, _, height, width = store.to_xarray(lod=0, physical=False).shape
    assert f"note: source pixels: {n_time * height * width} stored as read, 0 resampled, 0 dropped outside the store's grid" in result.stdout
    cube_file = write(cube(), tmp_path / "cube.nc")
    result = run("convert", cube_file, tmp_path / "nc", *FAST)
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(tmp_path / "nc") as store:
        n_time, _, height, width = store.to_xarray(lod=0, physical=False).shape
    assert f"note: source pixels: {n_time * height * width} stored as read, 0 resampled, 0 dropped" in result.stdout


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    result = run("convert", csv_manifest(tmp_path / "m.csv", tiffs(tmp_path)), out, "--dry-run", *FAST)
    assert result.exit_code == 0, result.output
    assert not out.exists()
    for text in ("nothing written", "2024-01-01T00:00:00Z, 2024-02-01T00:00:00Z", "18 x 20 px (width x height)", UTM, "uint16", "levels", "kB uncompressed"):
        assert text in result.stdout


def test_non_empty_output_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = run("convert", csv_manifest(tmp_path / "m.csv", tiffs(tmp_path)), out, *FAST)
    assert result.exit_code == 2 and "is not empty; stores are never overwritten" in result.stderr
    assert (out / "keep.txt").read_text() == "mine"


def _shape(folder: Path) -> list[tuple[str, str]]:
    return tiffs(folder, 1) + [(geotiff(folder / "odd.tif", pixels(2, height=21)).name, DATES[1])]


def _crs(folder: Path) -> list[tuple[str, str]]:
    return tiffs(folder, 1) + [(geotiff(folder / "odd.tif", pixels(2), crs="EPSG:32632").name, DATES[1])]


def _transform(folder: Path) -> list[tuple[str, str]]:
    moved = from_origin(500_005, 5_000_200, 10, 10)
    return tiffs(folder, 1) + [(geotiff(folder / "odd.tif", pixels(2), transform=moved).name, DATES[1])]


def _dtype(folder: Path) -> list[tuple[str, str]]:
    return tiffs(folder, 1) + [(geotiff(folder / "odd.tif", pixels(2, "int16")).name, DATES[1])]


def _nodata(folder: Path) -> list[tuple[str, str]]:
    return tiffs(folder, 1, nodata=0) + [(geotiff(folder / "odd.tif", pixels(2), nodata=65535).name, DATES[1])]


def _duplicate(folder: Path) -> list[tuple[str, str]]:
    rows = tiffs(folder, 2)
    return [rows[0], (rows[1][0], rows[0][1])]


def _bad_date(folder: Path) -> list[tuple[str, str]]:
    return [(tiffs(folder, 1)[0][0], "1st of May")]


def _missing(folder: Path) -> list[tuple[str, str]]:
    return tiffs(folder, 1) + [("gone.tif", DATES[1])]


def _palette(folder: Path) -> list[tuple[str, str]]:
    colours = {i: (i, i, 0, 255) for i in range(256)}
    return [(png(folder / "p.png", pixels(1, "uint8"), world_file=True, colormap=colours).name, DATES[0])]


def _world_file(folder: Path) -> list[tuple[str, str]]:
    return [(png(folder / "w.png", pixels(3, "uint8"), world_file=True).name, DATES[0])]


def _no_georeferencing(folder: Path) -> list[tuple[str, str]]:
    return [(png(folder / "n.png", pixels(3, "uint8")).name, DATES[0])]


def _float64(folder: Path) -> list[tuple[str, str]]:
    return [(geotiff(folder / "f.tif", pixels(1, "float64")).name, DATES[0])]


def _scales(folder: Path) -> list[tuple[str, str]]:
    return tiffs(folder, 1) + [(geotiff(folder / "odd.tif", pixels(2), scales=(0.1, 0.1)).name, DATES[1])]


def _named(folder: Path) -> list[tuple[str, str, str]]:
    return [(name, date, "only_one") for name, date in tiffs(folder, 1)]


def _sidecar_and_bounds(folder: Path) -> list[tuple[str, str]]:
    return [(png(folder / "s.png", pixels(3, "uint8"), crs=UTM, transform=TRANSFORM).name, DATES[0])]


@pytest.mark.parametrize(
    "make, args, messages",
    [
        (_shape, [], [
            "odd.tif is not on the grid of the store (it covers rows 0..20 and columns 0..17 of the 18 x 20 grid)",
            "--grid union puts every file on one grid covering them all, each read exactly where it lands (no resampling)",
            "--grid first would keep the first file's extent only, dropping 18 of this file's pixels",  # its 21st row
            "gdalwarp -t_srs EPSG:32631 -tr 10 10 -te 500000 5000000 500180 5000200",
        ]),
        (_crs, [], [
            "odd.tif is not on the grid of the store (its CRS is EPSG:32632, not EPSG:32631)",
            "values are never resampled silently: --resampling nearest|bilinear|cubic|average|mode", "gdalwarp -t_srs EPSG:32631",
        ]),
        (_transform, [], ["odd.tif is not on the grid of the store (its pixels are offset by (0.5, 0) of a pixel", "--resampling"]),
        (_dtype, [], ["odd.tif: its data type is int16, but", "has uint16", "gdal_translate -ot UInt16"]),
        (_nodata, [], ["odd.tif: its nodata is 65535, but", "has 0;", "gdal_edit.py -a_nodata 0 IN"]),
        (_duplicate, [], ["line 2 (", "line 3 (", "same date 2024-01-01T00:00:00;", "remove one of them"]),
        (_bad_date, [], ["line 2 has the datetime '1st of May'", "2024-03-01T10:30:00Z"]),
        (_missing, [], ["cannot open source", "gone.tif", "Check the uri"]),
        (_palette, ["--crs", UTM], ["palette (indexed colour) PNG", "gdal_translate -expand rgba in.png out.png"]),
        (_world_file, [], ["w.png has a geotransform but declares no CRS", "--crs EPSG:"]),
        (_no_georeferencing, [], ["n.png has no georeferencing", "world file", ".aux.xml", "--bounds"]),
        (_no_georeferencing, ["--bounds", "0,0,180,200"], ["--bounds needs --crs"]),
        (_sidecar_and_bounds, ["--crs", UTM, "--bounds", "0,0,180,200"], ["carries its own geotransform", "drop --bounds"]),
        (_scales, [], ["odd.tif: its scale per band is (0.1, 0.1), but", "gdal_edit.py -scale"]),
        (_named, [], ["the manifest names 1 bands (only_one) but", "has 2 data bands", "one name per data band"]),
        (_float64, [], ["the input data is float64", "Re-run with --cast float32"]),
        (_shape, ["--variable", "x"], ["--variable select variables of a NetCDF file or Zarr store"]),
    ],
)
def test_input_errors_exit_2_naming_the_problem_and_the_fix(tmp_path, make, args, messages):
    rows = make(tmp_path)
    manifest = csv_manifest(tmp_path / "m.csv", rows, header="uri,datetime" + (",bands" if len(rows[0]) == 3 else ""))
    out = tmp_path / "out"
    result = run("convert", manifest, out, *args, *FAST)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    for message in messages:
        assert message in result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    assert not out.exists()
