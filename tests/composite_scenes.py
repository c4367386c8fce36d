"""Synthetic scenes for the composite tests: single-band COGs per asset (bands at 10 m, an SCL or
QA_PIXEL mask at 20 m), a STAC FeatureCollection pointing at them, and the expected composite
computed here with numpy from the same arrays (nanmedian / nanmean on a float copy, then rint)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from raster_inputs import HEIGHT, TRANSFORM, UTM, WIDTH, geotiff
from rasterio.transform import from_origin

KEPT_SCL = (4, 5, 6, 7, 11)
SCL_CLASSES = np.array([0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11])
MASK_TRANSFORM = from_origin(TRANSFORM.c, TRANSFORM.f, 20, 20)  # 20 m beside 10 m bands, same corner
BANDS = ("B04", "B08")


@dataclass
class Scene:
    name: str
    when: str
    bands: np.ndarray  # (band, y, x) as stored in the files
    mask: np.ndarray  # (y/2, x/2) at 20 m
    properties: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # more 20 m mask assets by key (a QA_PIXEL beside the SCL)


def make_scenes(dates: list[str], seed: int = 0, cloudy: float = 0.5, high: int = 250, qa: bool = False) -> list[Scene]:
    rng = np.random.default_rng(seed)
    scenes = []
    for i, when in enumerate(dates):
        bands = rng.integers(1, high, size=(len(BANDS), HEIGHT, WIDTH)).astype(np.uint16)
        bands[rng.integers(0, len(BANDS)), rng.random((HEIGHT, WIDTH)) < 0.05] = 0  # nodata in one band
        bands[:, :2, :3] = 0  # no scene covers the top-left corner
        shape = (HEIGHT // 2, WIDTH // 2)
        if qa:
            mask = np.where(rng.random(shape) < cloudy, 1 << int(rng.integers(1, 5)), 1 << 6).astype(np.uint16)
        else:
            mask = np.where(rng.random(shape) < cloudy, rng.choice([0, 3, 8, 9, 10], shape), rng.choice(list(KEPT_SCL), shape)).astype(np.uint8)
        scenes.append(Scene(f"S{i:02d}", when, bands, mask))
    return scenes


def write_items(folder: Path, scenes: list[Scene], mask_key: str = "scl", collection: str = "sentinel-2-l2a",
                platform: str = "sentinel-2a", name: str = "items.json", files: bool = True) -> Path:
    """The scenes' COGs (unless `files` is False: written already) and a FeatureCollection `name` of
    items with their assets."""
    features = []
    for scene in scenes:
        assets = {}
        for k, key in enumerate(BANDS):
            if files:
                geotiff(folder / f"{scene.name}_{key}.tif", scene.bands[k : k + 1], driver="COG", nodata=0)
            assets[key] = {"href": f"{scene.name}_{key}.tif", "type": "image/tiff; application=geotiff", "roles": ["data"]}
        for key, mask in {mask_key: scene.mask, **scene.extra}.items():
            if files:
                geotiff(folder / f"{scene.name}_{key}.tif", mask[None], driver="COG", transform=MASK_TRANSFORM)
            assets[key] = {"href": f"{scene.name}_{key}.tif", "type": "image/tiff; application=geotiff", "roles": ["data"]}
        features.append({
            "type": "Feature", "stac_version": "1.0.0", "id": scene.name, "collection": collection,
            "geometry": {"type": "Polygon", "coordinates": [[[3, 45], [3.1, 45], [3.1, 45.1], [3, 45.1], [3, 45]]]},
            "bbox": [3, 45, 3.1, 45.1], "links": [], "assets": assets,
            "properties": {"datetime": scene.when, "platform": platform, "proj:epsg": 32631, **scene.properties},
        })
    path = folder / name
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return path


def on_10m(mask: np.ndarray) -> np.ndarray:
    """A 20 m mask with each pixel repeated onto the 2 x 2 pixels of 10 m inside it."""
    return np.repeat(np.repeat(mask, 2, axis=0), 2, axis=1)[:HEIGHT, :WIDTH]


def valid_of(scene: Scene, qa_bits: tuple[int, ...] | None = None) -> np.ndarray:
    """Valid where the 20 m mask (SCL classes kept, or none of the QA bits set) allows it and no
    band is nodata."""
    up = on_10m(scene.mask)
    allowed = np.isin(up, KEPT_SCL) if qa_bits is None else (up.astype(int) & sum(1 << b for b in qa_bits)) == 0
    return allowed & (scene.bands != 0).all(axis=0)


def expected_composite(groups: list[list[Scene]], reducer: str, carry: bool = False, qa_bits=None, shifts=None, judge=None):
    """(data (t, band, y, x), mask (t, y, x), coverage (t, y, x)) of the periods `groups`; `judge`
    (scene -> valid (y, x)) replaces valid_of."""
    data, masks, covers = [], [], []
    previous, previous_has = None, None
    judge = judge or (lambda s: valid_of(s, qa_bits))
    for group in groups:
        values = np.stack([s.bands.astype(np.int64) + (shifts or {}).get(s.name, 0) * judge(s)[None] for s in group])
        valid = np.stack([judge(s) for s in group])
        count = valid.sum(axis=0)
        out = np.zeros(values.shape[1:], dtype=np.uint16)
        floats = np.where(valid[:, None], values.astype(np.float64), np.nan)
        for y in range(HEIGHT):
            for x in range(WIDTH):
                kept = np.flatnonzero(valid[:, y, x])
                if kept.size == 0:
                    continue
                column = floats[:, :, y, x]
                if reducer == "median":
                    out[:, y, x] = np.rint(np.nanmedian(column, axis=0))
                elif reducer == "mean":
                    out[:, y, x] = np.rint(np.nanmean(column, axis=0))
                elif reducer == "min":
                    out[:, y, x] = np.nanmin(column, axis=0)
                elif reducer == "max":
                    out[:, y, x] = np.nanmax(column, axis=0)
                elif reducer == "first":
                    out[:, y, x] = values[kept[0], :, y, x]
                elif reducer == "last":
                    out[:, y, x] = values[kept[-1], :, y, x]
                else:
                    median = np.nanmedian(column, axis=0)
                    distance = [((values[i, :, y, x] - median) ** 2).sum() for i in kept]
                    out[:, y, x] = values[kept[int(np.argmin(distance))], :, y, x]
        has = count > 0
        if carry and previous is not None:
            take = ~has & previous_has
            out[:, take] = previous[:, take]
            has = has | previous_has
        previous, previous_has = out, has
        data.append(out)
        masks.append(has.astype(np.uint8))
        covers.append(np.minimum(count, 255).astype(np.uint8))
    return np.stack(data), np.stack(masks), np.stack(covers)


__all__ = ["UTM", "make_scenes", "write_items", "expected_composite", "valid_of", "on_10m"]
