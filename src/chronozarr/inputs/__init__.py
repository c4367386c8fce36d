"""Inputs for encode and convert: NetCDF files, Zarr stores and manifests of raster files opened as
lazy (time, band, y, x) series."""

from ..crs import find_crs
from .casting import cast_exactly, require_stored_dtype
from .dataset_files import open_xarray
from .datasets import Source, open_input_dataset

__all__ = ["Source", "cast_exactly", "find_crs", "open_input_dataset", "open_xarray", "require_stored_dtype"]
