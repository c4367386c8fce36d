"""One timestep at every level: data, mask and coverage planes built from level 0 down."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..format.pyramid import block_max, block_mean, block_rounded_mean, validity


@dataclass(frozen=True)
class Planes:
    """A timestep at one level: data (band, y, x), mask and coverage (y, x) or None."""

    data: np.ndarray
    mask: np.ndarray | None
    coverage: np.ndarray | None


def build_pyramid(read: list[Planes], n_levels: int, nodata: float | None) -> list[Planes]:
    """Levels base..base + n_levels - 1: the planes as read (at least the base level), then each
    level not read the block reduction of the one below it (spec 6)."""
    planes = list(read)
    while len(planes) < n_levels:
        below = planes[-1]
        valid = validity(below.data, below.mask, nodata)
        planes.append(
            Planes(
                block_mean(below.data, valid, nodata),
                block_max(below.mask) if below.mask is not None else None,
                block_rounded_mean(below.coverage) if below.coverage is not None else None,
            )
        )
    return planes


def padded_cell(plane: np.ndarray, rows: slice, cols: slice, chunk_size: int, fill: float, out: np.ndarray | None = None) -> np.ndarray:
    """The cell's chunk at full chunk_size x chunk_size, padded with fill beyond the array (spec 2.1),
    written into `out` (of that shape and the plane's dtype) when given."""
    block = plane[..., rows, cols]
    shape = plane.shape[:-2] + (chunk_size, chunk_size)
    if out is None:
        if block.shape[-2:] == (chunk_size, chunk_size):
            return np.ascontiguousarray(block)
        out = np.empty(shape, dtype=plane.dtype)
    if block.shape[-2:] != (chunk_size, chunk_size):
        out[...] = fill
    out[..., : block.shape[-2], : block.shape[-1]] = block
    return out
