"""xarray engine "chronozarr": lazy variables read through ChronoDataset on demand.

    xr.open_dataset("my_store", engine="chronozarr", lod=0, physical=True)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.core import indexing

from .dataset import ChronoDataset
from .physical import physical_dtype


class _DatasetArray(BackendArray):
    """One variable of a level; indexing reads only the timesteps and window asked for."""

    def __init__(self, store: ChronoDataset, lod: int, variable: str, physical: bool) -> None:
        self.store = store
        self.lod = lod
        self.variable = variable
        self.physical = physical
        array = store.level(lod).array(variable)
        assert array is not None  # the backend makes arrays only for the variables the store has
        self.shape = array.shape
        self.dtype = physical_dtype(array.dtype, store.meta.bands) if physical else array.dtype
        self.lock = threading.Lock()

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.OUTER, self._read)

    def _read(self, key: tuple[Any, ...]) -> np.ndarray:
        """Outer indexing: time by steps, band by selection, y and x by a covering window."""
        if self.variable == "data":
            time_key, band_key, y_key, x_key = key
        else:
            time_key, y_key, x_key = key
            band_key = None
        steps = np.arange(self.shape[0])[time_key]
        scalar_time = np.ndim(steps) == 0
        steps = np.atleast_1d(steps)
        (rows, y_pick), (cols, x_pick) = _span(y_key, self.shape[-2]), _span(x_key, self.shape[-1])
        picked = [int(t) for t in steps]
        if self.variable == "data" and picked and (rows.stop - rows.start, cols.stop - cols.start) == (1, 1):
            # One pixel's history: the history array when the store has one (read_point knows).
            values = self.store.read_point(rows.start, cols.start, self.lod, picked)[:, :, None, None]
        else:
            values = self.store.read_region(self.variable, picked, rows, cols, self.lod)
        if self.variable == "data" and self.physical:
            has_mask = self.store.has_mask and picked
            mask = self.store.read_region("mask", picked, rows, cols, self.lod) if has_mask else None
            values = self.store.physical(values, self.store.validity(values, mask), band_axis=1)
        values = values[..., y_pick, :][..., x_pick]
        if band_key is not None:
            values = values[:, band_key]
        return values[0] if scalar_time else values


def _span(key: Any, size: int) -> tuple[slice, Any]:
    """The covering slice of an axis key and the selection within it: a slice for a slice, so
    the common case (dask's chunks) is a view of what was read, not a copy."""
    if isinstance(key, slice):
        start, stop, step = key.indices(size)
        if step > 0 and stop > start:
            return slice(start, stop), slice(0, stop - start, step)
    picked = np.arange(size)[key]
    if np.ndim(picked) == 0:
        return slice(int(picked), int(picked) + 1), 0
    if len(picked) == 0:
        return slice(0, 0), slice(0, 0)
    start, stop = int(picked.min()), int(picked.max()) + 1
    return slice(start, stop), picked - start


class ChronozarrBackend(BackendEntrypoint):
    """Open a chronozarr store level as a Dataset of lazy variables data, mask and coverage."""

    description = "chronozarr raster time series stores (Zarr v3, star-delta reconstructed)"
    url = "https://github.com/chronozarr/chronozarr"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "lod", "physical", "concurrency", "storage_options")

    def open_dataset(  # type: ignore[override]  # xarray documents engines with their own keyword arguments
        self,
        filename_or_obj: str | os.PathLike[str],
        *,
        drop_variables: Iterable[str] | None = None,
        lod: int = 0,
        physical: bool = True,
        concurrency: int | None = None,
        storage_options: Mapping[str, Any] | None = None,
    ) -> xr.Dataset:
        # storage_options: ChronoDataset's source options, e.g. {"endpoint": ..., "region": ...} for s3://
        store = ChronoDataset(filename_or_obj, concurrency=concurrency, **dict(storage_options or {}))
        level = store.level(lod)
        drop = set(drop_variables or ())
        variables: dict[str, xr.Variable] = {}
        names = ["data"] + [n for n, doc in (("mask", level.mask), ("coverage", level.coverage)) if doc is not None]
        for name in names:
            if name in drop:
                continue
            dims = ("time", "band", "y", "x") if name == "data" else ("time", "y", "x")
            array = indexing.LazilyIndexedArray(_DatasetArray(store, lod, name, physical and name == "data"))
            attrs: dict[str, Any] = {}
            if name == "data" and not physical and store.nodata is not None:
                attrs["nodata"] = store.nodata
            cs = level.chunk_size
            preferred = {"time": 1, "band": level.shape[1], "y": cs, "x": cs}
            variables[name] = xr.Variable(dims, array, attrs, encoding={"preferred_chunks": {d: preferred[d] for d in dims}})
        bands = store.bands
        coords = store.coords(lod)
        dataset = xr.Dataset(variables, coords=coords, attrs=dict(store.level_attrs(lod), lod=lod))
        dataset["band"].attrs["scale"] = [b.scale for b in bands]
        dataset["band"].attrs["offset"] = [b.offset for b in bands]
        dataset.set_close(store.close)
        return dataset

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        if not isinstance(filename_or_obj, (str, os.PathLike)):
            return False
        path = os.fspath(filename_or_obj)
        if path.startswith(("http://", "https://")):
            return False
        root = os.path.join(path, "zarr.json")
        try:
            with open(root, "rb") as f:
                return b'"chronozarr"' in f.read(1 << 20)
        except OSError:
            return False
