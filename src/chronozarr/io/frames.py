"""Raster files as one lazy (time, band, y, x) array: indexing it reads the files it covers, and
only the window asked for, so the writer reads one file per timestep when it asks for it.

The same class gives the (time, y, x) mask of an alpha band (1 where alpha is nonzero). It is an
xarray backend array, so it needs no dask; with dask installed it is chunked one timestep per
chunk like the NetCDF and Zarr inputs.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr
from xarray.backends import BackendArray
from xarray.core import indexing

from .rasters import rasterio_module


class RasterFrames(BackendArray):
    """Bands `indexes` (1-based) of the files `uris`, one file per timestep.

    With `alpha=True` the array is (time, y, x) uint8 validity from the one band in `indexes`.
    """

    def __init__(self, uris: Sequence[str], indexes: Sequence[int], height: int, width: int, dtype: str, alpha: bool = False):
        self.uris = tuple(uris)
        self.indexes = tuple(indexes)
        self.alpha = alpha
        self.dtype = np.dtype("uint8" if alpha else dtype)
        planes = (height, width) if alpha else (len(self.indexes), height, width)
        self.shape = (len(self.uris), *planes)

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.BASIC, self._read)

    def _read(self, key: tuple[int | slice, ...]) -> np.ndarray:
        """Basic indexing (integers and slices) as numpy would do it on the whole array."""
        if self.alpha:
            key = (key[0], 0, *key[1:])
        full_shape = (self.shape[0], len(self.indexes), *self.shape[-2:])
        t, b, rows, cols = (range(size)[k] for k, size in zip(key, full_shape))
        picked = [t] if isinstance(t, int) else t
        bands = [self.indexes[b]] if isinstance(b, int) else [self.indexes[i] for i in b]
        row_range, col_range = _as_range(rows), _as_range(cols)
        out = np.empty((len(picked), len(bands), len(row_range), len(col_range)), dtype=self.dtype)
        if out.size:
            for n, i in enumerate(picked):
                out[n] = self._window(self.uris[i], bands, row_range, col_range)
        squeeze = tuple(0 if isinstance(k, int) else slice(None) for k in (t, b, rows, cols))
        return out[squeeze]

    def _window(self, uri: str, bands: list[int], rows: range, cols: range) -> np.ndarray:
        from rasterio.errors import NotGeoreferencedWarning
        from rasterio.windows import Window

        top, left = min(rows), min(cols)
        window = Window(left, top, max(cols) - left + 1, max(rows) - top + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotGeoreferencedWarning)  # checked with the headers (--bounds)
            with rasterio_module().open(uri) as ds:
                values = ds.read(bands, window=window)
        values = values[:, np.asarray(rows) - top][:, :, np.asarray(cols) - left]
        return (values != 0).astype(np.uint8) if self.alpha else values


def _as_range(index: int | range) -> range:
    return range(index, index + 1) if isinstance(index, int) else index


def lazy_array(frames: RasterFrames, dims: tuple[str, ...], coords: dict[str, np.ndarray]) -> xr.DataArray:
    """The frames as a DataArray that reads on indexing (dask-chunked per timestep when dask is there)."""
    from .sources import time_chunks

    array = xr.DataArray(indexing.LazilyIndexedArray(frames), dims=dims, coords={k: v for k, v in coords.items() if k in dims})
    chunks = time_chunks()
    return array.chunk(chunks) if chunks else array
