"""Small raster files and manifests for the convert tests, written with rasterio from numpy arrays."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from rasterio.errors import NotGeoreferencedWarning
from rasterio.transform import from_origin

HEIGHT, WIDTH = 20, 18
DATES = ("2024-01-01", "2024-02-01", "2024-03-01")
UTM = "EPSG:32631"
TRANSFORM = from_origin(500_000, 5_000_200, 10, 10)
# What ENVI, ArcGIS and older GDAL write for a UTM DEM on GRS80 with an unnamed datum.
ESRI_UTM_25S = (
    'PROJCS["UTM Zone 25, Southern Hemisphere",GEOGCS["GRS 1980(IUGG, 1980)",DATUM["unknown",'
    'SPHEROID["GRS80",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],'
    'PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-33],'
    'PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",10000000],'
    'UNIT["Meter",1]]'
)

# What GDAL writes for a PROJ string with a null TOWGS84: a BoundCRS over a GRS80 UTM 25S.
NULL_TOWGS84_UTM_25S = "+proj=utm +zone=25 +south +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs"


def pixels(count: int, dtype: str = "uint16", seed: int = 0, height: int = HEIGHT, width: int = WIDTH) -> np.ndarray:
    """Values that use most of the dtype's range, nodata-free unless a test puts some in."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.normal(0.3, 0.1, size=(count, height, width)).astype(dtype)
    return rng.integers(1, 250, size=(count, height, width)).astype(dtype)


def geotiff(path: Path, values: np.ndarray, *, driver: str = "GTiff", crs: Any = UTM, transform: Any = TRANSFORM,
            nodata: float | None = None, scales: tuple | None = None, offsets: tuple | None = None,
            descriptions: tuple | None = None, units: tuple | None = None, colormap: dict | None = None) -> Path:
    """A GeoTIFF (or COG with driver="COG") of (band, y, x) `values` with what it declares."""
    count, height, width = values.shape
    with rasterio.open(
        path, "w", driver=driver, width=width, height=height, count=count, dtype=values.dtype.name,
        crs=crs, transform=transform, nodata=nodata,
    ) as ds:
        ds.write(values)
        if scales:
            ds.scales = scales
        if offsets:
            ds.offsets = offsets
        if units:
            ds.units = units
        for i, text in enumerate(descriptions or (), start=1):
            ds.set_band_description(i, text)
        if colormap:
            ds.write_colormap(1, colormap)
    return path


def png(path: Path, values: np.ndarray, *, world_file: bool = False, crs: Any = None, transform: Any = None,
        colormap: dict | None = None) -> Path:
    """An 8-bit PNG frame; a world file (.pgw) and, with crs/transform, an .aux.xml as GDAL writes them."""
    count, height, width = values.shape
    georef = {"crs": crs, "transform": transform} if transform is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotGeoreferencedWarning)  # a frame without georeferencing is the point
        with rasterio.open(path, "w", driver="PNG", width=width, height=height, count=count, dtype="uint8", **georef) as ds:
            ds.write(values)
            if colormap:
                ds.write_colormap(1, colormap)
    if world_file:
        t = TRANSFORM
        # a world file names the centre of the upper-left pixel
        lines = [t.a, t.d, t.b, t.e, t.c + t.a / 2, t.f + t.e / 2]
        path.with_suffix(".pgw").write_text("\n".join(repr(float(v)) for v in lines) + "\n")
    return path


def csv_manifest(path: Path, rows: list[tuple[str, ...]], header: str = "uri,datetime") -> Path:
    path.write_text(header + "\n" + "\n".join(",".join(row) for row in rows) + "\n")
    return path


def json_manifest(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value))
    return path


def transform_of(path: Path) -> tuple[float, ...]:
    """The geotransform GDAL reads from a file (and its sidecars): the independent reference."""
    with rasterio.open(path) as ds:
        return tuple(ds.transform)[:6]
