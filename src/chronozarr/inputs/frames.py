"""The checked raster files as one lazy (time, band, y, x) array on the store's grid: indexing it
reads only the window asked for, from the files of that timestep.

A file on the grid is read exactly; one shifted by whole pixels is read where it lands; any other
through a GDAL WarpedVRT onto the grid, window by window, so no whole frame is held. A timestep of
several scenes is a mosaic: for each pixel the first scene with a valid value there gives all its
bands. The (time, y, x) mask array shares the reads of the data array (`FrameReads`), so a window
is decoded once for both. Open files stay open for the next windows (`OpenFiles`).
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, cast

import numpy as np
import xarray as xr
from xarray.backends import BackendArray
from xarray.core import indexing

from ..errors import InputError
from .grid import Placement, resampling_enum
from .raster_bands import AssetBands
from .raster_series import RasterSeries
from .rasters import rasterio_module
from .scenes import Asset, Scene

TIMESTEPS_OPEN = 3  # the files of the timestep being read and of two read ahead stay open
READ_CACHE_BYTES = 64 << 20  # GDAL's block cache while reading: each block is read once


class OpenFiles:
    """Open datasets (warped ones as WarpedVRTs on the grid), least recently used closed first:
    a closed file's decoded blocks leave GDAL's cache with it."""

    def __init__(self, series: RasterSeries, limit: int | None = None):
        self.series = series
        per_timestep = max(len({a.uri for s in t.scenes for a in s.assets}) for t in series.timesteps)
        self.limit = limit or TIMESTEPS_OPEN * per_timestep
        self._open: OrderedDict[str, _Handle] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, uri: str, indexes: Sequence[int], box: tuple[int, int, int, int]) -> np.ndarray:
        """Bands `indexes` of the file `uri` over `box` (col, row, width, height) of its own pixels
        (of the grid, for a warped file)."""
        from rasterio.errors import RasterioError
        from rasterio.windows import Window

        while True:
            handle = self._handle(uri)
            with handle.lock:
                if handle.closed:
                    continue
                try:
                    return handle.reader.read(list(indexes), window=Window(*box))
                except RasterioError as exc:
                    raise InputError(f"cannot read {uri}: {exc}; replace the file, or leave it out of the listing") from None

    def read_masks(self, uri: str, index: int, box: tuple[int, int, int, int]) -> np.ndarray:
        """GDAL's mask of band `index` over `box` (0 where the file has no value: nodata, or outside)."""
        from rasterio.windows import Window

        handle = self._handle(uri)
        with handle.lock:
            if handle.closed:
                return self.read_masks(uri, index, box)
            return handle.reader.read_masks(index, window=Window(*box))

    def _handle(self, uri: str) -> _Handle:
        with self._lock:
            handle = self._open.pop(uri, None) or _Handle(uri, self.series.placements[uri], self.series)
            self._open[uri] = handle
            while len(self._open) > self.limit:
                _, oldest = self._open.popitem(last=False)
                oldest.close()
            return handle

    def close(self) -> None:
        with self._lock:
            for handle in self._open.values():
                handle.close()
            self._open.clear()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled for a cluster task: the files are opened again where it runs."""
        return {"series": self.series, "limit": self.limit}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["series"], state["limit"])  # type: ignore[misc]


class ReadCache:
    """GDAL's block cache held to READ_CACHE_BYTES while a series is read (GDAL's default, 5 % of
    memory, would keep gigabytes of blocks nothing reads twice); a GDAL_CACHEMAX the user set wins."""

    def __init__(self) -> None:
        import os

        self._env = None
        if "GDAL_CACHEMAX" not in os.environ:
            self._env = rasterio_module().Env(GDAL_CACHEMAX=READ_CACHE_BYTES)
            self._env.__enter__()

    def close(self) -> None:
        if self._env is not None:
            self._env.__exit__(None, None, None)
            self._env = None


class _Handle:
    def __init__(self, uri: str, placement: Placement, series: RasterSeries):
        from rasterio.errors import NotGeoreferencedWarning, RasterioError

        self.lock = threading.Lock()
        self.closed = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NotGeoreferencedWarning)  # checked with the headers (--bounds)
                self.dataset = rasterio_module().open(uri)
        except RasterioError as exc:
            raise InputError(f"cannot open {uri}: {exc}; replace the file, or leave it out of the listing") from None
        try:
            self.reader = self.dataset if placement.kind != "warped" else _warped(self.dataset, placement, series)
        except RasterioError as exc:
            self.dataset.close()
            raise InputError(f"cannot warp {uri} onto the grid: {exc}; check its CRS, or warp it first with gdalwarp") from None

    def close(self) -> None:
        with self.lock:
            self.closed = True
            if self.reader is not self.dataset:
                self.reader.close()
            self.dataset.close()


def _warped(dataset: Any, placement: Placement, series: RasterSeries) -> Any:
    from rasterio.enums import ColorInterp
    from rasterio.transform import Affine
    from rasterio.vrt import WarpedVRT

    grid = series.grid
    has_alpha = ColorInterp.alpha in dataset.colorinterp  # then GDAL warps it as the alpha
    options: dict[str, Any] = {}
    if placement.source_crs and not dataset.crs:
        options["src_crs"] = placement.source_crs
    elif placement.source_crs and placement.source_crs.startswith("EPSG:"):
        options["src_crs"] = placement.source_crs  # --crs: the user's statement replaces the file's
    if series.nodata is not None:
        options["src_nodata"] = series.nodata
        options["nodata"] = series.nodata
    if not has_alpha:  # rasterio drops the nodata of a VRT it adds an alpha to: start from 0 (GDAL warns at NO_DATA), the alpha tells
        options |= {"init_dest_nodata": False, "INIT_DEST": "0"}
    return WarpedVRT(
        dataset, crs=grid.crs, transform=Affine(*grid.transform), width=grid.width, height=grid.height,
        resampling=resampling_enum(series.resampling or "nearest"), add_alpha=not has_alpha, **options,
    )


class FrameReads:
    """Windows of timesteps on the grid as (values, validity), the last one kept: the data and
    mask arrays ask for the same window of a timestep one after the other."""

    def __init__(self, series: RasterSeries, files: OpenFiles):
        self.series = series
        self.files = files
        self.fill = np.asarray(0 if series.nodata is None else series.nodata, dtype=series.dtype)
        self.validity = series.needs_mask  # without a mask array only mosaics look at validity
        self._last: tuple[tuple[int, range, range], tuple[np.ndarray, np.ndarray]] | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"series": self.series, "files": self.files}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["series"], state["files"])  # type: ignore[misc]

    def read(self, t: int, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """Every band (band, rows, cols) of timestep t and its validity (rows, cols) as bool."""
        key = (t, rows, cols)
        with self._lock:
            if self._last is not None and self._last[0] == key:
                return self._last[1]
        result = self._mosaic(t, rows, cols)
        with self._lock:
            self._last = (key, result)
        return result

    def scene_window(self, scene: Scene, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """Every band of one scene over the grid window, and where it is valid (covered, no band nodata)."""
        return self._scene(scene, rows, cols, True)

    def asset_window(self, asset: Asset, position: AssetBands, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """The bands of one file over the grid window, and where it has a value."""
        return self._asset(asset, position, rows, cols)

    def _mosaic(self, t: int, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """The first scene as read, then each pixel it lacks from the next scene that has it."""
        scenes = self.series.timesteps[t].scenes
        values, valid = self._scene(scenes[0], rows, cols, self.validity or len(scenes) > 1)
        for scene in scenes[1:]:
            if valid.all():
                break
            scene_values, scene_valid = self._scene(scene, rows, cols, True)
            take = scene_valid & ~valid
            values[:, take] = scene_values[:, take]
            valid |= take
        return values, valid

    def _scene(self, scene: Scene, rows: range, cols: range, validity: bool) -> tuple[np.ndarray, np.ndarray]:
        parts, valid = [], np.ones((len(rows), len(cols)), dtype=bool)
        for asset, position in zip(scene.assets, self.series.positions, strict=False):
            values, inside = self._asset(asset, position, rows, cols)
            parts.append(values)
            valid &= inside
        values = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if validity and self.series.nodata is not None:
            valid &= ~(values == self.fill).any(axis=0)
        return values, valid

    def _asset(self, asset: Asset, position: AssetBands, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """The bands of one file over the grid window, and where it has a value (alpha, footprint)."""
        placement = self.series.placements[asset.uri]
        top, left, height, width = rows.start, cols.start, len(rows), len(cols)
        header = self.series.headers[asset.uri]
        extra = [position.alpha] if position.alpha is not None else []
        if placement.kind == "warped":
            alpha = position.alpha or header.count + 1  # the file's own, else the one the VRT adds
            got = self.files.read(asset.uri, [*position.indexes, alpha], (left, top, width, height))
            return got[: len(position.indexes)], got[-1] != 0
        if placement.kind == "scaled":
            return self._scaled(asset.uri, position, placement, rows, cols)
        values = np.full((len(position.indexes), height, width), self.fill, dtype=self.series.dtype)
        inside = np.zeros((height, width), dtype=bool)
        r0, c0 = max(top - placement.row, 0), max(left - placement.col, 0)
        r1, c1 = min(top + height - placement.row, header.height), min(left + width - placement.col, header.width)
        if r1 > r0 and c1 > c0:
            got = self.files.read(asset.uri, list(position.indexes) + extra, (c0, r0, c1 - c0, r1 - r0))
            at = (slice(r0 + placement.row - top, r1 + placement.row - top), slice(c0 + placement.col - left, c1 + placement.col - left))
            values[(slice(None), *at)] = got[: len(position.indexes)]
            inside[at] = got[-1] != 0 if extra else True
        return values, inside


    def _scaled(self, uri: str, position: AssetBands, placement: Placement, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """A coarser mask file over the grid window: its own pixels under the window read as they
        are and repeated `factor` times each way, where a value is held as GDAL's mask says (what a
        nearest-neighbour WarpedVRT gives, without warping every pixel)."""
        header, f = self.series.headers[uri], placement.factor
        values = np.full((len(position.indexes), len(rows), len(cols)), self.fill, dtype=self.series.dtype)
        inside = np.zeros((len(rows), len(cols)), dtype=bool)
        r0, c0 = max((rows.start - placement.row) // f, 0), max((cols.start - placement.col) // f, 0)
        r1 = min(-(-(rows.stop - placement.row) // f), header.height)
        c1 = min(-(-(cols.stop - placement.col) // f), header.width)
        if r1 <= r0 or c1 <= c0:
            return values, inside
        box = (c0, r0, c1 - c0, r1 - r0)
        got = self.files.read(uri, list(position.indexes), box)
        held = self.files.read_masks(uri, position.indexes[0], box) != 0
        # grid rows/cols of the pixels read, clipped to the window
        top, left = placement.row + r0 * f, placement.col + c0 * f
        y0, x0 = max(rows.start, top), max(cols.start, left)
        y1, x1 = min(rows.stop, placement.row + r1 * f), min(cols.stop, placement.col + c1 * f)
        pick = (slice(y0 - top, y1 - top), slice(x0 - left, x1 - left))
        at = (slice(y0 - rows.start, y1 - rows.start), slice(x0 - cols.start, x1 - cols.start))
        values[(slice(None), *at)] = _repeat(got, f)[(slice(None), *pick)]
        inside[at] = _repeat(held, f)[pick]
        return values, inside


def _repeat(values: np.ndarray, factor: int) -> np.ndarray:
    """Each pixel of the last two axes repeated factor x factor times."""
    return np.repeat(np.repeat(values, factor, axis=-2), factor, axis=-1)


class WindowReads(Protocol):
    """What RasterFrames reads: FrameReads, or a composite's reads (which add `coverage`)."""

    series: RasterSeries

    def read(self, t: int, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]: ...


class RasterFrames(BackendArray):
    """The (time, band, y, x) values of `reads`, or with `mask=True` its (time, y, x) uint8 validity,
    or with `coverage=True` the (time, y, x) uint8 counts its `coverage(t, rows, cols)` gives."""

    def __init__(self, reads: WindowReads, mask: bool = False, coverage: bool = False):
        series = reads.series
        self.reads = reads
        self.coverage = coverage
        mask = mask or coverage
        self.mask = mask
        self.dtype = np.dtype("uint8" if mask else series.dtype)
        self.n_band = sum(len(p.indexes) for p in series.positions)
        planes = (series.grid.height, series.grid.width)
        self.shape = (len(series.timesteps), *planes) if mask else (len(series.timesteps), self.n_band, *planes)

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.BASIC, self._read)

    def _read(self, key: tuple[int | slice, ...]) -> np.ndarray:
        """Basic indexing (integers and slices) as numpy would do it on the whole array."""
        if self.mask:
            key = (key[0], 0, *key[1:])
        full_shape = (self.shape[0], self.n_band, *self.shape[-2:])
        t, b, rows, cols = (range(size)[k] for k, size in zip(key, full_shape, strict=False))
        picked = [t] if isinstance(t, int) else t
        bands = [b] if isinstance(b, int) else list(b)
        row_range, col_range = _as_range(rows), _as_range(cols)
        out = np.empty((len(picked), 1 if self.mask else len(bands), len(row_range), len(col_range)), dtype=self.dtype)
        if out.size:
            box_rows, box_cols = _box(row_range), _box(col_range)
            r, c = _within(row_range, box_rows), _within(col_range, box_cols)
            every_band = bands == list(range(self.n_band))
            for n, i in enumerate(picked):
                if self.coverage:
                    valid = cast(Any, self.reads).coverage(i, box_rows, box_cols)
                    out[n, 0] = valid[r, c] if isinstance(r, slice) and isinstance(c, slice) else valid[r][:, c]
                    continue
                values, valid = self.reads.read(i, box_rows, box_cols)
                if self.mask:
                    out[n, 0] = valid[r, c] if isinstance(r, slice) and isinstance(c, slice) else valid[r][:, c]
                else:
                    chosen = values if every_band else values[bands]
                    out[n] = chosen[:, r, c] if isinstance(r, slice) and isinstance(c, slice) else chosen[:, r][:, :, c]
        squeeze = tuple(0 if isinstance(k, int) else slice(None) for k in (t, b, rows, cols))
        return out[squeeze]


def _as_range(index: int | range) -> range:
    return range(index, index + 1) if isinstance(index, int) else index


def _within(index: range, box: range) -> slice | np.ndarray:
    """The positions of `index` inside `box`: a slice when it walks forward."""
    if index.step > 0:
        return slice(index.start - box.start, index.stop - box.start, index.step)
    return np.asarray(index) - box.start


def _box(index: range) -> range:
    """The increasing contiguous range of rows or columns an index touches."""
    return range(min(index), max(index) + 1)


def lazy_array(frames: RasterFrames, dims: tuple[str, ...], coords: dict[str, np.ndarray]) -> xr.DataArray:
    """The frames as a DataArray that reads on indexing: no dask chunks, so a window asked for is
    the window read, never a whole frame."""
    return xr.DataArray(indexing.LazilyIndexedArray(frames), dims=dims, coords={k: v for k, v in coords.items() if k in dims})
