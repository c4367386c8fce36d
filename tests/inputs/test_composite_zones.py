"""Scenes of two UTM zones (18N and 19N, either side of 72 W) composited onto one grid in zone 18
with --grid, --bounds, --resolution and --resampling nearest: every pixel of the composite, its
coverage and mask equal an oracle built here, each scene (bands and 20 m SCL) warped onto the
same grid by rasterio.warp.reproject over the whole frame, then a numpy median over the valid
observations."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import rasterio
from composite_scenes import KEPT_SCL
from pyproj import Transformer
from raster_inputs import geotiff
from rasterio.crs import CRS
from rasterio.transform import Affine, from_origin
from rasterio.warp import Resampling, reproject

import chronozarr
from chronozarr.convert import convert

ZONES = ("EPSG:32618", "EPSG:32619")
LON, LAT = -72.0, 4.0  # on the zones' boundary
SIZE = 30  # pixels of 10 m per scene side
DATES = ["2024-05-02T15:00:00Z", "2024-05-07T15:00:00Z", "2024-05-12T15:00:00Z", "2024-05-17T15:00:00Z", "2024-06-01T15:00:00Z"]
BANDS = ("B04", "B08")


def _corner(crs: str, east: float = 0.0, north: float = 0.0) -> tuple[float, float]:
    """The north-west corner of a scene in `crs`, near the boundary, moved by metres east/north."""
    x, y = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(LON, LAT)
    return round(x / 10) * 10 - 150 + east, round(y / 10) * 10 + 150 + north


def _scenes(folder: Path, rng: np.random.Generator) -> tuple[Path, list[dict]]:
    features, scenes = [], []
    for i, when in enumerate(DATES):
        crs = ZONES[i % 2]
        west, north = _corner(crs, east=10 * int(rng.integers(-4, 5)), north=10 * int(rng.integers(-4, 5)))
        transform = from_origin(west, north, 10, 10)
        bands = rng.integers(1, 5000, size=(len(BANDS), SIZE, SIZE)).astype(np.uint16)
        bands[rng.integers(0, 2), rng.random((SIZE, SIZE)) < 0.05] = 0  # nodata in one band
        scl = np.where(rng.random((SIZE // 2, SIZE // 2)) < 0.4, rng.choice([0, 3, 8, 9], (SIZE // 2, SIZE // 2)),
                       rng.choice(list(KEPT_SCL), (SIZE // 2, SIZE // 2))).astype(np.uint8)
        assets = {}
        for k, key in enumerate(BANDS):
            geotiff(folder / f"S{i}_{key}.tif", bands[k : k + 1], driver="COG", crs=crs, transform=transform, nodata=0)
            assets[key] = {"href": f"S{i}_{key}.tif", "type": "image/tiff; application=geotiff", "roles": ["data"]}
        geotiff(folder / f"S{i}_scl.tif", scl[None], driver="COG", crs=crs, transform=from_origin(west, north, 20, 20))
        assets["scl"] = {"href": f"S{i}_scl.tif", "type": "image/tiff; application=geotiff", "roles": ["data"]}
        features.append({"type": "Feature", "stac_version": "1.0.0", "id": f"S{i}", "collection": "sentinel-2-l2a", "links": [],
                         "geometry": {"type": "Point", "coordinates": [LON, LAT]}, "bbox": [LON, LAT, LON, LAT], "assets": assets,
                         "properties": {"datetime": when, "platform": "sentinel-2b", "proj:epsg": int(crs[5:])}})
        scenes.append({"when": when, "files": [folder / f"S{i}_{k}.tif" for k in (*BANDS, "scl")]})
    path = folder / "items.json"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path, scenes


def _warped(path: Path, transform: Affine, shape: tuple[int, int], nodata: int | None) -> np.ndarray:
    out = np.zeros(shape, dtype=np.uint16)
    with rasterio.open(path) as src:
        reproject(rasterio.band(src, 1), out, dst_transform=transform, dst_crs=CRS.from_user_input(ZONES[0]),
                  resampling=Resampling.nearest, src_nodata=nodata, dst_nodata=nodata)
    return out


def _oracle(scenes: list[dict], transform: Affine, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data (t, band, y, x), mask, coverage) of the monthly medians of the scenes warped here."""
    months: dict[str, list[dict]] = {}
    for scene in scenes:
        months.setdefault(scene["when"][:7], []).append(scene)
    data, masks, covers = [], [], []
    for group in months.values():
        values = np.stack([np.stack([_warped(f, transform, shape, 0) for f in s["files"][:2]]) for s in group]).astype(np.float64)
        scl = np.stack([_warped(s["files"][2], transform, shape, None) for s in group])
        valid = np.isin(scl, KEPT_SCL) & (values != 0).all(axis=1)
        count = valid.sum(axis=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN pixels: no valid observation
            median = np.nanmedian(np.where(valid[:, None], values, np.nan), axis=0)
        data.append(np.where(count > 0, np.rint(np.nan_to_num(median)), 0).astype(np.uint16))
        masks.append((count > 0).astype(np.uint8))
        covers.append(count.astype(np.uint8))
    return np.stack(data), np.stack(masks), np.stack(covers)


def test_scenes_of_two_utm_zones_are_warped_onto_one_grid_as_gdal_warps_them(tmp_path: Path) -> None:
    items, scenes = _scenes(tmp_path, np.random.default_rng(61))
    west, north = _corner(ZONES[0], east=-40, north=40)
    bounds = (west, north - 10 * (SIZE + 8), west + 10 * (SIZE + 8), north)
    result = convert(items, tmp_path / "out", assets=list(BANDS), valid=["scl:4,5,6,7,11"], composite="month", reducer="median",
                     grid=ZONES[0], bounds=",".join(map(str, bounds)), resolution=10, resampling="nearest",
                     chunk_size=16, block_size=2, progress=False, encoding="none")
    shape = (SIZE + 8, SIZE + 8)
    want = _oracle(scenes, from_origin(west, north, 10, 10), shape)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.crs == ZONES[0] and (store.level(0).height, store.level(0).width) == shape
        got = tuple(np.stack([read(t) for t in range(len(store.times))]) for read in (store.read, store.read_mask, store.read_coverage))
    assert (want[2] > 1).any() and (want[2] == 0).any()  # pixels seen by several scenes, and unseen ones
    assert (_warped(scenes[1]["files"][0], from_origin(west, north, 10, 10), shape, 0) != 0).mean() > 0.5  # zone 19 covers most
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert "EPSG:32619" in str(result)
