"""An area's series from a store (issue 39): the area placed on a level by format/region.py, the
pixels read a few timesteps at a time by the store's region reader (or, at a level with a
time-major history, from that array: every date in a few range reads), and summarised by
format/region_stats.py. A history that cannot be read is named once (HistoryWarning) and the
level's chunks answer.

Memory is bounded by the work unit: WORK_BYTES of float64 planes per read (the area's window times
the timesteps of one batch, or one cell at a time when the window alone is larger), or one strip
of history inner chunks.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np
import xarray as xr

from ..errors import HistoryWarning, InputError, StoreError
from ..extras import import_extra
from ..format.geometry import Level
from ..format.metadata import Band
from ..format.region import Area, area_of, choose_level, holds, window
from ..format.region_stats import Quantity, Summary, planes, quantities
from .history import HistoryReader


class SeriesSource(Protocol):
    """What a series needs of read.dataset.ChronoDataset (which imports this module)."""

    deadline: float | None

    def history_at(self, level: int) -> tuple[HistoryReader | None, HistoryReader | None]: ...

    @property
    def times(self) -> np.ndarray: ...

    @property
    def bands(self) -> list[Band]: ...

    @property
    def levels(self) -> list[Level]: ...

    @property
    def crs(self) -> str | None: ...

    def validity(self, values: np.ndarray, mask: np.ndarray | None) -> np.ndarray: ...

    def read_region(self, array: str, steps: Sequence[int], rows: slice, cols: slice, lod: int = 0) -> np.ndarray: ...

WORK_BYTES = 64 * 2**20
Reader = Callable[[list[int], slice, slice], tuple[np.ndarray, np.ndarray | None]]  # (steps, rows, cols) -> (data, mask)


def area_in_dataset_crs(store: SeriesSource, geometry: Any, crs: str | None) -> Area:
    """The geometry as an Area in the store's CRS, reprojected with pyproj from `crs` when given."""
    area = area_of(geometry)
    if crs is None or store.crs is None or str(crs).upper() == str(store.crs).upper():
        return area
    pyproj = import_extra("pyproj", "geo", "an area in another CRS")
    try:
        transformer = pyproj.Transformer.from_crs(pyproj.CRS.from_user_input(crs), pyproj.CRS.from_user_input(store.crs), always_xy=True)
    except pyproj.exceptions.CRSError:
        raise InputError(f"unknown CRS {crs!r}: name one pyproj knows, such as EPSG:4326") from None

    def project(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = transformer.transform(xs, ys)
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            raise InputError(f"the area cannot be placed in the store's CRS {store.crs}: check that its coordinates are in {crs}")
        return x, y

    return area.mapped(project)


def pieces(area: Area, level: Level, span: tuple[slice, slice]) -> list[tuple[slice, slice, np.ndarray]]:
    """(rows, cols, held) per cell under the window, row-major: the cell's part of the window cut to
    the pixels the area holds, and which of them it holds. Cells it holds none of are left out."""
    out = []
    for row, col in level.cells_under(*span):
        _, _, rows, cols = level.overlap(row, col, *span)
        rows = slice(rows.start + span[0].start, rows.stop + span[0].start)
        cols = slice(cols.start + span[1].start, cols.stop + span[1].start)
        held = holds(area, level, rows, cols)
        ys, xs = np.flatnonzero(held.any(axis=1)), np.flatnonzero(held.any(axis=0))
        if ys.size:
            top, left = int(ys[0]), int(xs[0])
            held = held[top : int(ys[-1]) + 1, left : int(xs[-1]) + 1]
            out.append((slice(rows.start + top, rows.start + top + held.shape[0]), slice(cols.start + left, cols.start + left + held.shape[1]), held))
    return out


def _batches(n: int, size: int) -> Iterator[slice]:
    for start in range(0, n, size):
        yield slice(start, min(n, start + size))


def _summarise(store: SeriesSource, level: Level, parts: list[tuple[slice, slice, np.ndarray]], wanted: list[Quantity], read: Reader) -> Summary:
    """Every piece of every batch of timesteps merged in order (batches, then cells row-major)."""
    steps = list(range(len(store.times)))
    summary = Summary(len(steps), len(wanted))
    n_band = len(store.bands)
    top, left = min(r.start for r, _, _ in parts), min(c.start for _, c, _ in parts)
    bottom, right = max(r.stop for r, _, _ in parts), max(c.stop for _, c, _ in parts)
    per_step = (bottom - top) * (right - left) * (n_band + len(wanted)) * 8
    whole = per_step <= WORK_BYTES
    cell = level.chunk_size**2 * (n_band + len(wanted)) * 8
    batch = max(1, WORK_BYTES // (per_step if whole else cell))
    for at in _batches(len(steps), batch):
        picked = steps[at]
        if whole:
            stored, mask = read(picked, slice(top, bottom), slice(left, right))
        for rows, cols, held in parts:
            if whole:
                sub = (..., slice(rows.start - top, rows.stop - top), slice(cols.start - left, cols.stop - left))
                piece, piece_mask = stored[sub], None if mask is None else mask[sub]
            else:
                piece, piece_mask = read(picked, rows, cols)
            values, ok = planes(piece, store.validity(piece, piece_mask), store.bands, wanted)
            summary.add(at, values, ok & held)
    return summary


def region_series(store: SeriesSource, geometry: Any, *, lod: int | None = None, crs: str | None = None, bands: Sequence[str] | None = None) -> xr.Dataset:
    """mean, std, min, max and valid_pixels per (time, band) of the area's valid pixels; see
    ChronoDataset.read_region_series."""
    area = area_in_dataset_crs(store, geometry, crs)
    wanted = quantities(store.bands, None if bands is None else list(bands))
    level = choose_level(area, store.levels, lod)
    span = window(area, level)
    parts = [] if span is None else pieces(area, level, span)
    if not parts:
        raise InputError(
            f"the area holds no pixel centre at level {level.index} ({level.resolution:g} per pixel): "
            "enlarge it, give a point, or choose a finer level"
        )
    history, history_mask = store.history_at(level.index)
    summary = None
    if history is not None and (history_mask is not None or level.mask is None):
        try:
            summary = _from_history(store, history, history_mask, parts, wanted)
        except StoreError as exc:
            warnings.warn(f"level {level.index}'s history array cannot be read ({exc}); the series is read from its chunks", HistoryWarning, stacklevel=3)
    from_history = summary is not None
    if summary is None:
        summary = _summarise(store, level, parts, wanted, _chunk_reader(store, level))
    stats = summary.result()
    held = sum(int(h.sum()) for _, _, h in parts)
    return _dataset(store, level, wanted, stats, held, from_history)


def _chunk_reader(store: SeriesSource, level: Level) -> Reader:
    def read(steps: list[int], rows: slice, cols: slice) -> tuple[np.ndarray, np.ndarray | None]:
        data = store.read_region("data", steps, rows, cols, level.index)
        mask = store.read_region("mask", steps, rows, cols, level.index) if level.mask is not None else None
        return data, mask

    return read


def _from_history(
    store: SeriesSource, history: HistoryReader, history_mask: HistoryReader | None, parts: list[tuple[slice, slice, np.ndarray]], wanted: list[Quantity]
) -> Summary:
    """Every date at once from the history array, a strip of rows at a time (whole inner chunks
    tall, WORK_BYTES of planes): each inner chunk holds every date of its pixels, so a strip is
    read once, not once per batch of dates."""
    from ..store.deadline import call_deadline

    steps = list(range(len(store.times)))
    summary = Summary(len(steps), len(wanted))
    top, left = min(r.start for r, _, _ in parts), min(c.start for _, c, _ in parts)
    bottom, right = max(r.stop for r, _, _ in parts), max(c.stop for _, c, _ in parts)
    p = history.layout.inner
    row_bytes = (right - left) * len(steps) * (len(store.bands) + len(wanted)) * 8
    tall = max(p, WORK_BYTES // max(1, row_bytes) // p * p)
    for y0 in range(top // p * p, bottom, tall):
        strip = slice(max(y0, top), min(y0 + tall, bottom))
        with call_deadline(store.deadline):
            data = history.window(strip, slice(left, right), steps)
            mask = None if history_mask is None else history_mask.window(strip, slice(left, right), steps)
        for rows, cols, held in parts:
            a, b = max(rows.start, strip.start), min(rows.stop, strip.stop)
            if a >= b:
                continue
            sub = (..., slice(a - strip.start, b - strip.start), slice(cols.start - left, cols.stop - left))
            piece, piece_mask = data[sub], None if mask is None else mask[sub]
            values, ok = planes(piece, store.validity(piece, piece_mask), store.bands, wanted)
            summary.add(slice(None), values, ok & held[a - rows.start : b - rows.start])
    return summary


def _dataset(store: SeriesSource, level: Level, wanted: list[Quantity], stats: dict[str, np.ndarray], held: int, from_history: bool) -> xr.Dataset:
    dims = ("time", "band")
    data_vars: dict[str, Any] = {name: (dims, stats[name]) for name in ("mean", "std", "min", "max", "valid_pixels")}
    pixel_area = abs(level.transform[0] * level.transform[4])
    water = [q for q, quantity in enumerate(wanted) if quantity.product == "water"]
    if water and _metres(store.crs):
        area = np.full(stats["sum"].shape, np.nan)
        area[:, water] = stats["sum"][:, water] * pixel_area / 1e6
        data_vars["water_km2"] = (dims, area)
    attrs = {
        "level": level.index,
        "pixel_size": float(level.resolution),
        "pixel_area": float(pixel_area),
        "region_pixels": held,
        "crs": store.crs or "",
        "source": "history" if from_history else "chunks",
    }
    coords = {"time": store.times, "band": [q.name for q in wanted]}
    return xr.Dataset(data_vars, coords=coords, attrs=attrs)


def _metres(crs: str | None) -> bool:
    """Whether the store's CRS is in metres, so a pixel's area in km2 is its width x height / 1e6."""
    if crs is None:
        return False
    try:
        pyproj = import_extra("pyproj", "geo", "a water area")
        units = pyproj.CRS.from_user_input(crs).axis_info
    except Exception:  # noqa: BLE001 - without a CRS that pyproj knows the area is simply not given
        return False
    return bool(units) and all(a.unit_name in ("metre", "meter") for a in units)
