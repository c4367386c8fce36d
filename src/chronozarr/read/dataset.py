"""ChronoDataset: exact stored values of any timestep, cell, window or pixel history."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..errors import OutOfRangeError, StoreError, UnknownNameError
from ..format.array_doc import ArrayDocument
from ..format.geometry import Level
from ..format.metadata import Band, Temporal
from ..format.temporal import STAR_DELTA
from ..store import ObjectStore, RequestStats, counted, is_remote, not_a_directory, open_object_store
from ..store.deadline import call_deadline
from .attributes import DatasetAttrs
from .coordinates import level_attrs, level_coords
from .history import HistoryReader, history_readers, warn_unusable
from .metadata import DatasetMetadata, load
from .physical import physical_values, validity
from .region import RegionReader
from .region_series import region_series
from .request import check_cell, request_window


class ChronoDataset:
    """The dataset a chronozarr store holds, opened for reading from a directory or a URL (the
    store is the objects, `self.source`; this is what they say: times, bands, levels, values).

    Values are the stored values (reconstructed under star-delta), cropped to the array. Use it as
    a context manager or call close() to stop its request threads.
    """

    def __init__(
        self,
        location: str | os.PathLike[str] | ObjectStore,
        *,
        concurrency: int | None = None,
        cache_bytes: int = 512 * 2**20,
        **source_options: Any,
    ) -> None:
        remote = is_remote(location)
        if concurrency is None:
            # Over a network many requests wait at once; on disk, threads beyond the cores only contend.
            concurrency = 16 if remote else max(2, os.cpu_count() or 2)
        if isinstance(location, (str, os.PathLike)):
            if not remote and "://" not in os.fspath(location) and not os.path.isdir(location):
                raise StoreError(f"no store at {os.fspath(location)!r}: {not_a_directory(location)}")
            if remote:
                source_options.setdefault("concurrency", concurrency)
            location = open_object_store(location, **source_options)
        self.source = counted(location)  # store.stats counts the requests of any backend
        self.deadline: float | None = getattr(self.source, "deadline", None)
        with call_deadline(self.deadline):
            self.meta: DatasetMetadata = load(self.source)
        temporal = self.meta.temporal
        star = (frozenset(temporal.anchor_indices), temporal.reference) if temporal.encoding == STAR_DELTA else None
        self.region = RegionReader(
            self.source, concurrency=concurrency, anchor_bytes=cache_bytes, shard_bytes=self.meta.shard_bytes,
            data_variable=self.meta.variable, star_delta=star,
        )
        if self.meta.history_problem is not None:
            warn_unusable(self.meta.history_problem, self.source.describe("zarr.json"))
        self.history: HistoryReader | None = None
        self.history_mask: HistoryReader | None = None
        self.histories: dict[int, tuple[HistoryReader, HistoryReader | None]] = {}  # by level, level 0's included
        history = self.meta.history
        if history is not None:
            for level, why in history.coarse_problems:
                warn_unusable(why, self.source.describe("zarr.json"), level=level)
            for level in history.layout.levels:
                found = history.at(level)
                if found is not None:
                    self.histories[level] = history_readers(self.source, found, self.region.pool)
            self.history, self.history_mask = self.histories[0]

    def history_at(self, level: int) -> tuple[HistoryReader | None, HistoryReader | None]:
        """The readers of `level`'s history (data, mask copy); (None, None) when it has none."""
        return self.histories.get(level, (None, None))

    # -- description -------------------------------------------------------------------------

    @property
    def times(self) -> np.ndarray:
        """Timestamps as numpy datetime64[ms]."""
        return self.meta.times

    @property
    def times_iso(self) -> list[str]:
        """Timestamps as ISO-8601 strings, the JS reader's `times` (and `timesIso`)."""
        return list(self.meta.times_iso)

    @property
    def bands(self) -> list[Band]:
        return list(self.meta.bands)

    @property
    def band_names(self) -> list[str]:
        return [b.name for b in self.meta.bands]

    @property
    def dtype(self) -> np.dtype:
        return self.meta.dtype

    @property
    def crs(self) -> str | None:
        return self.meta.crs

    @property
    def nodata(self) -> float | int | None:
        return self.meta.nodata

    @property
    def encoding(self) -> str:
        return self.meta.temporal.encoding

    @property
    def temporal(self) -> Temporal:
        return self.meta.temporal

    @property
    def anchor_indices(self) -> list[int]:
        return list(self.meta.temporal.anchor_indices)

    def reference_of(self, t: int) -> int | None:
        """The anchor timestep t decodes through, or None when it holds true values (JS `referenceOf`)."""
        return self.meta.temporal.delta_reference.get(self._t(t))

    @property
    def attrs(self) -> DatasetAttrs:
        """The root `chronozarr` block, bands as Band objects (`attrs.bands[0].scale`), as in JS."""
        return DatasetAttrs(self.meta.attrs.get("chronozarr", {}), self.meta.bands, self.meta.attrs)

    @property
    def root_attrs(self) -> Mapping[str, Any]:
        """Every attribute of the root group (`chronozarr`, `multiscales`, ...), as stored."""
        return self.meta.attrs

    @property
    def has_mask(self) -> bool:
        return self.meta.mask_variable is not None

    @property
    def has_coverage(self) -> bool:
        return self.meta.coverage_variable is not None

    @property
    def stats(self) -> RequestStats:
        """Live request counters; `store.stats()` is a snapshot dict under the JS reader's names."""
        return self.source.stats

    @property
    def levels(self) -> list[Level]:
        return list(self.meta.levels)

    def level(self, lod: int) -> Level:
        """Level `lod`, with its array documents; an IndexError naming the levels there are."""
        if not isinstance(lod, (int, np.integer)) or not 0 <= lod < len(self.meta.levels):
            raise OutOfRangeError(f"level {lod!r} does not exist; the store has levels 0..{len(self.meta.levels) - 1}")
        return self.meta.levels[int(lod)]

    def level_for_resolution(self, resolution: float) -> int:
        """The coarsest level whose resolution does not exceed the one asked for (spec 10.3)."""
        fitting = [level.index for level in self.meta.levels if level.resolution <= resolution]
        return max(fitting) if fitting else 0

    def __repr__(self) -> str:
        t = self.meta.times_iso
        return (
            f"<ChronoDataset {self.source.describe('')!r} {len(t)} times {t[0]}..{t[-1]}, bands {self.band_names}, "
            f"{self.dtype}, {self.encoding}, {len(self.meta.levels)} levels>"
        )

    # -- reading -----------------------------------------------------------------------------

    def read(self, t: int, lod: int = 0, bands: Sequence[int | str] | None = None, window: Any = None) -> np.ndarray:
        """Stored values (band, y, x) of timestep t at a level, whole or within a window."""
        level = self.level(lod)
        rows, cols = request_window(level, window)
        values = self._gather(level, level.data_array, [self._t(t)], rows, cols)[0]
        return values[self._band_indices(bands)] if bands is not None else values

    def read_region(self, array: str, steps: Sequence[int], rows: slice, cols: slice, lod: int = 0) -> np.ndarray:
        """Stored values (len(steps), [band,] y, x) of a level's "data", "mask" or "coverage" array
        over the pixel slices rows x cols, star-delta reconstructed: the region read the xarray
        engine and the validator use; a KeyError when the store has no such array."""
        level = self.level(lod)
        doc = level.array(array)
        if doc is None:
            raise UnknownNameError(f"the store has no {array} array")
        for name, span, size in (("rows", rows, level.height), ("cols", cols, level.width)):
            ends = (span.start, span.stop)
            if span.step not in (None, 1) or not all(isinstance(v, (int, np.integer)) for v in ends) or not 0 <= ends[0] <= ends[1] <= size:
                raise OutOfRangeError(f"{name} {span} are not pixels of level {level.index} ({level.height} x {level.width})")
        picked = self._times(steps)
        if not picked:
            return np.empty((0, *doc.shape[1:-2], rows.stop - rows.start, cols.stop - cols.start), dtype=doc.dtype)
        return self._gather(level, doc, picked, rows, cols)

    def read_cell(self, t: int, row: int, col: int, lod: int = 0) -> np.ndarray:
        """Stored values (band, y, x) of one cell, cropped to the array."""
        level = self.level(lod)
        check_cell(level, row, col)
        return self._gather(level, level.data_array, [self._t(t)], *level.cell_slice(row, col))[0]

    def read_mask(self, t: int, lod: int = 0, window: Any = None) -> np.ndarray | None:
        """Mask (y, x) of timestep t (1 valid, 0 invalid), or None when the store has none."""
        level = self.level(lod)
        if level.mask is None:
            return None
        return self._gather(level, level.mask, [self._t(t)], *request_window(level, window))[0]

    def read_coverage(self, t: int, lod: int = 0, window: Any = None) -> np.ndarray | None:
        """Coverage (y, x) of timestep t (valid observations), or None when the store has none."""
        level = self.level(lod)
        if level.coverage is None:
            return None
        return self._gather(level, level.coverage, [self._t(t)], *request_window(level, window))[0]

    def read_point(self, row: int, col: int, lod: int = 0, times: Sequence[int] | None = None) -> np.ndarray:
        """The (time, band) history of one pixel; from the level's history array when the store
        has one there (one index read per time block, cached, and one range read per block)."""
        level = self.level(lod)
        self._check_pixel(level, row, col)
        steps = self._times(times)
        history, _ = self.history_at(level.index)
        if history is not None:
            with call_deadline(self.deadline):
                return history.point(int(row), int(col), steps)
        return self._gather(level, level.data_array, steps, slice(row, row + 1), slice(col, col + 1))[:, :, 0, 0]

    def read_pixel(self, t: int, row: int, col: int, lod: int = 0) -> np.ndarray:
        """The bands (band,) of one pixel at timestep t: read_cell's order, JS readPixel(lod, row, col, t)."""
        return self.read_point(row, col, lod, times=[t])[0]

    def read_point_mask(self, row: int, col: int, lod: int = 0, times: Sequence[int] | None = None) -> np.ndarray | None:
        """The mask history (time,) of one pixel, or None without a mask; from the level's
        history mask copy when the store has one (the same two reads as read_point's)."""
        level = self.level(lod)
        if level.mask is None:
            return None
        self._check_pixel(level, row, col)
        steps = self._times(times)
        _, history_mask = self.history_at(level.index)
        if history_mask is not None:
            with call_deadline(self.deadline):
                return history_mask.point(int(row), int(col), steps)
        return self._gather(level, level.mask, steps, slice(row, row + 1), slice(col, col + 1))[:, 0, 0]

    def read_region_series(
        self, geometry: Any, *, lod: int | None = None, crs: str | None = None, bands: Sequence[str] | None = None
    ) -> xr.Dataset:
        """An area's series: mean, std (population), min, max and valid_pixels on (time, band) over
        the valid pixels whose centres it holds, in physical units; the level and pixel size in attrs.
        `geometry`: (west, south, east, north), a GeoJSON Polygon, MultiPolygon or Point, or a
        shapely geometry, in `crs` (default the store's); `bands`: band names and products
        (ndvi, ndwi, water); `lod`: the level, else the finest within PIXEL_BUDGET (format/region.py)."""
        return region_series(self, geometry, lod=lod, crs=crs, bands=bands)

    def validity(self, values: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """Validity of stored values by spec 2.3, broadcast to their shape (band axis before y, x)."""
        return validity(values, mask, self.nodata)

    def physical(self, values: np.ndarray, valid: np.ndarray, band_axis: int) -> np.ndarray:
        """stored * scale + offset per band, NaN where invalid (spec 3.6), in physical_dtype."""
        return physical_values(values, valid, self.meta.bands, band_axis)

    def to_xarray(self, lod: int = 0, times: Sequence[int] | None = None, physical: bool = False) -> xr.DataArray:
        """A level in memory as a (time, band, y, x) DataArray with coordinates; a store with a mask
        adds it as the (time, y, x) coordinate `mask` (1 valid), as the water-mask guide uses it."""
        level = self.level(lod)
        steps = self._times(times)
        coords: dict[str, Any] = self.coords(lod, steps)  # before the read: a time axis xarray cannot hold fails fast
        whole = (slice(0, level.height), slice(0, level.width))
        values = self._gather(level, level.data_array, steps, *whole)
        mask = None if level.mask is None else self._gather(level, level.mask, steps, *whole)
        if mask is not None:
            coords["mask"] = (("time", "y", "x"), mask)
        if physical:
            values = self.physical(values, self.validity(values, mask), band_axis=1)
        return xr.DataArray(values, dims=("time", "band", "y", "x"), coords=coords, attrs=level_attrs(level, self.crs, self.nodata))

    def coords(self, lod: int, steps: Sequence[int] | None = None) -> dict[str, Any]:
        """time, band, y and x coordinate values of a level."""
        return level_coords(self.level(lod), self.meta.times if steps is None else self.meta.times[list(steps)], self.band_names)

    def level_attrs(self, lod: int) -> dict[str, Any]:
        """The attributes xarray gives a level: transform, resolution, crs and nodata."""
        return level_attrs(self.level(lod), self.crs, self.nodata)

    def close(self) -> None:
        self.region.close()

    def __enter__(self) -> ChronoDataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------------

    @staticmethod
    def _check_pixel(level: Level, row: int, col: int) -> None:
        if not (0 <= row < level.height and 0 <= col < level.width):
            raise OutOfRangeError(f"pixel ({row}, {col}) is outside level {level.index} ({level.height} x {level.width})")

    def _t(self, t: int) -> int:
        n = len(self.meta.times)
        if not isinstance(t, (int, np.integer)) or not -n <= t < n:
            raise OutOfRangeError(f"timestep {t!r} does not exist; the store has {n} timesteps")
        return int(t) % n

    def _times(self, times: Sequence[int] | None) -> list[int]:
        return list(range(len(self.meta.times))) if times is None else [self._t(t) for t in times]

    def _band_indices(self, bands: Sequence[int | str]) -> list[int]:
        names = self.band_names
        out = []
        for b in bands:
            if isinstance(b, str):
                if b not in names:
                    raise UnknownNameError(f"band {b!r} is not in the store; its bands are {names}")
                out.append(names.index(b))
            else:
                out.append(int(b))
        return out

    def _gather(self, level: Level, array: ArrayDocument, steps: list[int], rows: slice, cols: slice) -> np.ndarray:
        """Assemble (len(steps), [band,] h, w) from the chunks covering the region, reconstructing
        star-delta timesteps of the data array through their recorded anchor; every read goes
        through here, so every read's requests share one deadline."""
        with call_deadline(self.deadline):
            return self.region.read(level, array, steps, rows, cols)


def open_dataset(location: str | os.PathLike[str] | ObjectStore, **options: Any) -> ChronoDataset:
    """Open the dataset of a store in a directory or at an HTTP(S), s3://, gs:// or az:// URL (options:
    concurrency, cache_bytes, max_object_bytes; for HTTP timeout, retries, backoff, deadline,
    forbidden_is_not_found, headers; for object stores endpoint, region, anonymous, config).

    Over HTTP `timeout` (10 s) bounds every wait of a request: connecting, the first byte of the
    answer and each pause in its body; a failed attempt is retried `retries` (3) times, so a
    server that never answers fails a request after about 42 s; `deadline` (50 s) bounds all the
    requests of one call (opening, a read), however many objects it needs. See docs/reliability.md."""
    return ChronoDataset(location, **options)
