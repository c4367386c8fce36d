"""The window reads of a temporal composite: for one period and one spatial window, only that
window of each scene of the period is read, judged valid per observation, and reduced per pixel.

An observation is valid at a pixel when the scene covers it, none of its bands is nodata there and
every mask asset allows it (classes kept, bits not set; read onto the grid by nearest neighbour).
Memory holds one window times the scenes of one period. The carry-forward gap fill is the one
dependency between periods: a pixel without a valid observation takes the value of the latest
earlier period that has one: the previous period's result of the same window (kept within a byte
budget) or, when that is gone, found by walking back period by period until every gap
is filled or the series starts; an append carries in the store's last timestep (`carried_in`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..format.observation_masks import MaskRule
from ..format.reducers import carry_forward, coverage_of, reduce_pixels
from .frames import FrameReads
from .raster_bands import AssetBands
from .raster_series import RasterSeries

CARRIED_BYTES = 128 << 20  # the latest filled result of recent windows, kept for their next period
CARRIED_AT_LEAST = 1  # windows kept whatever their size: a unit walks one block's periods in order
CarriedIn = Callable[[range, range], tuple[np.ndarray, np.ndarray]]  # the value before the first period (append)
TILE = 512  # pixels per side of the piece of a window reduced at once
BOA_SHIFT = 1000  # DN: Sentinel-2 baseline 04.00's offset, added to older scenes to put them on its convention


@dataclass(frozen=True)
class PeriodPlan:
    """The scenes of one period in acquisition order, each with the DN shift its values take."""

    scenes: tuple[int, ...]  # indexes into the period's timestep scenes
    shifts: tuple[int, ...]


@dataclass(frozen=True)
class Composited:
    """One period over one window: values (band, y, x), where a value is held, valid observations
    per pixel (the coverage plane's uint8, saturating at 255: a window's int64 counts would be
    four times its uint16 band)."""

    values: np.ndarray
    has: np.ndarray
    count: np.ndarray


@dataclass(frozen=True)
class MaskReader:
    """The mask assets of the scenes, read through `reads` (a FrameReads of the masks' own files)."""

    reads: FrameReads
    rules: tuple[MaskRule, ...]
    position: AssetBands


class CompositeReads:
    """Composited windows of the periods, in the FrameReads form RasterFrames reads (values,
    validity), with `coverage` beside them (what each period holds is counted from the store
    once written: inputs/composite_summary.py)."""

    def __init__(self, series: RasterSeries, frames: FrameReads, reducer: str, gap_fill: str,
                 shifts: Sequence[Sequence[int]], masks: MaskReader | None = None, carried_in: CarriedIn | None = None):
        self.series = series
        self.frames = frames
        self.reducer = reducer
        self.gap_fill = gap_fill
        self.shifts = [tuple(s) for s in shifts]
        self.masks = masks
        self.carried_in = carried_in
        self.fill = np.asarray(0 if series.nodata is None else series.nodata, dtype=series.dtype)
        self._last: OrderedDict[tuple[int, range, range], Composited] = OrderedDict()
        self._carried: OrderedDict[tuple[range, range], tuple[int, Composited]] = OrderedDict()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled for a cluster task: the caches start empty where it runs."""
        return {k: getattr(self, k) for k in ("series", "frames", "reducer", "gap_fill", "shifts", "masks", "carried_in")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def read(self, t: int, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """The composite of period t over the window (band, rows, cols) and where it holds a value."""
        got = self.window(t, rows, cols)
        return got.values, got.has

    def coverage(self, t: int, rows: range, cols: range) -> np.ndarray:
        """Valid observations behind each pixel (rows, cols) uint8, 0 where a value was carried."""
        return coverage_of(self.window(t, rows, cols).count)

    def window(self, t: int, rows: range, cols: range) -> Composited:
        """Period t over the window, gap-filled; the last few are kept (data, mask and coverage ask in turn)."""
        key = (t, rows, cols)
        with self._lock:
            if key in self._last:
                return self._last[key]
        own = self.own(t, rows, cols)
        result = self._filled(t, rows, cols, own) if self.gap_fill == "carry-forward" else own
        with self._lock:
            self._last[key] = result
            while len(self._last) > 2:
                self._last.popitem(last=False)
            if self.gap_fill == "carry-forward":
                self._carried[(rows, cols)] = (t, result)
                self._carried.move_to_end((rows, cols))
                while len(self._carried) > CARRIED_AT_LEAST and sum(c.values.nbytes + c.has.nbytes for _, c in self._carried.values()) > CARRIED_BYTES:
                    self._carried.popitem(last=False)
        return result

    def own(self, t: int, rows: range, cols: range) -> Composited:
        """Period t reduced over its own valid observations, no gap fill: a tile at a time, so
        memory holds every scene of one tile and the reducer's copies of it, never of the window."""
        reduced: np.ndarray | None = None
        count = np.empty((len(rows), len(cols)), dtype=np.uint8)
        for tile_rows in tiles(rows):
            for tile_cols in tiles(cols):
                values, valid = self.observations(t, tile_rows, tile_cols)
                got, got_count = reduce_pixels(values, valid, self.reducer, self.fill.item())
                if reduced is None:
                    reduced = np.empty((got.shape[0], len(rows), len(cols)), dtype=got.dtype)
                at = (slice(tile_rows.start - rows.start, tile_rows.stop - rows.start),
                      slice(tile_cols.start - cols.start, tile_cols.stop - cols.start))
                reduced[(slice(None), *at)] = got
                count[at] = coverage_of(got_count)
        assert reduced is not None  # tiles() gives at least one tile
        return Composited(reduced, count > 0, count)

    def observations(self, t: int, rows: range, cols: range) -> tuple[np.ndarray, np.ndarray]:
        """Every scene of period t over the window: values (scene, band, y, x), validity (scene, y, x)."""
        scenes = self.series.timesteps[t].scenes
        values, valid = [], []
        for scene, shift in zip(scenes, self.shifts[t], strict=True):
            v, ok = self.frames.scene_window(scene, rows, cols)
            if self.masks is not None:
                for rule, asset in zip(self.masks.rules, scene.masks, strict=True):
                    m, inside = self.masks.reads.asset_window(asset, self.masks.position, rows, cols)
                    ok &= inside & rule.allows(m[0])
            if shift:
                v = shifted(v, ok, shift, scene.label)
            values.append(v)
            valid.append(ok)
        return np.stack(values), np.stack(valid)

    def _filled(self, t: int, rows: range, cols: range, own: Composited) -> Composited:
        """`own` with its gaps carried forward from the latest earlier period holding a value."""
        values, has = own.values, own.has
        with self._lock:
            before = self._carried.get((rows, cols))
        if before is not None and before[0] == t - 1:
            values, has = carry_forward(values, has, before[1].values, before[1].has)
            return Composited(values, has, own.count)
        for earlier in range(t - 1, -1, -1):
            if has.all():
                break
            got = self.own(earlier, rows, cols)
            values, has = carry_forward(values, has, got.values, got.has)
        if self.carried_in is not None and not has.all():
            values, has = carry_forward(values, has, *self.carried_in(rows, cols))
        return Composited(values, has, own.count)


def tiles(index: range) -> list[range]:
    """A contiguous range of rows or columns cut at the multiples of TILE (on the grid, so a tile
    meets as few of a COG's internal tiles as it can); an empty range is its own one tile."""
    edges = [index.start, *range((index.start // TILE + 1) * TILE, index.stop, TILE), index.stop]
    return [range(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a] or [index]


def shifted(values: np.ndarray, valid: np.ndarray, shift: int, label: str) -> np.ndarray:
    """Values plus `shift` DN where valid, refused (naming the pixels) rather than wrapped."""
    info = np.iinfo(values.dtype) if values.dtype.kind in "iu" else None
    wide = values.astype(np.int64) + shift
    if info is not None:
        over = valid[None] & ((wide > info.max) | (wide < info.min))
        if over.any():
            band, y, x = (int(i[0]) for i in np.nonzero(over))
            raise InputError(
                f"{label}: shifting by {shift:+d} DN to one processing-baseline convention leaves the {values.dtype} range at "
                f"{int(over.sum())} pixel(s) (first: band {band}, row {y}, column {x} of the window); "
                "give --harmonize none to keep each scene's values as delivered"
            )
    return np.where(valid[None], wide, values).astype(values.dtype)
