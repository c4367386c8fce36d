"""export-cog and stac on a store with a history array: the COGs hold level 0's true values and the
STAC item describes the store as it does one without the array."""

from __future__ import annotations

import json

import numpy as np
import rasterio

import chronozarr
from chronozarr.export.cog import export_cog
from chronozarr.export.stac import write_stac
from conftest import make_series


def test_export_and_stac_read_a_store_with_history_as_one_without(tmp_path):
    da = make_series(n_time=6, n_band=2, height=40, width=30, seed=9)
    options = {"crs": "EPSG:32631", "chunk_size": 16, "encoding": "star-delta", "anchor_interval": 3, "progress": False}
    chronozarr.encode(da, tmp_path / "with", history=True, **options)
    chronozarr.encode(da, tmp_path / "without", **options)
    export_cog(tmp_path / "with", tmp_path / "cogs", times=[4])
    (cog,) = sorted((tmp_path / "cogs").glob("*.tif"))
    with rasterio.open(cog) as src:
        np.testing.assert_array_equal(src.read(), da.values[4])
    items = {}
    for name in ("with", "without"):
        write_stac(tmp_path / name, tmp_path / f"stac-{name}")
        item = json.loads((tmp_path / f"stac-{name}" / f"{name}-store" / f"{name}-store.json").read_text())
        items[name] = (item["bbox"], item["properties"]["start_datetime"], item["properties"]["end_datetime"])
    assert items["with"] == items["without"]
