"""write_stac: STAC 1.1 structure, extents against a footprint computed here, times, bands, grid, links."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from export_stores import CRS, float_masked, star_delta_masked

from chronozarr.errors import OutputExistsError
from chronozarr.export.stac import write_stac
from chronozarr.serve import StoreServer

import pyproj

DATACUBE = "https://stac-extensions.github.io/datacube/v2.2.0/schema.json"
PROJECTION = "https://stac-extensions.github.io/projection/v2.0.0/schema.json"


@pytest.fixture(scope="module")
def star(tmp_path_factory):
    return star_delta_masked(tmp_path_factory.mktemp("star"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _check_common(doc: dict, kind: str) -> None:
    """What STAC 1.1 requires of every Collection and Item, checked without the JSON schemas."""
    assert doc["type"] == kind and doc["stac_version"] == "1.1.0"
    assert isinstance(doc["id"], str) and doc["id"]
    assert isinstance(doc.get("stac_extensions", []), list)
    assert all(isinstance(u, str) and u.startswith("https://") for u in doc.get("stac_extensions", []))
    assert isinstance(doc["links"], list)
    for link in doc["links"]:
        assert isinstance(link["href"], str) and isinstance(link["rel"], str)


def _check_collection(doc: dict) -> None:
    _check_common(doc, "Collection")
    assert isinstance(doc["description"], str) and doc["description"]
    assert isinstance(doc["license"], str)
    (bbox,) = doc["extent"]["spatial"]["bbox"]
    assert len(bbox) == 4 and all(isinstance(v, float) for v in bbox)
    (interval,) = doc["extent"]["temporal"]["interval"]
    assert len(interval) == 2


def _check_item(doc: dict) -> None:
    _check_common(doc, "Feature")
    assert doc["geometry"]["type"] == "Polygon"
    ring = doc["geometry"]["coordinates"][0]
    assert ring[0] == ring[-1] and len(ring) >= 4
    assert len(doc["bbox"]) == 4
    props = doc["properties"]
    assert props["datetime"] is None and props["start_datetime"] <= props["end_datetime"]
    assert isinstance(doc["assets"], dict) and doc["assets"]
    for asset in doc["assets"].values():
        assert isinstance(asset["href"], str)


def _footprint(bounds, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Longitudes and latitudes along the edges of a projected rectangle, densely sampled."""
    xmin, ymin, xmax, ymax = bounds
    f = np.linspace(0, 1, points)
    xs = np.concatenate([xmin + (xmax - xmin) * f, np.full(points, xmax), xmax - (xmax - xmin) * f, np.full(points, xmin)])
    ys = np.concatenate([np.full(points, ymin), ymin + (ymax - ymin) * f, np.full(points, ymax), ymax - (ymax - ymin) * f])
    return pyproj.Transformer.from_crs(CRS, "EPSG:4326", always_xy=True).transform(xs, ys)


def _iso(times: np.ndarray) -> list[str]:
    return [f"{np.datetime_as_string(t.astype('datetime64[s]'))}Z" for t in times]


def test_collection_and_item_are_valid_stac_and_link_to_each_other(star, tmp_path):
    summary = write_stac(star.path, tmp_path, license_id="CC-BY-4.0")
    collection, item = _load(summary.collection), _load(summary.item)
    _check_collection(collection)
    _check_item(item)
    assert summary.collection == tmp_path / "collection.json"
    assert summary.item == tmp_path / "star-store" / "star-store.json"
    assert collection["license"] == "CC-BY-4.0" and item["collection"] == collection["id"] == "star"
    rels = {link["rel"]: link["href"] for link in collection["links"]}
    assert set(rels) == {"root", "item"}
    assert (summary.collection.parent / rels["item"]).resolve() == summary.item.resolve()
    assert (summary.collection.parent / rels["root"]).resolve() == summary.collection.resolve()
    item_rels = {link["rel"]: link["href"] for link in item["links"]}
    assert set(item_rels) == {"root", "parent", "collection"}
    assert all((summary.item.parent / href).resolve() == summary.collection.resolve() for href in item_rels.values())
    assert "self" not in rels


def test_extents_contain_the_footprint_and_cover_the_times(star, tmp_path):
    summary = write_stac(star.path, tmp_path)
    collection, item = _load(summary.collection), _load(summary.item)
    lons, lats = _footprint((500_000.0, 5_000_000.0 - 37 * 10, 500_000.0 + 29 * 10, 5_000_000.0))
    west, south, east, north = item["bbox"]
    tolerance = 1e-9  # degrees: the densified edges against this denser sampling
    assert west <= lons.min() + tolerance and east >= lons.max() - tolerance
    assert south <= lats.min() + tolerance and north >= lats.max() - tolerance
    assert east - west < 2 * (lons.max() - lons.min())  # tight, not the whole globe
    assert collection["extent"]["spatial"]["bbox"] == [item["bbox"]]
    ring = np.array(item["geometry"]["coordinates"][0])
    area = np.sum(ring[:-1, 0] * ring[1:, 1] - ring[1:, 0] * ring[:-1, 1]) / 2
    assert area > 0  # counterclockwise exterior ring (RFC 7946)
    times = _iso(star.times)
    assert collection["extent"]["temporal"]["interval"] == [[times[0], times[-1]]]
    assert (item["properties"]["start_datetime"], item["properties"]["end_datetime"]) == (times[0], times[-1])
    assert item["properties"]["cube:dimensions"]["time"]["values"] == times


def test_grid_bands_and_variables(star, tmp_path):
    item = _load(write_stac(star.path, tmp_path).item)
    props = item["properties"]
    assert {DATACUBE, PROJECTION} <= set(item["stac_extensions"])
    assert props["proj:code"] == CRS and props["proj:shape"] == [37, 29]
    assert props["proj:transform"] == [10.0, 0.0, 500_000.0, 0.0, -10.0, 5_000_000.0]
    dims = props["cube:dimensions"]
    assert dims["x"] == {"type": "spatial", "axis": "x", "extent": [500_000.0, 500_290.0], "step": 10.0, "reference_system": 32631}
    assert dims["y"]["extent"] == [4_999_630.0, 5_000_000.0] and dims["y"]["step"] == -10.0
    assert dims["band"]["values"] == ["red", "nir"]
    assert props["cube:variables"]["data"]["dimensions"] == ["time", "band", "y", "x"]
    assert props["cube:variables"]["mask"]["type"] == "auxiliary"
    asset = item["assets"]["store"]
    assert asset["roles"] == ["data"] and asset["type"] == "application/vnd+zarr"
    assert [b["name"] for b in asset["bands"]] == ["red", "nir"]
    assert [(b["raster:scale"], b["raster:offset"], b["unit"]) for b in asset["bands"]] == [
        (1e-4, -0.1, "reflectance"), (2e-4, 0.0, "reflectance")
    ]
    assert all(b["nodata"] == 0 and b["data_type"] == "uint16" and b["eo:common_name"] for b in asset["bands"])


def test_asset_href_defaults_to_the_store_relative_to_the_item(star, tmp_path):
    summary = write_stac(star.path, tmp_path / "catalog")
    href = _load(summary.item)["assets"]["store"]["href"]
    assert not Path(href).is_absolute() and (summary.item.parent / href).resolve() == star.path.resolve()


def test_href_and_catalog_url_are_used_as_given(star, tmp_path):
    summary = write_stac(star.path, tmp_path, href="https://example.org/stores/star", catalog_url="https://example.org/cat/")
    collection, item = _load(summary.collection), _load(summary.item)
    assert item["assets"]["store"]["href"] == "https://example.org/stores/star"
    assert collection["links"][0] == {"rel": "self", "href": "https://example.org/cat/collection.json", "type": "application/json"}
    assert item["links"][0]["href"] == "https://example.org/cat/star-store/star-store.json"


def test_a_store_served_over_http_is_its_own_href(star, tmp_path):
    with StoreServer(star.path.parent) as server:
        url = f"{server.url}/{star.path.name}"
        item = _load(write_stac(url, tmp_path).item)
    assert item["assets"]["store"]["href"] == url and item["id"] == "star-store"


def test_existing_documents_are_refused_unless_overwrite(star, tmp_path):
    write_stac(star.path, tmp_path)
    with pytest.raises(OutputExistsError, match="collection.json"):
        write_stac(star.path, tmp_path)
    write_stac(star.path, tmp_path, overwrite=True, license_id="MIT")
    assert _load(tmp_path / "collection.json")["license"] == "MIT"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["collection.json", "star-store", "star-store.json"]


def test_a_store_without_common_names_or_nodata_omits_them(tmp_path):
    built = float_masked(tmp_path)
    item = _load(write_stac(built.path, tmp_path / "cat").item)
    assert not any("eo/" in url for url in item["stac_extensions"])
    assert all("nodata" not in b and "eo:common_name" not in b for b in item["assets"]["store"]["bands"])
    assert item["assets"]["store"]["bands"][1].get("unit") is None
