"""convert(): raster files written with rasterio come back from the store bit for bit, with the
times, grid, nodata, bands and mask the files declare."""

from __future__ import annotations

import json

import numpy as np
import pytest
import rasterio
import zarr
from raster_inputs import (
    DATES,
    HEIGHT,
    TRANSFORM,
    UTM,
    WIDTH,
    csv_manifest,
    geotiff,
    json_manifest,
    pixels,
    png,
    transform_of,
)
from rasterio.transform import from_bounds
from served_files import http_site  # noqa: F401  (a fixture)
from source_inputs import cube, write

import chronozarr
from chronozarr.errors import InputError
from chronozarr.convert import convert

FAST = {"chunk_size": 16, "progress": False}
BOUNDS = (498_450.0, 9_151_960.0, 498_630.0, 9_152_160.0)  # 18 x 20 pixels of 10 m


def frames_of(store: chronozarr.ChronoDataset) -> np.ndarray:
    return np.stack([store.read(t) for t in range(len(store.times))])


def masks_of(store: chronozarr.ChronoDataset) -> np.ndarray:
    return np.stack([store.read_mask(t) for t in range(len(store.times))])


def assert_grid(store: chronozarr.ChronoDataset, transform: tuple[float, ...], crs: str = UTM) -> None:
    assert store.crs == crs
    np.testing.assert_allclose(store.levels[0].transform, transform, rtol=0, atol=1e-6)
    assert store.levels[0].shape[2:] == (HEIGHT, WIDTH)


def test_geotiffs_keep_values_nodata_scales_offsets_and_descriptions(tmp_path):
    arrays = [pixels(2, seed=i) for i in range(3)]
    arrays[1][0, :4, :5] = 0
    declared = dict(nodata=0, scales=(0.5, 1e-4), offsets=(-1.0, 0.0), descriptions=("B04", "swir"), units=("m", ""))
    paths = [geotiff(tmp_path / f"{d}.tif", a, **declared) for d, a in zip(DATES, arrays)]
    rows = [(p.name, d) for p, d in zip(paths, DATES)]
    manifest = csv_manifest(tmp_path / "m.csv", [rows[2], rows[0], rows[1]])  # out of order: sorted by date

    convert(manifest, tmp_path / "out", encoding="none", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))
        assert store.dtype == np.uint16
        np.testing.assert_array_equal(store.times, np.array(DATES, dtype="datetime64[ms]"))
        assert_grid(store, transform_of(paths[0]))
        assert store.nodata == 0
        assert [b.to_dict() for b in store.bands] == [
            {"name": "B04", "common_name": "red", "scale": 0.5, "offset": -1.0, "units": "m"},
            {"name": "swir", "scale": 1e-4, "offset": 0.0},
        ]
        assert not store.has_mask


def test_cogs_from_a_json_manifest_with_float_nodata_and_star_delta_free_encoding(tmp_path):
    arrays = [pixels(1, "float32", seed=i) for i in range(2)]
    arrays[0][0, 3, 3] = -9999
    paths = [geotiff(tmp_path / f"c{i}.tif", a, driver="COG", nodata=-9999) for i, a in enumerate(arrays)]
    items = [{"uri": str(p), "datetime": d} for p, d in zip(paths, ["2024-05-01T10:00:00Z", "2024-05-06T10:00:00Z"])]

    convert(json_manifest(tmp_path / "m.json", items), tmp_path / "out", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))
        assert store.nodata == -9999 and store.dtype == np.float32
        assert store.band_names == ["1"]
        np.testing.assert_array_equal(store.times, np.array(["2024-05-01T10:00", "2024-05-06T10:00"], dtype="datetime64[ms]"))
        assert_grid(store, transform_of(paths[0]))


def rgba_frames(tmp_path, **georef):
    """Three RGBA frames whose alpha is 0 on a different patch each date."""
    arrays = []
    for i, date in enumerate(DATES):
        values = pixels(4, "uint8", seed=10 + i)
        values[3] = 255
        values[3, i : i + 5, 2:9] = 0
        values[3, 0, 0] = 128  # partly transparent is valid
        arrays.append(values)
        png(tmp_path / f"{date}.png", values, **georef)
    return arrays


def test_rgba_pngs_with_world_files_become_red_green_blue_and_a_mask(tmp_path):
    arrays = rgba_frames(tmp_path, world_file=True)
    manifest = csv_manifest(tmp_path / "m.csv", [(f"{d}.png", d) for d in DATES])

    convert(manifest, tmp_path / "out", crs=UTM, **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack([a[:3] for a in arrays]))
        np.testing.assert_array_equal(masks_of(store), np.stack([(a[3] != 0).astype(np.uint8) for a in arrays]))
        assert [b.to_dict() for b in store.bands] == [
            {"name": n, "common_name": n, "scale": 1.0, "offset": 0.0} for n in ("red", "green", "blue")
        ]
        assert store.nodata is None
        assert_grid(store, transform_of(tmp_path / f"{DATES[0]}.png"))
        np.testing.assert_allclose(store.levels[0].transform, tuple(TRANSFORM)[:6])


def test_rgb_pngs_with_aux_xml_need_no_crs_and_manifest_names_replace_the_colours(tmp_path):
    arrays = [pixels(3, "uint8", seed=i) for i in range(2)]
    for date, values in zip(DATES, arrays):
        png(tmp_path / f"{date}.png", values, crs=UTM, transform=TRANSFORM)
    assert (tmp_path / f"{DATES[0]}.png.aux.xml").exists()
    rows = [(f"{d}.png", d, '"B04,B03,B02"') for d in DATES[:2]]

    convert(csv_manifest(tmp_path / "m.csv", rows, header="uri,datetime,bands"), tmp_path / "out", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))
        assert store.band_names == ["B04", "B03", "B02"]
        assert [b.scale for b in store.bands] == [1.0, 1.0, 1.0]  # uint8: no Sentinel-2 reflectance scale
        assert_grid(store, transform_of(tmp_path / f"{DATES[0]}.png"))
        assert not store.has_mask


@pytest.mark.parametrize("where", ["option", "manifest"])
def test_pngs_without_sidecars_are_placed_by_bounds(tmp_path, where):
    arrays = [pixels(1, "uint8", seed=i) for i in range(2)]
    items = [{"uri": str(png(tmp_path / f"{i}.png", a)), "datetime": d} for i, (a, d) in enumerate(zip(arrays, DATES))]
    manifest = json_manifest(tmp_path / "m.json", items if where == "option" else {"items": items, "bounds": BOUNDS})

    convert(manifest, tmp_path / "out", crs="EPSG:32718", bounds=BOUNDS if where == "option" else None, **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))
        assert_grid(store, tuple(from_bounds(*BOUNDS, WIDTH, HEIGHT))[:6], crs="EPSG:32718")
        assert store.band_names == ["1"] and store.nodata is None


def test_bounds_are_given_once(tmp_path):
    items = [{"uri": str(png(tmp_path / "0.png", pixels(1, "uint8"))), "datetime": DATES[0]}]
    manifest = json_manifest(tmp_path / "m.json", {"items": items, "bounds": BOUNDS})
    with pytest.raises(InputError, match="the extent is given twice"):
        convert(manifest, tmp_path / "out", crs="EPSG:32718", bounds=BOUNDS, **FAST)


def test_a_geotiff_colour_table_keeps_its_indices(tmp_path):
    arrays = [pixels(1, "uint8", seed=i) for i in range(2)]
    colours = {i: (i, 255 - i, 0, 255) for i in range(256)}
    rows = [(geotiff(tmp_path / f"{i}.tif", a, colormap=colours).name, d) for i, (a, d) in enumerate(zip(arrays, DATES))]

    convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))


def test_cast_converts_float64_files(tmp_path):
    arrays = [pixels(1, "float64", seed=i) for i in range(2)]
    rows = [(geotiff(tmp_path / f"{i}.tif", a).name, d) for i, (a, d) in enumerate(zip(arrays, DATES))]

    with pytest.raises(InputError, match="--cast float32 would change .* of 720 values.*add --lossy"):
        convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", cast="float32", **FAST)
    assert not (tmp_path / "out").exists()
    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", cast="float32", lossy=True, **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays).astype(np.float32))
    source = np.stack(arrays)
    changed = source != source.astype(np.float32).astype(np.float64)  # independent of the counting
    largest = np.abs(source.astype(np.float32).astype(np.float64) - source).max()
    said = f"--cast float32 --lossy changed {int(changed.sum())} of {source.size} values"
    assert any(n.startswith(said) and f"the largest change {largest:.6g}" in n for n in result.notes)
    provenance = json.loads((tmp_path / "out" / "zarr.json").read_text())["attributes"]["chronozarr"]["provenance"]
    assert said in provenance["notes"]


def test_a_cast_that_changes_nothing_needs_no_lossy_and_says_so(tmp_path):
    arrays = [pixels(1, "float64", seed=i).round() for i in range(2)]
    rows = [(geotiff(tmp_path / f"{i}.tif", a).name, d) for i, (a, d) in enumerate(zip(arrays, DATES))]
    result = convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", cast="float32", **FAST)
    assert "--cast float32 changed 0 of 720 values (0 %), the largest change 0" in result.notes
    with pytest.raises(InputError, match="--lossy accepts the values a --cast changes, and no --cast was given"):
        convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "alone", lossy=True, **FAST)


def test_dry_run_describes_the_store_and_writes_nothing(tmp_path):
    rows = [(geotiff(tmp_path / f"{i}.tif", pixels(2, seed=i), nodata=0).name, d) for i, d in enumerate(DATES)]
    out = tmp_path / "out"

    preview = convert(csv_manifest(tmp_path / "m.csv", rows), out, dry_run=True, **FAST)

    assert not out.exists()
    assert preview.times == tuple(f"{d}T00:00:00Z" for d in DATES)
    assert preview.shape == (3, 2, HEIGHT, WIDTH) and preview.dtype == "uint16" and preview.nodata == 0
    assert preview.levels == ((HEIGHT, WIDTH), (HEIGHT // 2, WIDTH // 2))
    assert preview.raw_bytes == 3 * 2 * 2 * (HEIGHT * WIDTH + (HEIGHT // 2) * (WIDTH // 2))
    assert "monthly" in str(preview) and "nothing written" in str(preview)


def test_a_netcdf_source_is_written_as_encode_writes_it(tmp_path):
    source = write(cube(), tmp_path / "in.nc")
    convert(source, tmp_path / "converted", encoding="none", **FAST)
    chronozarr.encode(cube()["reflectance"], tmp_path / "encoded", crs="EPSG:32631", encoding="none", **FAST)
    converted, encoded = (zarr.open_group(tmp_path / n, mode="r") for n in ("converted", "encoded"))
    np.testing.assert_array_equal(converted["0/data"][:], encoded["0/data"][:])
    assert converted.attrs["chronozarr"]["times"] == encoded.attrs["chronozarr"]["times"]


def test_the_files_are_read_through_the_lazy_backend_array(tmp_path):
    arrays = [pixels(2, seed=i) for i in range(2)]
    rows = [(geotiff(tmp_path / f"{i}.tif", a).name, d) for i, (a, d) in enumerate(zip(arrays, DATES))]

    convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))


def test_jpeg_frames_keep_the_values_gdal_decodes(tmp_path):
    paths = []
    for i, date in enumerate(DATES[:2]):
        with rasterio.open(
            tmp_path / f"{date}.jpg", "w", driver="JPEG", width=WIDTH, height=HEIGHT, count=3, dtype="uint8",
            crs=UTM, transform=TRANSFORM,
        ) as ds:
            ds.write(pixels(3, "uint8", seed=i))
        paths.append(tmp_path / f"{date}.jpg")
    decoded = []
    for path in paths:  # JPEG is lossy: the reference is what GDAL reads back
        with rasterio.open(path) as ds:
            decoded.append(ds.read())

    convert(csv_manifest(tmp_path / "m.csv", [(p.name, d) for p, d in zip(paths, DATES)]), tmp_path / "out", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(decoded))
        assert store.band_names == ["red", "green", "blue"]
        assert_grid(store, transform_of(paths[0]))


def test_http_uris_are_read_through_gdal_with_their_sidecars(tmp_path, http_site):
    site, url = http_site
    arrays = [pixels(3, "uint8", seed=i) for i in range(2)]
    for i, values in enumerate(arrays):
        png(site / f"{i}.png", values, crs=UTM, transform=TRANSFORM)  # georeferenced by .png.aux.xml
    rows = [(f"{url}/{i}.png", date) for i, date in enumerate(DATES[:2])]

    convert(csv_manifest(tmp_path / "m.csv", rows), tmp_path / "out", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(frames_of(store), np.stack(arrays))
        assert_grid(store, transform_of(site / "0.png"))
