"""convert onto one grid: files already on it are read bit for bit, others are warped exactly as
GDAL's own warper (rasterio.warp.reproject, the gdalwarp code path, run here on the same files)
puts them there, and target pixels no file covers are invalid."""

from __future__ import annotations

import json

import numpy as np
import pytest
from raster_inputs import DATES, HEIGHT, TRANSFORM, UTM, WIDTH, csv_manifest, geotiff, pixels
from rasterio.crs import CRS
from rasterio.transform import Affine, from_origin
from rasterio.warp import Resampling, reproject
from rasterio.warp import transform as transform_points

import chronozarr
from chronozarr.errors import InputError
from chronozarr.convert import convert

FAST = {"chunk_size": 16, "progress": False, "encoding": "none"}
BOUNDS = (TRANSFORM.c, TRANSFORM.f - 10 * HEIGHT, TRANSFORM.c + 10 * WIDTH, TRANSFORM.f)
TARGET = from_origin(BOUNDS[0], BOUNDS[3], 10, 10)


def neighbour_zone_file(path, values, size=20.0):
    """A file in UTM 32N over the area of the UTM 31N grid, at another pixel size."""
    (x,), (y,) = transform_points(UTM, "EPSG:32632", [BOUNDS[0] - 15], [BOUNDS[3] + 25])
    return geotiff(path, values, crs="EPSG:32632", transform=from_origin(x, y, size, size), nodata=0)


def gdal_warp(path, resampling: str, dst_transform: Affine = TARGET, shape=(HEIGHT, WIDTH), dst_crs=UTM):
    """The independent reference: the `gdalwarp` binary when the machine has one of rasterio's GDAL
    version (resampling kernels change between versions: `mode` did after 3.6), else GDAL's
    warper through rasterio.warp.reproject, run on the file onto the target grid."""
    import shutil
    import subprocess

    import rasterio

    height, width = shape
    west, north = dst_transform.c, dst_transform.f
    east, south = west + dst_transform.a * width, north + dst_transform.e * height
    if shutil.which("gdalwarp") and _same_gdal():
        out_path = path.with_name(f"{path.stem}.gdalwarp.{resampling}.tif")
        subprocess.run(["gdalwarp", "-q", "-overwrite", "-t_srs", dst_crs, "-te", str(west), str(south), str(east), str(north),
                        "-ts", str(width), str(height), "-r", resampling, "-dstnodata", "0", str(path), str(out_path)], check=True)
        with rasterio.open(out_path) as ds:
            return ds.read()
    with rasterio.open(path) as src:
        out = np.zeros((src.count, *shape), dtype=src.dtypes[0])
        reproject(
            rasterio.band(src, list(src.indexes)), out, dst_transform=dst_transform, dst_crs=CRS.from_user_input(dst_crs),
            resampling=Resampling[resampling], src_nodata=src.nodata, dst_nodata=0,
        )
    return out


def _same_gdal() -> bool:
    import subprocess

    import rasterio

    version = subprocess.run(["gdalwarp", "--version"], capture_output=True, text=True).stdout.split()
    return len(version) > 1 and version[1].rstrip(",").split(".")[:2] == rasterio.__gdal_version__.split(".")[:2]


@pytest.mark.parametrize("resampling", ["nearest", "bilinear", "cubic", "average", "mode"])
def test_a_file_in_another_utm_zone_is_warped_as_gdal_warps_it(tmp_path, resampling):
    on_grid = pixels(2, seed=1)
    other = pixels(2, seed=2, height=7, width=6)  # covers part of the grid
    rows = [(geotiff(tmp_path / "a.tif", on_grid, nodata=0).name, DATES[0]),
            (neighbour_zone_file(tmp_path / "b.tif", other).name, DATES[1])]

    convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", grid="EPSG:32631", resolution=10,
            bounds=",".join(map(str, BOUNDS)), resampling=resampling, **FAST)

    expected = gdal_warp(tmp_path / "b.tif", resampling)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.crs == UTM and store.levels[0].shape[2:] == (HEIGHT, WIDTH)
        np.testing.assert_array_equal(store.read(0), on_grid)  # on the grid: bit for bit
        assert store.read_mask(0).all()
        mask = store.read_mask(1).astype(bool)
        np.testing.assert_array_equal(mask, (expected != 0).all(axis=0))
        np.testing.assert_array_equal(store.read(1)[:, mask], expected[:, mask])
        assert 0 < mask.sum() < mask.size  # some of the grid is covered and some is not


def test_the_warp_is_recorded_in_provenance_and_said(tmp_path):
    rows = [(geotiff(tmp_path / "a.tif", pixels(1), nodata=0).name, DATES[0]),
            (neighbour_zone_file(tmp_path / "b.tif", pixels(1, height=14, width=12)).name, DATES[1])]
    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", resampling="bilinear", **FAST)
    note = next(n for n in result.notes if "warped" in n)
    assert "EPSG:32631 grid of 18 x 20 px (width x height), pixels of 10 x 10" in note and "bilinear resampling from EPSG:32632" in note
    assert "1 file(s) read exactly" in note and "invalid (mask)" in note
    assert note in str(result)
    root = json.loads((tmp_path / "out" / "zarr.json").read_text())["attributes"]["chronozarr"]
    assert note in root["provenance"]["notes"] and root["provenance"]["sources"] == ["m.csv"]


def test_a_user_provenance_keeps_its_fields_and_gains_the_notes(tmp_path):
    rows = [(geotiff(tmp_path / "a.tif", pixels(1), nodata=0).name, DATES[0]),
            (neighbour_zone_file(tmp_path / "b.tif", pixels(1, height=14, width=12)).name, DATES[1])]
    given = {"sources": ["landsat-c2-l2"], "composite": "none", "gap_fill": "none", "notes": "QA kept"}
    convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", resampling="nearest", provenance=given, **FAST)
    provenance = json.loads((tmp_path / "out" / "zarr.json").read_text())["attributes"]["chronozarr"]["provenance"]
    assert provenance["sources"] == ["landsat-c2-l2"] and provenance["notes"].startswith("QA kept; files put on one")


def test_whole_pixel_shifts_are_read_exactly_with_grid_first(tmp_path):
    values = [pixels(1, seed=i) for i in range(3)]
    shifts = [(0, 0), (3, -2), (-4, 5)]  # (columns east, rows south) of each file's origin
    rows = []
    for i, ((dx, dy), v) in enumerate(zip(shifts, values)):
        moved = from_origin(TRANSFORM.c + 10 * dx, TRANSFORM.f - 10 * dy, 10, 10)
        rows.append((geotiff(tmp_path / f"{i}.tif", v, transform=moved).name, DATES[i]))

    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", grid="first", **FAST)

    assert "3 file(s) read exactly" in result.notes[0] and "warped" not in result.notes[0]
    with chronozarr.open_dataset(tmp_path / "out") as store:
        for t, ((dx, dy), v) in enumerate(zip(shifts, values)):
            expected = np.zeros((HEIGHT, WIDTH), dtype=np.uint16)
            valid = np.zeros((HEIGHT, WIDTH), dtype=bool)
            rows_, cols_ = slice(max(dy, 0), HEIGHT + min(dy, 0)), slice(max(dx, 0), WIDTH + min(dx, 0))
            src_rows, src_cols = slice(max(-dy, 0), HEIGHT - max(dy, 0)), slice(max(-dx, 0), WIDTH - max(dx, 0))
            expected[rows_, cols_] = v[0, src_rows, src_cols]
            valid[rows_, cols_] = True
            np.testing.assert_array_equal(store.read_mask(t).astype(bool), valid)
            np.testing.assert_array_equal(store.read(t)[0][valid], expected[valid])


def _suggested_size(path, dst_crs: str) -> float:
    """GDAL's suggested warp pixel size for the file (what gdalwarp -t_srs picks without -tr)."""
    import rasterio
    from rasterio.warp import calculate_default_transform

    with rasterio.open(path) as src:
        moved, _, _ = calculate_default_transform(src.crs, dst_crs, src.width, src.height, *src.bounds)
    return abs(moved.a)


def test_a_grid_in_a_crs_without_resolution_takes_the_finest_default_warp_size(tmp_path):
    coarse = neighbour_zone_file(tmp_path / "b.tif", pixels(1, height=14, width=12), size=30.0)
    rows = [(geotiff(tmp_path / "a.tif", pixels(1), nodata=0).name, DATES[0]), (coarse.name, DATES[1])]
    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", grid="EPSG:32633", resampling="nearest", **FAST)
    sizes = [_suggested_size(tmp_path / name, "EPSG:32633") for name in ("a.tif", "b.tif")]
    assert sizes[0] < sizes[1]  # the 10 m file is the finer one in zone 33 too
    with chronozarr.open_dataset(tmp_path / "out") as store:
        a, _, _, _, e, _ = store.levels[0].transform
    provenance = json.loads((tmp_path / "out" / "zarr.json").read_text())["attributes"]["chronozarr"]["provenance"]
    assert a == pytest.approx(min(sizes), rel=1e-9) and -e == pytest.approx(a, rel=1e-9)  # square, as GDAL suggests
    note = next(n for n in result.notes if n.startswith("no --resolution"))
    assert f"pixels of {min(sizes):.12g} m in EPSG:32633" in note and "finest of the 2 files'" in note
    assert note in provenance["notes"]


def test_without_bounds_a_crs_grid_covers_every_file_on_whole_multiples_of_the_pixel(tmp_path):
    rows = [(geotiff(tmp_path / "a.tif", pixels(1), nodata=0).name, DATES[0]),
            (neighbour_zone_file(tmp_path / "b.tif", pixels(1, height=14, width=12)).name, DATES[1])]
    convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", grid="EPSG:32632", resolution=30, resampling="nearest", **FAST)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        a, _, west, _, e, north = store.levels[0].transform
        assert store.crs == "EPSG:32632" and (a, e) == (30, -30) and west % 30 == 0 and north % 30 == 0
        height, width = store.levels[0].shape[2:]
        for t, name in enumerate(("a.tif", "b.tif")):
            expected = gdal_warp(tmp_path / name, "nearest", from_origin(west, north, 30, 30), (height, width), "EPSG:32632")
            mask = store.read_mask(t).astype(bool)
            np.testing.assert_array_equal(mask, expected[0] != 0)
            np.testing.assert_array_equal(store.read(t)[0][mask], expected[0][mask])


def test_a_window_read_asks_the_files_for_that_window_only(tmp_path, monkeypatch):
    from chronozarr.inputs import frames

    boxes = []
    real = frames.OpenFiles.read

    def recording(self, uri, indexes, box):
        boxes.append(box)
        return real(self, uri, indexes, box)

    monkeypatch.setattr(frames.OpenFiles, "read", recording)
    rows = [(geotiff(tmp_path / "a.tif", pixels(1), nodata=0).name, DATES[0]),
            (neighbour_zone_file(tmp_path / "b.tif", pixels(1, height=14, width=12)).name, DATES[1])]
    from chronozarr.inputs.open import open_series, raster_options

    with open_series(csv_manifest(tmp_path / "m.csv", rows), rasters=raster_options(resampling="bilinear")) as source:
        source.data[1, :, 4:8, 2:6].values
    assert boxes == [(2, 4, 4, 4)]


LCC = "+proj=lcc +lat_1=25 +lat_2=60 +lat_0=42.5 +lon_0=-100 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs"


def test_files_in_a_crs_without_epsg_code_are_refused_with_the_warp_that_takes_them(tmp_path):
    rows = [(geotiff(tmp_path / "lcc.tif", pixels(1), crs=LCC, transform=from_origin(-10_000, 10_000, 1000, 1000)).name, DATES[0])]
    with pytest.raises(InputError) as caught:
        convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", **FAST)
    message = str(caught.value)
    assert "lcc.tif (unknown) is not an EPSG CRS and no EPSG CRS is equivalent to it" in message
    assert "gdalwarp -t_srs EPSG:32614 -r bilinear IN OUT" in message
    assert "let convert warp the files: --grid EPSG:32614 --resolution 10" in message  # about 1 km in UTM 14N


def test_files_in_a_crs_without_epsg_code_are_warped_onto_an_epsg_grid(tmp_path):
    values = pixels(1, seed=3)
    rows = [(geotiff(tmp_path / "lcc.tif", values, crs=LCC, transform=from_origin(-10_000, 10_000, 1000, 1000), nodata=0).name, DATES[0])]
    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", grid="EPSG:32614", resolution=1000,
                     resampling="bilinear", **FAST)
    assert "warped by GDAL with bilinear resampling from a Lambert Conic Conformal (2SP) CRS without an EPSG code" in result.notes[0]
    with chronozarr.open_dataset(tmp_path / "out") as store:
        a, _, west, _, e, north = store.levels[0].transform
        height, width = store.levels[0].shape[2:]
        expected = gdal_warp(tmp_path / "lcc.tif", "bilinear", from_origin(west, north, 1000, 1000), (height, width), "EPSG:32614")
        mask = store.read_mask(0).astype(bool)
        np.testing.assert_array_equal(mask, expected[0] != 0)
        np.testing.assert_array_equal(store.read(0)[0][mask], expected[0][mask])


def landsat_pair(folder):
    """Two adjacent 30 m scenes in UTM 21N whose origin lies on odd multiples of 15 m, as Landsat's
    grid does: the second 12 columns east and 5 rows south of the first, overlapping it."""
    west, north = 300_015.0, 5_000_085.0  # 15 x 20001, 15 x 333339
    first, second = pixels(1, seed=1), pixels(1, seed=2)
    rows = [
        (geotiff(folder / "a.tif", first, crs="EPSG:32621", transform=from_origin(west, north, 30, 30)).name, DATES[0]),
        (geotiff(folder / "b.tif", second, crs="EPSG:32621", transform=from_origin(west + 360, north - 150, 30, 30)).name, DATES[1]),
    ]
    return csv_manifest(folder / "m.csv", rows), (west, north), first[0], second[0]


def test_grid_union_holds_every_scene_on_their_own_lattice_without_resampling(tmp_path):
    manifest, (west, north), first, second = landsat_pair(tmp_path)
    result = convert(manifest, tmp_path / "out", grid="union", **FAST)
    # The union, worked out by hand: 12 + WIDTH columns, 5 + HEIGHT rows, from the first scene's corner.
    with chronozarr.open_dataset(tmp_path / "out") as store:
        da = store.to_xarray(lod=0, physical=False)
        assert da.sizes["x"] == WIDTH + 12 and da.sizes["y"] == HEIGHT + 5
        assert da["x"].values[0] == west + 15 and da["y"].values[0] == north - 15
        np.testing.assert_array_equal(store.read(0)[0][:HEIGHT, :WIDTH], first)
        np.testing.assert_array_equal(store.read(1)[0][5:, 12:], second)
        assert not store.read_mask(0)[HEIGHT:, :].any() and store.read_mask(1)[5:, 12:].all()
    assert "0 resampled, 0 dropped outside the store's grid" in result.notes[-1]
    assert f"{2 * HEIGHT * WIDTH} stored as read" in result.notes[-1]


def test_a_grid_in_a_crs_snaps_to_the_scenes_shared_origin_and_tap_to_whole_pixels(tmp_path):
    manifest, (west, north), _, second = landsat_pair(tmp_path)
    convert(manifest, tmp_path / "crs", grid="EPSG:32621", resolution=30, **FAST)  # refused as half a pixel off before
    with chronozarr.open_dataset(tmp_path / "crs") as store:
        assert store.to_xarray(lod=0, physical=False)["x"].values[0] == west + 15
        np.testing.assert_array_equal(store.read(1)[0][5:, 12:], second)
    with pytest.raises(InputError, match=r"offset by \(0.5, 0.5\) of a pixel.*--resampling"):
        convert(manifest, tmp_path / "tap", grid="EPSG:32621", resolution=30, tap=True, **FAST)
    convert(manifest, tmp_path / "tap", grid="EPSG:32621", resolution=30, tap=True, resampling="nearest", **FAST)
    with chronozarr.open_dataset(tmp_path / "tap") as store:
        assert store.to_xarray(lod=0, physical=False)["x"].values[0] % 30 == 15  # centres of whole-30 m pixels


def test_grid_first_says_how_many_pixels_of_a_mosaic_it_drops(tmp_path):
    manifest, *_ = landsat_pair(tmp_path)
    result = convert(manifest, tmp_path / "out", grid="first", **FAST)
    outside = HEIGHT * WIDTH - (HEIGHT - 5) * (WIDTH - 12)  # the second scene beyond the first's edges
    assert f"{2 * HEIGHT * WIDTH - outside} stored as read, 0 resampled, {outside} dropped outside the store's grid" in result.notes[-1]
    provenance = json.loads((tmp_path / "out" / "zarr.json").read_text())["attributes"]["chronozarr"]["provenance"]
    assert f"{outside} dropped outside the store's grid" in provenance["notes"]


def test_crs_naming_the_first_file_s_crs_keeps_its_grid_and_warps_the_others_onto_it(tmp_path):
    rows = [(geotiff(tmp_path / "a.tif", pixels(1), nodata=0).name, DATES[0]),
            (neighbour_zone_file(tmp_path / "b.tif", pixels(1, height=14, width=12)).name, DATES[1])]
    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", crs=UTM, resampling="nearest", **FAST)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.crs == UTM and store.to_xarray(lod=0, physical=False).shape[2:] == (HEIGHT, WIDTH)  # a.tif's grid
        np.testing.assert_array_equal(store.read(0)[0], pixels(1)[0])
    assert "1 file(s) warped by GDAL with nearest resampling from EPSG:32632" in result.notes[0]
