"""Grid geometry of a store: levels, cells, chunk and shard keys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import SettingError, UnknownNameError
from .array_doc import ArrayDocument, object_key

Transform = tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class Level:
    """One pyramid level: its shape and georeferencing, and, when read from a store, its array
    documents and the resolution the store states (which the writer makes |a|; a reader shows
    what the store says)."""

    index: int
    height: int
    width: int
    chunk_size: int
    transform: Transform
    stated_resolution: float | None = field(default=None, compare=False)
    data: ArrayDocument | None = field(default=None, compare=False)
    mask: ArrayDocument | None = field(default=None, compare=False)
    coverage: ArrayDocument | None = field(default=None, compare=False)

    @classmethod
    def of_arrays(
        cls, index: int, transform: Transform, resolution: float, data: ArrayDocument, mask: ArrayDocument | None, coverage: ArrayDocument | None
    ) -> Level:
        """A level as a store holds it: its size and chunk size are its (time, band, y, x) data array's."""
        _, _, height, width = data.shape
        return cls(index, height, width, data.chunk_shape[2], transform, resolution, data, mask, coverage)

    @property
    def path(self) -> str:
        return str(self.index)

    @property
    def data_array(self) -> ArrayDocument:
        """The data array's document, for a level read from a store."""
        assert self.data is not None, "a level built by the writer has no array documents"
        return self.data

    def array(self, role: str) -> ArrayDocument | None:
        """The "data", "mask" or "coverage" array's document (None when the store has none); a
        KeyError for any other name."""
        if role not in ("data", "mask", "coverage"):
            raise UnknownNameError(f"a level's arrays are data, mask and coverage, not {role!r}")
        return {"data": self.data, "mask": self.mask, "coverage": self.coverage}[role]

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """(n_time, n_band, height, width) of a level read from a store."""
        return self.data_array.shape  # type: ignore[return-value]  # the reader refuses a data array that is not 4-D

    @property
    def sharded(self) -> bool:
        return self.data_array.sharded

    @property
    def grid_rows(self) -> int:
        """Rows of cells (JS `gridRows`)."""
        return self.rows

    @property
    def grid_cols(self) -> int:
        """Columns of cells (JS `gridCols`)."""
        return self.cols

    @property
    def rows(self) -> int:
        return self.grid[0]

    @property
    def cols(self) -> int:
        return self.grid[1]

    @property
    def grid(self) -> tuple[int, int]:
        rows, cols = chunk_grid((self.height, self.width), (self.chunk_size, self.chunk_size))
        return (rows, cols)

    @property
    def resolution(self) -> float:
        return abs(self.transform[0]) if self.stated_resolution is None else self.stated_resolution

    def cells(self) -> list[tuple[int, int]]:
        """Every (row, col) of the cell grid in row-major order."""
        return [(r, c) for r in range(self.rows) for c in range(self.cols)]

    def cell_slice(self, row: int, col: int) -> tuple[slice, slice]:
        """Array slices (y, x) of a cell, cropped to the array."""
        cs = self.chunk_size
        return (
            slice(row * cs, min((row + 1) * cs, self.height)),
            slice(col * cs, min((col + 1) * cs, self.width)),
        )

    def cells_under(self, rows: slice, cols: slice) -> list[tuple[int, int]]:
        """The (row, col) of every cell a non-empty pixel window touches, row-major."""
        cs = self.chunk_size
        return [(r, c) for r in range(rows.start // cs, -(-rows.stop // cs)) for c in range(cols.start // cs, -(-cols.stop // cs))]

    def overlap(self, row: int, col: int, rows: slice, cols: slice) -> tuple[slice, slice, slice, slice]:
        """Where a cell meets a pixel window: (y, x) slices within the cell's chunk, then (y, x)
        slices within the window."""
        cell_rows, cell_cols = self.cell_slice(row, col)
        top, left = max(rows.start, cell_rows.start), max(cols.start, cell_cols.start)
        bottom, right = min(rows.stop, cell_rows.stop), min(cols.stop, cell_cols.stop)
        return (
            slice(top - cell_rows.start, bottom - cell_rows.start), slice(left - cell_cols.start, right - cell_cols.start),
            slice(top - rows.start, bottom - rows.start), slice(left - cols.start, right - cols.start),
        )

    def parent_window(self, rows: slice, cols: slice) -> tuple[slice, slice]:
        """The pixels of this level under a window of the level above: the 2 x 2 blocks whose
        means it holds (spec 6), cropped where this level ends."""
        return (
            slice(2 * rows.start, min(2 * rows.stop, self.height)),
            slice(2 * cols.start, min(2 * cols.stop, self.width)),
        )

    def x_centres(self) -> np.ndarray:
        a, _, c, *_ = self.transform
        return pixel_centres(c, a, self.width)

    def y_centres(self) -> np.ndarray:
        *_, e, f = self.transform
        return pixel_centres(f, e, self.height)

    def bbox(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of the level's pixel edges."""
        a, _, c, _, e, f = self.transform
        xs = (c, c + a * self.width)
        ys = (f, f + e * self.height)
        return (min(xs), min(ys), max(xs), max(ys))


def size_text(width: int, height: int, unit: str = "px") -> str:
    """A raster's size as every command prints it: width first, as GDAL does, and labelled."""
    return f"{width} x {height} {unit} (width x height)"


def grid_text(width: int, height: int, transform: Sequence[float], crs: str) -> str:
    """A north-up grid as the dry runs print it: size, pixel size, CRS and north-west corner."""
    a, _, west, _, e, north = transform
    return f"{size_text(width, height)}, pixels of {a:g} x {-e:g} in {crs}, north-west corner ({west:.12g}, {north:.12g})"


def chunk_grid(shape: Sequence[int], chunks: Sequence[int]) -> tuple[int, ...]:
    """Chunks along each axis: ceil(extent / chunk), 0 for an empty axis (spec 2.1)."""
    return tuple(-(-s // c) if s else 0 for s, c in zip(shape, chunks, strict=False))


def pixel_centres(origin: float, step: float, n: int) -> np.ndarray:
    """The x or y coordinates of n pixels: origin + (i + 0.5) * step (spec 2.2)."""
    return origin + (np.arange(n) + 0.5) * step


def level_transform(base: Transform, k: int) -> Transform:
    """Transform of level k: pixel size times 2^k, origin kept (spec 3.3)."""
    a, b, c, d, e, f = base
    s = 2**k
    return (a * s, b, c, d, e * s, f)


def next_level_extent(height: int, width: int) -> tuple[int, int]:
    """Level k+1's height and width from level k's: ceil(H / 2), ceil(W / 2) (spec 6)."""
    return -(-height // 2), -(-width // 2)


def pyramid_levels(
    height: int, width: int, chunk_size: int, transform: Transform, max_levels: int | None = None
) -> list[Level]:
    """Levels 0..K, halving (ceil) until the first 1 x 1 cell grid (spec 6)."""
    if chunk_size <= 0 or chunk_size % 2:
        raise SettingError(f"chunk size must be a positive even number, got {chunk_size}")
    levels: list[Level] = []
    h, w, k = height, width, 0
    while True:
        level = Level(k, h, w, chunk_size, level_transform(transform, k))
        levels.append(level)
        if level.grid == (1, 1) or (max_levels is not None and len(levels) >= max_levels):
            return levels
        (h, w), k = next_level_extent(h, w), k + 1


def time_shard(t: int, shard_time: int) -> tuple[int, int]:
    """(time shard index, inner position) of timestep t (spec 7.1)."""
    return divmod(t, shard_time)


def cell_indices(t_index: int, row: int, col: int, has_band: bool) -> tuple[int, ...]:
    """Grid indices of a cell's object: the data array has a band axis of one chunk (spec 2.1),
    mask and coverage have none (spec 2.4)."""
    return (t_index, 0, row, col) if has_band else (t_index, row, col)


def cell_key(array_path: str, t_index: int, row: int, col: int, has_band: bool) -> str:
    """Key of a cell's chunk (unsharded: t_index is the timestep) or shard (t_index is the time shard)."""
    return object_key(array_path, cell_indices(t_index, row, col, has_band))


def key_indices(key: str) -> tuple[str, list[str]] | None:
    """(array path, index parts) of a chunk or shard key, None when the key has no `/c/` segment."""
    node, sep, rest = key.rpartition("/c/")
    return (node, rest.split("/")) if sep else None


def shard_id(t_shard: int, row: int, col: int) -> str:
    """A shard's entry in chronozarr.shard_bytes (spec 7.3): "<t_shard>/<row>/<col>"."""
    return f"{t_shard}/{row}/{col}"


def parse_shard_id(text: str) -> tuple[int, int, int] | None:
    """(t_shard, row, col) of a shard_bytes entry, None when it is not three decimal indices."""
    parts = text.split("/")
    if len(parts) != 3 or not all(is_decimal_index(p) for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def is_decimal_index(text: str) -> bool:
    """A grid index as a key writes it: decimal digits without a leading zero."""
    return text == "0" or (text.isascii() and text.isdigit() and text[0] != "0")


@dataclass(frozen=True)
class Block:
    """A square of `span` x `span` cells at level `base`, and what lies under it at the levels above.

    `span` is a power of two, so at level base + m the block holds span / 2^m cells a side (until
    one) and its pixel edges fall on even rows and columns of every level below that: no 2 x 2
    block of the pyramid straddles two blocks, and a block's levels are computed from its own
    pixels alone. The edge replication of spec 6 happens only where a level ends (its last row or
    column), which is also where the last block ends.
    """

    base: int
    row: int
    col: int
    span: int

    def _span_at(self, level: Level) -> int:
        up = level.index - self.base
        if up < 0 or self.span % (2**up):
            raise SettingError(f"level {level.index} is not within {self.span} cells of base level {self.base}")
        return self.span >> up

    def cells(self, level: Level) -> list[tuple[int, int]]:
        """The cells of `level` inside the block, row-major."""
        span = self._span_at(level)
        rows = range(self.row * span, min((self.row + 1) * span, level.rows))
        cols = range(self.col * span, min((self.col + 1) * span, level.cols))
        return [(r, c) for r in rows for c in cols]

    def window(self, level: Level) -> tuple[slice, slice]:
        """The pixel rows and columns of `level` inside the block, cropped to the level."""
        size = self._span_at(level) * level.chunk_size
        return (
            slice(self.row * size, min((self.row + 1) * size, level.height)),
            slice(self.col * size, min((self.col + 1) * size, level.width)),
        )

    def cell_window(self, level: Level, row: int, col: int) -> tuple[slice, slice]:
        """A cell's pixels relative to the block's window at `level` (the slice of a block plane)."""
        rows, cols = level.cell_slice(row, col)
        top, left = (s.start for s in self.window(level))
        return slice(rows.start - top, rows.stop - top), slice(cols.start - left, cols.stop - left)


def blocks(level: Level, span: int) -> list[Block]:
    """The blocks of `span` x `span` cells tiling `level`, row-major."""
    if span < 1 or span & (span - 1):
        raise SettingError(f"a block spans a power of two of cells, got {span}")
    rows, cols = -(-level.rows // span), -(-level.cols // span)
    return [Block(level.index, r, c, span) for r in range(rows) for c in range(cols)]
