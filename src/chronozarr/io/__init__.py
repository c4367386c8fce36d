"""Inputs for encode: NetCDF files and Zarr stores opened as lazy (time, band, y, x) series."""

from ..crs import find_crs
from .sources import Source, cast_exactly, open_dataset, open_source

__all__ = ["Source", "cast_exactly", "find_crs", "open_dataset", "open_source"]
