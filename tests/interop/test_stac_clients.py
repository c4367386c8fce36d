"""odc-stac on the Item `chronozarr stac` writes (docs/interop.md): why it does not load it.

odc-stac 0.5.3 takes only assets whose media type it knows as raster (`image/*`, netCDF, HDF,
`application/x-zarr`, `application/zarr`); the Item's `application/vnd+zarr` is not one of them.
With that type swapped, it finds the grid in `proj:*` and the bands in the asset, then asks
rasterio for bands of the store's root, a Zarr group with none.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pystac
import pytest
from interop_stores import UTM, write_stores
from odc.stac import load

import chronozarr


@pytest.fixture(scope="module")
def item_doc(tmp_path_factory) -> tuple[dict, Path]:
    root = tmp_path_factory.mktemp("stac")
    write_stores(root / "stores")
    chronozarr.write_stac(str(root / "stores" / "utm"), root / "catalog")
    path = root / "catalog" / "utm-store" / "utm-store.json"
    return json.loads(path.read_text()), path


def _item(doc: dict, path: Path, media_type: str | None = None) -> pystac.Item:
    doc = json.loads(json.dumps(doc))
    if media_type:
        doc["assets"]["store"]["type"] = media_type
    item = pystac.Item.from_dict(doc)
    item.set_self_href(str(path))
    return item


def test_odc_stac_finds_no_raster_asset_in_the_item(item_doc) -> None:
    doc, path = item_doc
    assert doc["assets"]["store"]["type"] == "application/vnd+zarr"
    with pytest.raises(ValueError, match="Failed to auto-guess CRS/resolution"):
        load([_item(doc, path)])


def test_odc_stac_with_a_zarr_type_it_knows_gets_the_grid_but_reads_no_band(item_doc) -> None:
    doc, path = item_doc
    ds = load([_item(doc, path, "application/x-zarr")], chunks={})
    # The grid is the input's (interop_stores: 50 x 40 pixels of 10 m from 500000, 5000000).
    geobox = ds.odc.geobox
    assert geobox.crs.epsg == int(UTM.split(":")[1]) and geobox.shape.yx == (40, 50)
    assert tuple(geobox.affine)[:6] == (10.0, 0.0, 500000.0, 0.0, -10.0, 5000000.0)
    # One Item is one date to odc-stac, whatever the store's time axis holds.
    assert ds.sizes["time"] == 1 and sorted(ds.data_vars) == ["store.1", "store.2"]
    with pytest.raises(ValueError, match="with only 0 bands"):
        np.asarray(ds["store.1"].values)
