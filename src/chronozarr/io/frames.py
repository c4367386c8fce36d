"""Raster files as one lazy (time, band, y, x) array: indexing it reads the files it covers, and
only the window asked for, so the writer reads one file per timestep when it asks for it.

The same class gives the (time, y, x) mask of an alpha band (1 where alpha is nonzero). The data
and mask arrays of one manifest share their reads (`FileReads`): a window is decoded once for both,
which matters for PNG frames, decoded whole for any window. It is an xarray backend array, so it
needs no dask; with dask installed it is chunked one timestep per chunk like the NetCDF and Zarr
inputs.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence

import numpy as np
import xarray as xr
from xarray.backends import BackendArray
from xarray.core import indexing

from .rasters import rasterio_module


class FileReads:
    """Windows of the files read with every band the series uses, the last one kept: the data and
    alpha arrays ask for the same window of a timestep one after the other."""

    def __init__(self, bands: Sequence[int]):
        self.bands = tuple(bands)
        self._last: tuple[tuple[str, tuple[int, int, int, int]], np.ndarray] | None = None
        self._lock = threading.Lock()

    def read(self, uri: str, bands: Sequence[int], rows: range, cols: range) -> np.ndarray:
        """`bands` (1-based) of `uri` over the bounding window of `rows` and `cols`."""
        from rasterio.errors import NotGeoreferencedWarning
        from rasterio.windows import Window

        top, left = min(rows), min(cols)
        box = (left, top, max(cols) - left + 1, max(rows) - top + 1)
        with self._lock:
            if self._last is None or self._last[0] != (uri, box):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", NotGeoreferencedWarning)  # checked with the headers (--bounds)
                    with rasterio_module().open(uri) as ds:
                        self._last = ((uri, box), ds.read(list(self.bands), window=Window(*box)))
            values = self._last[1]
        values = values[[self.bands.index(b) for b in bands]]
        return values[:, np.asarray(rows) - top][:, :, np.asarray(cols) - left]


class RasterFrames(BackendArray):
    """Bands `indexes` (1-based) of the files `uris`, one file per timestep, read through `reads`.

    With `alpha=True` the array is (time, y, x) uint8 validity from the one band in `indexes`.
    """

    def __init__(
        self, uris: Sequence[str], indexes: Sequence[int], height: int, width: int, dtype: str, reads: FileReads,
        alpha: bool = False,
    ):
        self.uris = tuple(uris)
        self.indexes = tuple(indexes)
        self.reads = reads
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
                values = self.reads.read(self.uris[i], bands, row_range, col_range)
                out[n] = (values != 0).astype(np.uint8) if self.alpha else values
        squeeze = tuple(0 if isinstance(k, int) else slice(None) for k in (t, b, rows, cols))
        return out[squeeze]


def _as_range(index: int | range) -> range:
    return range(index, index + 1) if isinstance(index, int) else index


def lazy_array(frames: RasterFrames, dims: tuple[str, ...], coords: dict[str, np.ndarray]) -> xr.DataArray:
    """The frames as a DataArray that reads on indexing (dask-chunked per timestep when dask is there)."""
    from .sources import time_chunks

    array = xr.DataArray(indexing.LazilyIndexedArray(frames), dims=dims, coords={k: v for k, v in coords.items() if k in dims})
    chunks = time_chunks()
    return array.chunk(chunks) if chunks else array
