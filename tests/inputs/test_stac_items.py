"""STAC item collections (what a STAC API search saves) as series: one timestep per item or per
day, assets as bands with their raster:bands and eo:bands, read from local COGs and over HTTP,
mosaicked first valid pixel first and warped across UTM zones onto one grid."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from raster_inputs import HEIGHT, TRANSFORM, UTM, WIDTH, geotiff, pixels
from rasterio.transform import from_origin
from served_files import http_site  # noqa: F401  (a fixture)
from test_warp import BOUNDS, gdal_warp, neighbour_zone_file
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app
from chronozarr.errors import InputError
from chronozarr.convert import convert

FAST = {"chunk_size": 16, "progress": False, "encoding": "none"}
RASTER_EXT = "https://stac-extensions.github.io/raster/v1.1.0/schema.json"
EO_EXT = "https://stac-extensions.github.io/eo/v1.1.0/schema.json"
COMMON = {"B02": "blue", "B04": "red", "B08": "nir"}


def asset(href: str, key: str, scale: float = 1e-4, offset: float = -0.1, nodata: int | None = 0) -> dict:
    band = {"data_type": "uint16", "scale": scale, "offset": offset, "spatial_resolution": 10}
    if nodata is not None:
        band["nodata"] = nodata
    return {
        "href": href, "type": "image/tiff; application=geotiff; profile=cloud-optimized", "roles": ["data"],
        "raster:bands": [band], "eo:bands": [{"name": key, "common_name": COMMON[key]}],
    }


def item(name: str, when: str, assets: dict[str, dict], epsg: int = 32631) -> dict:
    return {
        "type": "Feature", "stac_version": "1.0.0", "stac_extensions": [RASTER_EXT, EO_EXT], "id": name,
        "geometry": {"type": "Polygon", "coordinates": [[[3, 45], [3.1, 45], [3.1, 45.1], [3, 45.1], [3, 45]]]},
        "bbox": [3, 45, 3.1, 45.1], "properties": {"datetime": when, "proj:epsg": epsg}, "links": [], "assets": assets,
    }


def collection(path: Path, items: list[dict]) -> Path:
    path.write_text(json.dumps({"type": "FeatureCollection", "features": items}))
    return path


def scene_files(folder: Path, name: str, seed: int, keys=("B04", "B08"), **declared) -> dict[str, np.ndarray]:
    """One single-band COG per asset key, as STAC archives store them."""
    out = {}
    for k, key in enumerate(keys):
        values = pixels(1, seed=seed * 10 + k)
        geotiff(folder / f"{name}_{key}.tif", values, driver="COG", nodata=0, **declared)
        out[key] = values[0]
    return out


def test_items_become_timesteps_and_assets_bands_with_their_raster_and_eo_bands(tmp_path):
    dates = ["2024-05-03T10:20:31Z", "2024-05-01T10:30:21Z", "2024-05-08T10:20:29Z"]
    values = {f"S2_{i}": scene_files(tmp_path, f"S2_{i}", i) for i in range(3)}
    features = [item(n, d, {k: asset(f"{n}_{k}.tif", k) for k in ("B04", "B08", "B02")}) for n, d in zip(values, dates)]

    convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B04", "B08"], **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        order = [1, 0, 2]  # by datetime
        np.testing.assert_array_equal(store.times, np.array([dates[i][:-1] for i in order], dtype="datetime64[ms]"))
        for t, i in enumerate(order):
            np.testing.assert_array_equal(store.read(t), np.stack([values[f"S2_{i}"]["B04"], values[f"S2_{i}"]["B08"]]))
        assert [b.to_dict() for b in store.bands] == [
            {"name": "B04", "common_name": "red", "scale": 1e-4, "offset": -0.1, "units": "reflectance"},
            {"name": "B08", "common_name": "nir", "scale": 1e-4, "offset": -0.1, "units": "reflectance"},
        ]
        assert store.nodata == 0 and store.crs == UTM and not store.has_mask


def test_group_by_day_mosaics_the_items_of_one_day_first_valid_pixel_first(tmp_path):
    first = scene_files(tmp_path, "a", 1)
    second = scene_files(tmp_path, "b", 2)
    third = scene_files(tmp_path, "c", 3)
    first_gap = np.zeros((HEIGHT, WIDTH), dtype=bool)
    first_gap[:, :7] = True  # the first item of the day has no data west of column 7
    for key in first:
        first[key][first_gap] = 0
        geotiff(tmp_path / f"a_{key}.tif", first[key][None], driver="COG", nodata=0)
    features = [
        item("a", "2024-06-01T10:00:00Z", {k: asset(f"a_{k}.tif", k) for k in first}),
        item("b", "2024-06-01T10:00:05Z", {k: asset(f"b_{k}.tif", k) for k in second}),
        item("c", "2024-06-04T10:00:00Z", {k: asset(f"c_{k}.tif", k) for k in third}),
    ]
    result = convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B04", "B08"], group_by="day", **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.times, np.array(["2024-06-01", "2024-06-04"], dtype="datetime64[ms]"))
        expected = np.stack([np.where(first_gap, second[k], first[k]) for k in ("B04", "B08")])
        np.testing.assert_array_equal(store.read(0), expected)
        np.testing.assert_array_equal(store.read(1), np.stack([third["B04"], third["B08"]]))
        assert store.read_mask(0).all()
    provenance = json.loads((tmp_path / "out" / "zarr.json").read_text())["attributes"]["chronozarr"].get("provenance")
    # nothing was matched, warped, dropped or skipped: the summary says so, provenance has nothing to keep
    assert len(result.notes) == 1 and result.notes[0].endswith(" stored as read, 0 resampled, 0 dropped outside the store's grid")
    assert provenance is None


def test_items_in_two_utm_zones_are_warped_onto_one_grid(tmp_path):
    west = {"B04": pixels(1, seed=5)[0]}
    west["B04"][:, 12:] = 0  # the west tile stops at column 12; the east one fills the rest
    geotiff(tmp_path / "w_B04.tif", west["B04"][None], driver="COG", nodata=0)
    neighbour_zone_file(tmp_path / "e_B04.tif", pixels(1, seed=6, height=20, width=14))
    features = [
        item("west", "2024-07-01T10:00:00Z", {"B04": asset("w_B04.tif", "B04")}),
        item("east", "2024-07-01T10:00:03Z", {"B04": asset("e_B04.tif", "B04")}, epsg=32632),
    ]
    result = convert(
        collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B04"], group_by="day",
        grid="EPSG:32631", resolution=10, bounds=",".join(map(str, BOUNDS)), resampling="nearest", **FAST,
    )

    east = gdal_warp(tmp_path / "e_B04.tif", "nearest")[0]
    expected = np.where(west["B04"] != 0, west["B04"], east)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        valid = store.read_mask(0).astype(bool)
        np.testing.assert_array_equal(valid, expected != 0)
        np.testing.assert_array_equal(store.read(0)[0][valid], expected[valid])
        assert (west["B04"] == 0).any() and ((west["B04"] == 0) & (east != 0)).any()  # the east tile filled a gap
    assert "warped by GDAL with nearest resampling from EPSG:32632" in result.notes[0]


def test_an_item_collection_and_its_cogs_over_http(tmp_path, http_site):
    site, url = http_site
    values = {n: scene_files(site, n, i, keys=("B02",)) for i, n in enumerate(("x", "y"))}
    features = [
        item("x", "2024-08-01T10:00:00Z", {"B02": asset(f"{url}/x_B02.tif", "B02")}),
        item("y", "2024-08-11T10:00:00Z", {"B02": asset("y_B02.tif", "B02")}),  # relative to the collection's URL
    ]
    collection(site / "items.json", features)

    convert(f"{url}/items.json", tmp_path / "out", assets=["B02"], **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.read(0)[0], values["x"]["B02"])
        np.testing.assert_array_equal(store.read(1)[0], values["y"]["B02"])
        assert store.bands[0].common_name == "blue"


def test_a_missing_asset_key_names_the_item_and_its_assets(tmp_path):
    scene_files(tmp_path, "a", 1)
    features = [item("S2B_T31TFJ", "2024-06-01T10:00:00Z", {k: asset(f"a_{k}.tif", k) for k in ("B04", "B08")})]
    with pytest.raises(InputError, match=r"item S2B_T31TFJ has no asset 'B02' \(its assets are B04, B08\); drop it from --assets"):
        convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B02"], **FAST)


def test_items_of_one_datetime_are_refused_with_group_by_as_the_fix(tmp_path):
    scene_files(tmp_path, "a", 1)
    scene_files(tmp_path, "b", 2)
    features = [item(n, "2024-06-01T10:00:00Z", {k: asset(f"{n}_{k}.tif", k) for k in ("B04", "B08")}) for n in "ab"]
    with pytest.raises(InputError, match=r"item a and item b have the same date 2024-06-01T10:00:00.*--group-by day"):
        convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B04"], **FAST)


def test_the_command_asks_for_assets_naming_them(tmp_path):
    scene_files(tmp_path, "a", 1)
    items = collection(tmp_path / "items.json", [item("a", "2024-06-01T10:00:00Z", {k: asset(f"a_{k}.tif", k) for k in ("B04", "B08")})])
    result = CliRunner().invoke(app, ["convert", str(items), str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code == 2 and "choose the assets that become bands with --assets (e.g. --assets B04,B08)" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def test_items_at_other_resolutions_need_the_warp(tmp_path):
    scene_files(tmp_path, "a", 1, keys=("B04",))
    geotiff(tmp_path / "a_B08.tif", pixels(1, height=10, width=9), driver="COG", nodata=0,
            transform=from_origin(TRANSFORM.c, TRANSFORM.f, 20, 20))
    features = [item("a", "2024-06-01T10:00:00Z", {k: asset(f"a_{k}.tif", k) for k in ("B04", "B08")})]
    with pytest.raises(InputError, match=r"a_B08.tif is not on the grid of the store \(its pixel size is 20 20, not 10 10\).*--resampling"):
        convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B04", "B08"], **FAST)


@pytest.fixture
def s3_bucket(monkeypatch):
    """A moto S3 server in its own process on 127.0.0.1 (GDAL holds the GIL while it reads, so a
    server thread here could not answer), with GDAL pointed at it as a user would point it."""
    import socket
    import subprocess
    import sys
    import time

    import boto3

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([Path(sys.executable).parent / "moto_server", "-H", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        credentials = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}
        client = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", **credentials)
        for _ in range(100):
            try:
                client.create_bucket(Bucket="scenes")
                break
            except Exception:  # the server is still starting
                time.sleep(0.1)
        for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                            "AWS_S3_ENDPOINT": f"127.0.0.1:{port}", "AWS_HTTPS": "NO", "AWS_VIRTUAL_HOSTING": "FALSE"}.items():
            monkeypatch.setenv(name, value)
        yield client
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_s3_hrefs_are_read_through_gdal_vsis3(tmp_path, s3_bucket):
    values = scene_files(tmp_path, "s", 7, keys=("B08",))
    s3_bucket.upload_file(str(tmp_path / "s_B08.tif"), "scenes", "tiles/s_B08.tif")
    features = [item("s", "2024-09-01T10:00:00Z", {"B08": asset("s3://scenes/tiles/s_B08.tif", "B08")})]

    convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B08"], **FAST)

    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.read(0)[0], values["B08"])


def test_raster_bands_nodata_replaces_what_the_files_declare(tmp_path):
    values = pixels(1, seed=4)
    values[0, :3] = 7
    geotiff(tmp_path / "a_B04.tif", values, driver="COG")  # the file declares no nodata
    features = [item("a", "2024-06-01T10:00:00Z", {"B04": asset("a_B04.tif", "B04", scale=2.0, offset=0.0, nodata=7)})]
    convert(collection(tmp_path / "items.json", features), tmp_path / "out", assets=["B04"], **FAST)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.nodata == 7 and store.bands[0].scale == 2.0
        np.testing.assert_array_equal(store.read(0), values)


def test_skip_unreadable_drops_an_item_from_its_day_and_keeps_the_others(tmp_path):
    kept = scene_files(tmp_path, "b", 2, keys=("B04",))
    scene_files(tmp_path, "a", 1, keys=("B04",))
    broken = tmp_path / "a_B04.tif"
    broken.write_bytes(broken.read_bytes()[:600])
    features = [item(n, f"2024-06-01T10:00:0{i}Z", {"B04": asset(f"{n}_B04.tif", "B04")}) for i, n in enumerate("ab")]
    items = collection(tmp_path / "items.json", features)
    with pytest.raises(InputError, match=r"cannot open source .*a_B04.tif.*--skip-unreadable"):
        convert(items, tmp_path / "out", assets=["B04"], group_by="day", **FAST)
    result = convert(items, tmp_path / "out", assets=["B04"], group_by="day", skip_unreadable=True, **FAST)
    assert result.notes[0] == f"skipped 1 unreadable file(s) (--skip-unreadable): {broken}"
    with chronozarr.open_dataset(tmp_path / "out") as store:
        np.testing.assert_array_equal(store.read(0)[0], kept["B04"])


def test_two_adjacent_scenes_of_one_day_mosaic_whole_with_grid_union(tmp_path):
    """The mosaic the issue found cropped: two scenes of one day on one 10 m lattice, the second 6
    columns east and 4 rows south. The refusal's advice keeps both; --grid first says what it drops."""
    west, north = TRANSFORM.c, TRANSFORM.f
    east = scene_files(tmp_path, "e", 2, keys=("B04",), transform=from_origin(west + 60, north - 40, 10, 10))
    first = scene_files(tmp_path, "w", 1, keys=("B04",))
    features = [item(n, f"2024-06-01T10:00:0{i}Z", {"B04": asset(f"{n}_B04.tif", "B04")}) for i, n in enumerate("we")]
    items = collection(tmp_path / "items.json", features)
    with pytest.raises(InputError, match=r"--grid union puts every file on one grid covering them all.*dropping 168 of"):
        convert(items, tmp_path / "refused", assets=["B04"], group_by="day", **FAST)  # 20 x 18 - 16 x 12 of e.tif
    result = convert(items, tmp_path / "out", assets=["B04"], group_by="day", grid="union", **FAST)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        mosaic = store.read(0)[0]
        assert mosaic.shape == (HEIGHT + 4, WIDTH + 6)
        np.testing.assert_array_equal(mosaic[:HEIGHT, :WIDTH], first["B04"])  # the first listed wins where both are
        np.testing.assert_array_equal(mosaic[HEIGHT:, 6:], east["B04"][HEIGHT - 4:])
        np.testing.assert_array_equal(mosaic[4:HEIGHT, WIDTH:], east["B04"][:HEIGHT - 4, WIDTH - 6:])
        assert not store.read_mask(0)[HEIGHT:, :6].any()  # no scene there
    assert f"{2 * HEIGHT * WIDTH} stored as read, 0 resampled, 0 dropped" in result.notes[-1]
