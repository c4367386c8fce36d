"""Stores the interop tests open with other people's tools: a UTM store and an EPSG:4326 one,
`none` and unsharded (what plain readers read without chronozarr), written by the real encoder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from conftest import make_series

UTM = "EPSG:32631"
GEOGRAPHIC = "EPSG:4326"


def lonlat_series(n_time: int = 3, height: int = 40, width: int = 50, seed: int = 2) -> xr.DataArray:
    """A (time, band, y, x) uint16 series on a 0.001-degree grid near 3.2 E, 44.4 N."""
    base = make_series(n_time=n_time, height=height, width=width, seed=seed)
    return base.assign_coords(x=3.2 + (np.arange(width) + 0.5) * 0.001, y=44.4 - (np.arange(height) + 0.5) * 0.001)


def write_stores(root: Path) -> dict[str, tuple[Path, xr.DataArray]]:
    import chronozarr

    stores = {}
    for name, da, crs in (("utm", make_series(n_time=3, height=40, width=50, seed=2), UTM), ("lonlat", lonlat_series(), GEOGRAPHIC)):
        chronozarr.encode(da, root / name, crs=crs, chunk_size=16, encoding="none", progress=False)
        stores[name] = (root / name, da)
    return stores
