"""A static STAC catalog for a store: one Collection and one Item that describe the store as a whole.

Plain JSON (STAC 1.1) with the datacube, projection, raster and eo extensions. The Item's one asset
is the store root; clients that understand Zarr open it from there. Nothing is rendered or served.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import StoreError
from ..format.geometry import Level, size_text
from ..format.times import iso_list
from ..read.dataset import ChronoDataset, open_dataset
from .files import check_targets, replacing
from .footprint import wgs84_footprint

STAC_VERSION = "1.1.0"
DATACUBE = "https://stac-extensions.github.io/datacube/v2.2.0/schema.json"
PROJECTION = "https://stac-extensions.github.io/projection/v2.0.0/schema.json"
RASTER = "https://stac-extensions.github.io/raster/v2.0.0/schema.json"
EO = "https://stac-extensions.github.io/eo/v2.0.0/schema.json"
ZARR_MEDIA_TYPE = "application/vnd+zarr"
JSON_MEDIA_TYPE = "application/json"
GEOJSON_MEDIA_TYPE = "application/geo+json"
COLLECTION_FILE = "collection.json"


@dataclass(frozen=True)
class StacSummary:
    """What write_stac wrote."""

    collection: Path
    item: Path

    def __str__(self) -> str:
        return f"STAC Collection {self.collection} with Item {self.item}"


def write_stac(
    store: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    href: str | None = None,
    catalog_url: str | None = None,
    license_id: str = "other",
    overwrite: bool = False,
) -> StacSummary:
    """Write `collection.json` and `<id>/<id>.json` into `out` for the store.

    The asset points at `href`, else at the store's URL, else at the store directory relative to
    the Item. `license_id` is an SPDX identifier, or "other". Links are relative; with
    `catalog_url` (where `out` will be published) each document also gets an absolute `self` link.
    """
    directory = Path(out)
    name = store_name(os.fspath(store))
    item_id = f"{name}-store"
    item_file = f"{item_id}/{item_id}.json"
    check_targets(directory, [COLLECTION_FILE, item_file], overwrite)
    location = os.fspath(store)
    if href is None:
        href = location if _remote(location) else os.path.relpath(os.path.abspath(location), os.path.abspath(directory / item_id))
    with open_dataset(store) as source:
        collection, item = describe(source, name, item_id, href, license_id)
    collection["links"] = _links([("root", COLLECTION_FILE), ("item", item_file)], catalog_url, COLLECTION_FILE)
    up = f"../{COLLECTION_FILE}"
    item["links"] = _links([("root", up), ("parent", up), ("collection", up)], catalog_url, item_file)
    paths = (directory / COLLECTION_FILE, directory / item_file)
    for path, document in zip(paths, (collection, item), strict=False):
        with replacing(path) as partial:
            partial.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return StacSummary(*paths)


def describe(source: ChronoDataset, name: str, item_id: str, href: str, license_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Collection and the Item of an open store, without links."""
    if not source.crs:
        raise StoreError("the store declares no CRS, so it cannot be placed on a map; STAC needs a WGS84 footprint")
    level = source.levels[0]
    _, _, height, width = level.shape
    native = Level(0, height, width, level.chunk_size, level.transform).bbox()
    bbox, geometry = wgs84_footprint(source.crs, native)
    times = iso_list(source.times.astype(np.int64))
    cube = {"cube:dimensions": _dimensions(source, native, times), "cube:variables": _variables(source)}
    extensions = [DATACUBE, PROJECTION, RASTER] + ([EO] if any(b.common_name for b in source.bands) else [])
    collection = {
        "type": "Collection",
        "stac_version": STAC_VERSION,
        "stac_extensions": [DATACUBE],
        "id": name,
        "title": name,
        "description": _description(source, name, times),
        "license": license_id,
        "extent": {"spatial": {"bbox": [bbox]}, "temporal": {"interval": [[times[0], times[-1]]]}},
        **cube,
    }
    item = {
        "type": "Feature",
        "stac_version": STAC_VERSION,
        "stac_extensions": extensions,
        "id": item_id,
        "collection": name,
        "bbox": bbox,
        "geometry": geometry,
        "properties": {
            "datetime": None,
            "start_datetime": times[0],
            "end_datetime": times[-1],
            "proj:code": source.crs,
            "proj:shape": [height, width],
            "proj:transform": list(level.transform),
            "proj:bbox": list(native),
            **cube,
        },
        "assets": {"store": _asset(source, href)},
    }
    return collection, item


def store_name(location: str) -> str:
    """The last path or URL segment of the store, without a `.zarr` suffix: the catalog's ids."""
    name = location.rstrip("/").rsplit("/", 1)[-1] if _remote(location) else Path(location).resolve().name
    name = name[: -len(".zarr")] if name.endswith(".zarr") and len(name) > len(".zarr") else name
    return name or "store"


def _remote(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def _epsg(crs: str) -> int | str:
    """Datacube's reference_system: the EPSG code as an integer when the CRS is one."""
    prefix, _, code = crs.partition(":")
    return int(code) if prefix.upper() == "EPSG" and code.isdigit() else crs


def _dimensions(source: ChronoDataset, native: tuple[float, float, float, float], times: list[str]) -> dict[str, Any]:
    a, _, _, _, e, _ = source.levels[0].transform
    xmin, ymin, xmax, ymax = native
    system = _epsg(source.crs or "")
    return {
        "time": {"type": "temporal", "extent": [times[0], times[-1]], "values": times},
        "band": {"type": "bands", "values": source.band_names},
        "y": {"type": "spatial", "axis": "y", "extent": [ymin, ymax], "step": e, "reference_system": system},
        "x": {"type": "spatial", "axis": "x", "extent": [xmin, xmax], "step": a, "reference_system": system},
    }


def _variables(source: ChronoDataset) -> dict[str, Any]:
    meta = source.meta
    out: dict[str, Any] = {
        meta.variable: {
            "dimensions": ["time", "band", "y", "x"],
            "type": "data",
            "description": "stored values; physical value = stored * scale + offset per band",
        }
    }
    if meta.mask_variable:
        out[meta.mask_variable] = {"dimensions": ["time", "y", "x"], "type": "auxiliary", "description": "validity: 1 valid, 0 invalid"}
    if meta.coverage_variable:
        out[meta.coverage_variable] = {"dimensions": ["time", "y", "x"], "type": "auxiliary", "description": "observations per pixel"}
    return out


def _asset(source: ChronoDataset, href: str) -> dict[str, Any]:
    bands = []
    for band in source.bands:
        entry: dict[str, Any] = {"name": band.name, "data_type": source.dtype.name}
        if band.common_name:
            entry["eo:common_name"] = band.common_name
        entry["raster:scale"] = band.scale
        entry["raster:offset"] = band.offset
        if band.units:
            entry["unit"] = band.units
        if source.nodata is not None:
            entry["nodata"] = source.nodata
        bands.append(entry)
    return {
        "href": href,
        "type": ZARR_MEDIA_TYPE,
        "title": "chronozarr store (Zarr v3); star-delta timesteps need a chronozarr reader",
        "roles": ["data"],
        "bands": bands,
    }


def _description(source: ChronoDataset, name: str, times: list[str]) -> str:
    levels = source.levels
    _, n_band, height, width = levels[0].shape
    text = (
        f"chronozarr store {name}: {len(times)} timesteps from {times[0]} to {times[-1]}, {n_band} bands "
        f"({', '.join(source.band_names)}) of {source.dtype.name}, {size_text(width, height)} at level 0 in "
        f"{source.crs}, {len(levels)} pyramid levels, temporal encoding {source.encoding}."
    )
    provenance = source.attrs.get("provenance")
    if isinstance(provenance, dict) and provenance.get("sources"):
        text += f" Sources: {', '.join(map(str, provenance['sources']))}."
    return text


def _links(relations: list[tuple[str, str]], catalog_url: str | None, own: str) -> list[dict[str, str]]:
    """Relative links of a document, plus an absolute self link when the catalog's URL is known."""
    links = [{"rel": rel, "href": href if href.startswith("..") else f"./{href}", "type": _media(href)} for rel, href in relations]
    if catalog_url:
        links.insert(0, {"rel": "self", "href": f"{catalog_url.rstrip('/')}/{own}", "type": _media(own)})
    return links


def _media(href: str) -> str:
    return JSON_MEDIA_TYPE if href.endswith(COLLECTION_FILE) else GEOJSON_MEDIA_TYPE
