"""Inputs as users have them, through the command line: CRSs without EPSG codes, --crs replacing
a file's CRS, dated GeoTIFF globs for encode, manifests by URL, and each bad input as one line
naming the file and the fix, exit 2, no traceback, no store."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from raster_inputs import DATES, ESRI_UTM_25S, NULL_TOWGS84_UTM_25S, TRANSFORM, csv_manifest, geotiff, pixels
from rasterio.transform import Affine
from served_files import http_site  # noqa: F401  (a fixture)
from source_inputs import HEIGHT, TIMES, WIDTH, values, write
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app
from chronozarr.serve import StoreServer

FAST = ["--chunk-size", "16", "--no-progress", "--encoding", "none"]
DEM_TRANSFORM = Affine(30, 0, 210_000, 0, -30, 9_100_000)  # off Natal, in UTM 25S


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def refused(result, *texts: str, out: Path) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for text in texts:
        assert text in result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    assert not (out / "zarr.json").exists()


def provenance_of(store: Path) -> dict:
    return json.loads((store / "zarr.json").read_text())["attributes"]["chronozarr"]["provenance"]


def dems(folder: Path, n: int = 2, crs: object = ESRI_UTM_25S) -> Path:
    rows = []
    for i in range(n):
        path = geotiff(folder / f"dem{i}.tif", pixels(1, "int16", seed=i), crs=crs, transform=DEM_TRANSFORM)
        rows.append((path.name, DATES[i]))
    return csv_manifest(folder / "m.csv", rows)


def test_an_esri_utm_crs_with_an_unnamed_datum_is_recorded_as_its_epsg_match(tmp_path):
    out = tmp_path / "out"
    result = run("convert", dems(tmp_path), out, *FAST)
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(out) as store:
        code = store.crs
    from pyproj import CRS

    epsg = CRS.from_user_input(code)
    assert epsg.ellipsoid.name == "GRS 1980" and "UTM zone 25S" in epsg.name  # independent of the matcher
    note = next(line for line in result.stdout.splitlines() if line.startswith("note: "))
    assert f"recorded as {code}" in note and "dem0.tif (UTM Zone 25, Southern Hemisphere) has no EPSG code" in note
    assert note[len("note: "):] in provenance_of(out)["notes"]


def test_crs_naming_an_equivalent_crs_relabels_and_says_which_equivalence(tmp_path):
    out = tmp_path / "out"
    result = run("convert", dems(tmp_path), out, "--crs", "EPSG:31985", *FAST)
    assert result.exit_code == 0, result.output
    note = next(line for line in result.stdout.splitlines() if line.startswith("note: "))
    assert "relabelled as EPSG:31985, not warped" in note and "unnamed" in note
    assert note[len("note: "):] in provenance_of(out)["notes"]
    with chronozarr.open_dataset(out) as store:
        assert store.crs == "EPSG:31985"
        assert np.array_equal(store.read(0)[0], pixels(1, "int16", seed=0)[0])  # stored exactly


@pytest.mark.parametrize("crs", [(), ("--crs", "EPSG:31985")], ids=["matched", "relabelled"])
def test_a_geotiff_bound_by_a_null_towgs84_converts_losslessly(tmp_path, crs):
    from pyproj import CRS
    from rasterio.crs import CRS as GdalCRS

    out = tmp_path / "out"
    result = run("convert", dems(tmp_path, crs=GdalCRS.from_proj4(NULL_TOWGS84_UTM_25S)), out, *crs, *FAST)
    assert result.exit_code == 0, result.output
    note = next(line for line in result.stdout.splitlines() if line.startswith("note: "))
    assert "all 7 parameters 0, the identity" in note
    assert ("relabelled as EPSG:31985, not warped" if crs else "has no EPSG code; recorded as EPSG:") in note
    assert note[len("note: "):] in provenance_of(out)["notes"]
    with chronozarr.open_dataset(out) as store:
        recorded = CRS.from_user_input(store.crs)
        assert recorded.ellipsoid.name == "GRS 1980" and "UTM zone 25S" in recorded.name
        assert store.crs == "EPSG:31985"  # given, or matched: SIRGAS 2000 of the tie with SIRGAS 1995
        for t in range(2):
            assert np.array_equal(store.read(t)[0], pixels(1, "int16", seed=t)[0])  # stored exactly, no warp


def test_a_geotiff_bound_by_a_real_shift_is_not_relabelled(tmp_path):
    from rasterio.crs import CRS as GdalCRS

    shifted = GdalCRS.from_proj4(NULL_TOWGS84_UTM_25S.replace("0,0,0,0,0,0,0", "-66.87,4.37,-38.52,0,0,0,0"))
    result = run("convert", dems(tmp_path, crs=shifted), tmp_path / "out", "--crs", "EPSG:31985", *FAST)
    refused(result, "--crs EPSG:31985 is the CRS to store in", "a declared shift to WGS 84", "needs --resampling",
            out=tmp_path / "out")


def utm18s(folder: Path) -> Path:
    """Two GeoTIFFs declaring WGS 84 / UTM 18S (EPSG:32718)."""
    return csv_manifest(folder / "z.csv", [
        (geotiff(folder / f"z{i}.tif", pixels(1, seed=i), crs="EPSG:32718").name, DATES[i]) for i in range(2)
    ])


def test_crs_naming_another_crs_is_the_target_and_needs_resampling(tmp_path):
    manifest = utm18s(tmp_path)
    result = run("convert", manifest, tmp_path / "z", "--crs", "EPSG:32717", *FAST)
    refused(result, "--crs EPSG:32717 is the CRS to store in", "z0.tif (WGS 84 / UTM zone 18S) differs",
            "needs --resampling", "drop --crs", out=tmp_path / "z")


def test_crs_naming_another_crs_warps_the_files_where_they_belong(tmp_path):
    from pyproj import Transformer

    out = tmp_path / "z"
    result = run("convert", utm18s(tmp_path), out, "--crs", "EPSG:32717", "--resampling", "nearest", "--resolution", 10, *FAST)
    assert result.exit_code == 0, result.output
    assert "warped by GDAL with nearest resampling from EPSG:32718" in result.stdout
    west, north = TRANSFORM.c, TRANSFORM.f
    x, y = Transformer.from_crs("EPSG:32718", "EPSG:32717", always_xy=True).transform(west + 90, north - 100)
    with chronozarr.open_dataset(out) as store:
        assert store.crs == "EPSG:32717"
        xs, ys = store.to_xarray(lod=0, times=[0])["x"].values, store.to_xarray(lod=0, times=[0])["y"].values
    assert xs.min() - 10 < x < xs.max() + 10 and ys.min() - 10 < y < ys.max() + 10  # the files' centre, ~667 km east


def test_crs_and_resampling_without_resolution_take_gdalwarps_default_pixel_size(tmp_path):
    import rasterio
    from rasterio.warp import calculate_default_transform

    out = tmp_path / "z"
    result = run("convert", utm18s(tmp_path), out, "--crs", "EPSG:32717", "--resampling", "nearest", *FAST)
    assert result.exit_code == 0, result.output
    sizes = []
    for name in ("z0.tif", "z1.tif"):  # independent: GDAL's suggested warp output of each file
        with rasterio.open(tmp_path / name) as src:
            sizes.append(abs(calculate_default_transform(src.crs, "EPSG:32717", src.width, src.height, *src.bounds)[0].a))
    note = next(line for line in result.stdout.splitlines() if line.startswith("note: no --resolution"))
    assert f"pixels of {min(sizes):.12g} m in EPSG:32717" in note
    assert note[len("note: "):] in provenance_of(out)["notes"]
    with chronozarr.open_dataset(out) as store:
        assert store.levels[0].transform[0] == pytest.approx(min(sizes), rel=1e-9)


def daymet(path: Path) -> Path:
    """A Daymet-like NetCDF: (time, y, x) on a CF lambert_conformal_conic grid mapping, no WKT."""
    ds = xr.Dataset(coords={
        "time": TIMES, "y": 50_000 - (np.arange(HEIGHT) + 0.5) * 1000.0, "x": -40_000 + (np.arange(WIDTH) + 0.5) * 1000.0,
    })
    ds["tmax"] = (("time", "y", "x"), values((len(TIMES), HEIGHT, WIDTH), "int16"), {"grid_mapping": "lambert_conformal_conic"})
    ds["lambert_conformal_conic"] = xr.DataArray(np.int8(0), attrs={
        "grid_mapping_name": "lambert_conformal_conic", "standard_parallel": [25.0, 60.0],
        "longitude_of_central_meridian": -100.0, "latitude_of_projection_origin": 42.5, "false_easting": 0.0,
        "false_northing": 0.0, "semi_major_axis": 6378137.0, "inverse_flattening": 298.257223563,
    })
    return write(ds, path)


def test_a_daymet_lambert_grid_is_refused_naming_the_closest_crs_and_the_reprojection(tmp_path):
    source = daymet(tmp_path / "daymet.nc")
    result = run("encode", source, tmp_path / "out", *FAST)
    refused(result, "grid mapping 'lambert_conformal_conic'", "no EPSG CRS is equivalent to it", "differs in",
            "gdalwarp -t_srs EPSG:32614 -r bilinear IN OUT", out=tmp_path / "out")
    assert "32631" not in result.stderr  # no fixed example code

    # --crs is the CRS to store in: a NetCDF grid declaring another is not relabelled (every pixel would move)
    result = run("encode", source, tmp_path / "stated", "--crs", "EPSG:32614", *FAST)
    refused(result, "--crs EPSG:32614 is the CRS to store in", "differs from --crs EPSG:32614 in projection",
            "is not warped", "Drop --crs", out=tmp_path / "stated")


def test_a_netcdf_with_an_esri_wkt_is_matched_too(tmp_path):
    ds = xr.Dataset(coords={"time": TIMES, "y": 9_100_000 - (np.arange(HEIGHT) + 0.5) * 30.0,
                            "x": 210_000 + (np.arange(WIDTH) + 0.5) * 30.0})
    ds["dem"] = (("time", "y", "x"), values((len(TIMES), HEIGHT, WIDTH), "int16"), {"grid_mapping": "crs"})
    ds["crs"] = xr.DataArray(np.int8(0), attrs={"crs_wkt": ESRI_UTM_25S})
    result = run("encode", write(ds, tmp_path / "dem.nc"), tmp_path / "out", *FAST)
    assert result.exit_code == 0, result.output
    assert "note: grid mapping 'crs' attribute 'crs_wkt' (UTM Zone 25, Southern Hemisphere) has no EPSG code" in result.stdout


def scenes(folder: Path, names: list[str]) -> dict[str, np.ndarray]:
    folder.mkdir(exist_ok=True)
    return {name: geotiff(folder / name, pixels(2, seed=i)) and pixels(2, seed=i) for i, name in enumerate(names)}


def test_encode_reads_a_glob_of_files_dated_by_their_names(tmp_path):
    written = scenes(tmp_path / "scenes", ["S2_20240301.tif", "2024-01-15.tif", "LC09_2024-02-10T10:31:05.tif"])
    out = tmp_path / "out"
    result = run("encode", f"{tmp_path}/scenes/*.tif", out, *FAST)
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(out) as store:
        np.testing.assert_array_equal(
            store.times, np.array(["2024-01-15", "2024-02-10T10:31:05", "2024-03-01"], dtype="datetime64[ms]"))
        for t, name in enumerate(["2024-01-15.tif", "LC09_2024-02-10T10:31:05.tif", "S2_20240301.tif"]):
            np.testing.assert_array_equal(store.read(t), written[name])


def test_a_name_with_two_dates_needs_a_date_format(tmp_path):
    landsat = ["LC08_L2SP_042034_20240105_20240110_02_T1.tif", "LC08_L2SP_042034_20240121_20240130_02_T1.tif"]
    scenes(tmp_path / "scenes", landsat)
    pattern = f"{tmp_path}/scenes/*.tif"
    refused(run("encode", pattern, tmp_path / "out", *FAST), "LC08_L2SP_042034_20240105_20240110_02_T1.tif: its name holds two dates (20240105 and 20240110)",
            "--date-format", out=tmp_path / "out")
    result = run("encode", pattern, tmp_path / "out", "--date-format", "L2SP_*_%Y%m%d_*", *FAST)
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.times, np.array(["2024-01-05", "2024-01-21"], dtype="datetime64[ms]"))


@pytest.mark.parametrize("names, texts", [
    (["2024-01-05.tif", "scene_b.tif"], ["scene_b.tif: its name holds no date (ISO 2024-03-01 or YYYYMMDD)", "--date-format"]),
    (["a_2024-01-05.tif", "b_20240105.tif"], ["a_2024-01-05.tif and", "have the same date 2024-01-05T00:00:00", "give each date one file"]),
])
def test_glob_names_without_one_date_each_are_refused(tmp_path, names, texts):
    scenes(tmp_path / "scenes", names)
    refused(run("encode", f"{tmp_path}/scenes/*.tif", tmp_path / "out", *FAST), *texts, out=tmp_path / "out")


def test_a_rotated_geotransform_is_refused_with_the_gdalwarp_command(tmp_path):
    rotated = Affine(10, 2, TRANSFORM.c, 2, -10, TRANSFORM.f)
    rows = [(geotiff(tmp_path / "r.tif", pixels(1), transform=rotated).name, DATES[0])]
    refused(run("convert", csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", *FAST),
            "r.tif is not on a north-up grid (geotransform (10.0, 2.0,", "gdalwarp -t_srs EPSG:32631 -tr 10.2 10.2 -r bilinear IN OUT",
            "--grid EPSG:32631 --resolution 10.2 --resampling bilinear", out=tmp_path / "out")


def truncated_series(folder: Path) -> Path:
    rows = [(geotiff(folder / f"{i}.tif", pixels(2, seed=i)).name, DATES[i]) for i in range(3)]
    broken = folder / "1.tif"
    broken.write_bytes(broken.read_bytes()[: broken.stat().st_size // 2])  # an interrupted download
    return csv_manifest(folder / "m.csv", rows)


def test_an_unreadable_frame_is_named_and_skipped_only_when_asked(tmp_path):
    manifest = truncated_series(tmp_path)
    refused(run("convert", manifest, tmp_path / "out", *FAST), "cannot open source", "1.tif", "--skip-unreadable", out=tmp_path / "out")

    result = run("convert", manifest, tmp_path / "out", "--skip-unreadable", *FAST)
    assert result.exit_code == 0, result.output
    assert f"note: skipped 1 unreadable file(s) (--skip-unreadable): {tmp_path / '1.tif'}" in result.stdout
    assert "1.tif" in provenance_of(tmp_path / "out")["notes"]
    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.times, np.array([DATES[0], DATES[2]], dtype="datetime64[ms]"))
        np.testing.assert_array_equal(store.read(1), pixels(2, seed=2))


def test_a_manifest_url_that_answers_404_or_403_is_named(tmp_path):
    site = tmp_path / "site"
    (site / "private").mkdir(parents=True)
    csv_manifest(site / "private" / "m.csv", [("a.tif", DATES[0])])
    with StoreServer(site, forbidden={"private"}) as server:
        refused(run("convert", f"{server.url}/gone/m.csv", tmp_path / "out", *FAST),
                f"cannot fetch the manifest {server.url}/gone/m.csv: the server answers 404 (not found); check the URL",
                out=tmp_path / "out")
        refused(run("convert", f"{server.url}/private/m.csv", tmp_path / "out", *FAST),
                "cannot fetch the manifest", "(HTTP 403)", "a private bucket or an expired signed URL", out=tmp_path / "out")


def test_a_manifest_url_with_relative_uris_reads_them_from_its_url(tmp_path, http_site):
    site, url = http_site
    arrays = [pixels(2, seed=i) for i in range(2)]
    rows = [(geotiff(site / f"{i}.tif", a).name, DATES[i]) for i, a in enumerate(arrays)]
    csv_manifest(site / "m.csv", rows)
    result = run("convert", f"{url}/m.csv", tmp_path / "out", *FAST)
    assert result.exit_code == 0, result.output
    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.read(1), arrays[1])


def test_raster_options_are_refused_for_netcdf_inputs(tmp_path):
    source = daymet(tmp_path / "daymet.nc")
    refused(run("encode", source, tmp_path / "out", "--resampling", "nearest", *FAST),
            "--resampling applies to raster files", out=tmp_path / "out")
    refused(run("convert", source, tmp_path / "out", "--grid", "first", *FAST), "--grid applies to raster files", out=tmp_path / "out")


def test_a_frame_that_fails_while_the_store_is_written_is_named_and_leaves_no_store(tmp_path):
    import rasterio

    rows = []
    for i in range(2):
        path = tmp_path / f"{i}.tif"
        with rasterio.open(path, "w", driver="GTiff", width=64, height=64, count=1, dtype="uint16", crs="EPSG:32631",
                           transform=TRANSFORM, tiled=True, blockxsize=16, blockysize=16, compress="deflate") as ds:
            ds.write(pixels(1, height=64, width=64, seed=i))
        rows.append((path.name, DATES[i]))
    with rasterio.open(tmp_path / "1.tif") as ds:  # damage the first tile; the header and last tile stay good
        offset = int(ds.get_tag_item("BLOCK_OFFSET_0_0", "TIFF", bidx=1))
    with open(tmp_path / "1.tif", "r+b") as f:
        f.seek(offset)
        f.write(b"\xff" * 64)
    refused(run("convert", csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", *FAST),
            "cannot read", "1.tif", "replace the file", out=tmp_path / "out")


def stac_items(folder: Path, dates: list[str], keys: tuple[str, ...] = ("B04",)) -> Path:
    """A saved STAC search: one item per date, each asset a COG in `folder`."""
    features = []
    for i, when in enumerate(dates):
        assets = {k: {"href": geotiff(folder / f"s{i}_{k}.tif", pixels(1, seed=i), driver="COG").name, "roles": ["data"]} for k in keys}
        features.append({"type": "Feature", "stac_version": "1.0.0", "id": f"S2_{i}", "geometry": None,
                         "properties": {"datetime": when}, "links": [], "assets": assets})
    path = folder / "items.json"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


@pytest.mark.parametrize("dates, args, texts", [
    (["2024-06-01T10:00:00Z"], ["--assets", "B08"], ["item S2_0 has no asset 'B08' (its assets are B04); drop it from --assets"]),
    (["2024-06-01T10:00:00Z", "2024-06-01T10:00:00Z"], ["--assets", "B04"],
     ["item S2_0 and item S2_1 have the same date 2024-06-01T10:00:00", "--group-by day"]),
    (["2024-06-01T10:00:00Z"], ["--assets", "B04", "--group-by", "week"], ["--group-by 'week'", "'day'"]),
])
def test_stac_mistakes_are_one_line_naming_the_item_and_the_fix(tmp_path, dates, args, texts):
    refused(run("convert", stac_items(tmp_path, dates), tmp_path / "out", *args, *FAST), *texts, out=tmp_path / "out")
