"""Inputs for encode and convert: NetCDF files, Zarr stores and manifests of raster files opened as
lazy (time, band, y, x) series."""

from ..crs import find_crs
from .datasets import Source, cast_exactly, open_dataset, open_input_dataset, require_stored_dtype

__all__ = ["Source", "cast_exactly", "find_crs", "open_dataset", "open_input_dataset", "require_stored_dtype"]
