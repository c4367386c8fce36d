"""`convert`: a manifest of raster files (or a NetCDF file or Zarr store) into a new store.

A manifest's files become a lazy (time, band, y, x) series that reads one file per timestep when
the writer asks for it; what the files declare (nodata, scale and offset, band names, an alpha
band) becomes the store's. NetCDF and Zarr inputs go through `open_source`, as for encode.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import InputError
from ..write.encode import EncodeSummary, encode
from ..write.preview import EncodePreview
from .frames import FileReads, RasterFrames, lazy_array
from .manifest import is_manifest, parse_bounds, read_manifest
from .raster_series import check_series
from .rasters import read_headers
from .sources import SERIES_DIMS, Source, cast_exactly, open_source, require_stored_dtype


def convert(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    crs: Any = None,
    bounds: Any = None,
    cast: str | None = None,
    source_options: dict[str, Any] | None = None,
    dry_run: bool = False,
    **options: Any,
) -> EncodeSummary | EncodePreview:
    """Write the series `source` names as a new store at `out` (or, with `dry_run`, say what would
    be written). `options` are encode's; `source_options` are open_source's for NetCDF and Zarr
    (variable, variables, mask_variable, coverage_variable, group). Without `cast` the data must
    already have a dtype a store holds."""
    with open_series(source, crs=crs, bounds=bounds, cast=cast, **(source_options or {})) as opened:
        if cast is None:
            require_stored_dtype(str(opened.data.dtype))
        return encode(opened.data, out, **(opened.encode_arguments() | options), dry_run=dry_run)


def open_series(source: str | os.PathLike[str], *, crs: Any = None, bounds: Any = None, cast: str | None = None, **source_options: Any) -> Source:
    """A manifest (.csv, .json) of raster files, else a NetCDF file or Zarr store."""
    if is_manifest(source):
        given = sorted(k for k, v in source_options.items() if v is not None)
        if given:
            options = ", ".join("--" + k.replace("_", "-") for k in given)
            raise InputError(f"{options} select variables of a NetCDF file or Zarr store; a manifest of files has none")
        return open_manifest(source, crs=crs, bounds=bounds, cast=cast)
    if bounds is not None:
        raise InputError("--bounds places raster files of a manifest; a NetCDF file or Zarr store has its own coordinates")
    return open_source(source, crs=crs, cast=cast, **source_options)


def open_manifest(path: str | os.PathLike[str], *, crs: Any = None, bounds: Any = None, cast: str | None = None) -> Source:
    """The files of the manifest at `path` as a lazy series, checked against each other.

    `crs` is the CRS of files that declare none; `bounds` (west, south, east, north) the extent of
    files without georeferencing, also given as the manifest's top-level `bounds`.
    """
    manifest = read_manifest(path)
    if bounds is not None and manifest.bounds is not None:
        raise InputError(f"the extent is given twice, by --bounds and by the bounds of {manifest.path}; give it once")
    extent = parse_bounds(bounds, "--bounds") if bounds is not None else manifest.bounds
    uris = [item.uri for item in manifest.items]
    series = check_series(read_headers(uris), crs, extent, manifest.bands)
    first = series.first
    a, _, west, _, e, north = series.transform
    coords = {
        "time": np.array([item.datetime for item in manifest.items], dtype="datetime64[ns]"),
        "band": np.array([band.name for band in series.bands], dtype=str),
        "y": north + (np.arange(first.height) + 0.5) * e,
        "x": west + (np.arange(first.width) + 0.5) * a,
    }
    size = (first.height, first.width, first.dtypes[0])
    reads = FileReads(first.data_bands + ((first.alpha,) if first.alpha is not None else ()))
    data = lazy_array(RasterFrames(uris, first.data_bands, *size, reads), SERIES_DIMS, coords)
    mask = None
    if first.alpha is not None:
        mask = lazy_array(RasterFrames(uris, (first.alpha,), *size, reads, alpha=True), ("time", "y", "x"), coords)
    if cast is not None:
        data = cast_exactly(data, cast)
    return Source(data, series.crs, mask, nodata=series.nodata, bands=series.bands)
