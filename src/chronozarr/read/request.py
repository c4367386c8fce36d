"""What a read asks for, checked before any object is fetched: the window, the cell, and the
output array, whose allocation fails with our error rather than numpy's."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OutOfRangeError, StoreError
from ..format.array_doc import ArrayDocument
from ..format.geometry import Level

Window = tuple[slice, slice]


def check_cell(level: Level, row: int, col: int) -> None:
    """An IndexError naming the grid when (row, col) is not one of the level's cells."""
    rows, cols = level.grid
    if not (0 <= row < rows and 0 <= col < cols):
        raise OutOfRangeError(f"cell ({row}, {col}) is outside level {level.index}'s {rows} x {cols} grid")


def request_window(level: Level, window: Any) -> Window:
    """(rows, cols) of a read: the whole level, (row0, row1, col0, col1) or two slices, clipped
    to the level; an IndexError when nothing is left."""
    if window is None:
        return slice(0, level.height), slice(0, level.width)
    if len(window) == 4:
        row0, row1, col0, col1 = (int(v) for v in window)
        rows, cols = slice(row0, row1), slice(col0, col1)
    else:
        rows, cols = window
    rows = slice(*rows.indices(level.height)[:2])
    cols = slice(*cols.indices(level.width)[:2])
    if rows.stop <= rows.start or cols.stop <= cols.start:
        raise OutOfRangeError(f"window {window!r} is empty at level {level.index}")
    return rows, cols


def allocate(shape: tuple[int, ...], array: ArrayDocument) -> np.ndarray:
    """The output of a read; our error, naming the array, when it cannot be allocated."""
    try:
        return np.empty(shape, dtype=array.dtype)
    except (MemoryError, ValueError):
        nbytes = int(np.prod(shape, dtype=object)) * array.dtype.itemsize
        raise StoreError(
            f"{array.path}: a read of shape {list(shape)} needs {nbytes} bytes, which cannot be allocated; "
            "read a window, fewer timesteps or a coarser level"
        ) from None
