"""How many of a file's pixels the store keeps as read, resamples, or drops outside its grid.

A store's grid can be smaller than the files (--grid first, --bounds) and a warp changes values:
the summary and provenance give these counts so that neither goes unsaid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .grid import Grid, Placement
from .rasters import Affine6


@dataclass(frozen=True)
class PixelCounts:
    """Source pixels (one per row and column of a file, all bands together) by what became of them."""

    read: int = 0
    resampled: int = 0
    dropped: int = 0

    def __add__(self, other: PixelCounts) -> PixelCounts:
        return PixelCounts(self.read + other.read, self.resampled + other.resampled, self.dropped + other.dropped)

    def sentence(self, resampling: str | None) -> str:
        how = f" ({resampling})" if self.resampled and resampling else ""
        return (f"source pixels: {self.read} stored as read, {self.resampled} resampled{how}, "
                f"{self.dropped} dropped outside the store's grid")


def count_pixels(placement: Placement, width: int, height: int, transform: Affine6, grid: Grid) -> PixelCounts:
    """What becomes of the `width` x `height` pixels of a file with `transform` placed on `grid`."""
    total = width * height
    if placement.kind == "exact":
        return PixelCounts(read=total)
    if placement.kind == "shifted":
        inside = _overlap(placement.row, height, grid.height) * _overlap(placement.col, width, grid.width)
        return PixelCounts(read=inside, dropped=total - inside)
    inside = _centres_inside(placement.source_crs or grid.crs, width, height, transform, grid)
    return PixelCounts(resampled=inside, dropped=total - inside)


def _overlap(start: int, length: int, size: int) -> int:
    return max(0, min(start + length, size) - max(start, 0))


def _centres_inside(source: str, width: int, height: int, transform: Affine6, grid: Grid) -> int:
    """The file's pixels whose centres fall inside the grid's extent taken into the file's CRS."""
    from rasterio.transform import Affine
    from rasterio.warp import transform_bounds

    west, south, east, north = transform_bounds(grid.crs, source, *grid.bounds, densify_pts=21)
    ia, ib, ic, id_, ie, if_ = (~Affine(*transform))[:6]
    corners = [(x, y) for x in (west, east) for y in (south, north)]
    cols, rows = [ia * x + ib * y + ic for x, y in corners], [id_ * x + ie * y + if_ for x, y in corners]
    col0, col1 = max(0, math.ceil(min(cols) - 0.5)), min(width, math.floor(max(cols) - 0.5) + 1)
    row0, row1 = max(0, math.ceil(min(rows) - 0.5)), min(height, math.floor(max(rows) - 0.5) + 1)
    return max(0, col1 - col0) * max(0, row1 - row0)
