"""Level geometry of spec 2.1, 3.3 and 6: sizes, grids, transforms and where the pyramid stops."""

from __future__ import annotations

import math

import pytest
from expected import level_count

from chronozarr.format.geometry import blocks, pyramid_levels

BASE = (10.0, 0.0, 500000.0, 0.0, -10.0, 5000000.0)


@pytest.mark.parametrize(
    ("height", "width", "cs"),
    [(37, 29, 8), (37, 29, 16), (700, 600, 512), (8, 8, 8), (9, 8, 8), (1, 1, 2), (300, 5, 4), (64, 65, 16)],
)
def test_levels_halve_until_one_cell(height: int, width: int, cs: int) -> None:
    """H_k = ceil(H_{k-1}/2); grid = ceil(H_k/cs); stop at the first 1x1 grid; transform scales by 2^k."""
    levels = pyramid_levels(height, width, cs, BASE)
    assert len(levels) == level_count(height, width, cs)
    h, w = height, width
    for k, level in enumerate(levels):
        assert (level.index, level.path) == (k, str(k))
        assert (level.height, level.width) == (h, w)
        assert level.grid == (math.ceil(h / cs), math.ceil(w / cs))
        assert level.transform == (10.0 * 2**k, 0.0, 500000.0, 0.0, -10.0 * 2**k, 5000000.0)
        assert level.resolution == 10.0 * 2**k
        h, w = math.ceil(h / 2), math.ceil(w / 2)
    assert levels[-1].grid == (1, 1)
    assert all(level.grid != (1, 1) for level in levels[:-1])


def test_max_levels_caps_the_pyramid() -> None:
    assert len(pyramid_levels(37, 29, 8, BASE, max_levels=2)) == 2


@pytest.mark.parametrize("cs", [0, -2, 3, 7])
def test_odd_or_non_positive_chunk_size_is_rejected(cs: int) -> None:
    with pytest.raises(ValueError):
        pyramid_levels(10, 10, cs, BASE)


def _brute_block(level, base_level, row, col, span):
    """Cells and pixel window of a block, by testing every pixel of the level against the block's
    level-0 footprint scaled down: the independent oracle of Block."""
    import numpy as np

    scale = 2 ** (level.index - base_level.index)
    cs = level.chunk_size
    size0 = span * cs  # pixels a side at the base level
    ys = np.arange(level.height) * scale
    xs = np.arange(level.width) * scale
    in_y = (ys >= row * size0) & (ys < (row + 1) * size0)
    in_x = (xs >= col * size0) & (xs < (col + 1) * size0)
    rows = np.nonzero(in_y)[0]
    cols = np.nonzero(in_x)[0]
    cells = sorted({(int(r) // cs, int(c) // cs) for r in rows for c in cols})
    return cells, (int(rows[0]), int(rows[-1]) + 1), (int(cols[0]), int(cols[-1]) + 1)


@pytest.mark.parametrize("height,width,cs,span", [(150, 131, 16, 2), (150, 131, 16, 4), (700, 600, 64, 2), (33, 1000, 8, 8)])
def test_blocks_tile_every_level_they_reach_like_the_brute_force(height, width, cs, span):
    levels = pyramid_levels(height, width, cs, (10.0, 0.0, 0.0, 0.0, -10.0, 0.0))
    depth = span.bit_length() - 1
    for base in levels[:-1]:
        seen: dict[int, list] = {}
        for block in blocks(base, span):
            for level in levels[base.index : base.index + depth + 1]:
                if not block.window(level)[0].stop > block.window(level)[0].start:
                    continue
                cells, (r0, r1), (c0, c1) = _brute_block(level, base, block.row, block.col, span)
                assert block.cells(level) == cells
                rows, cols = block.window(level)
                assert (rows.start, rows.stop, cols.start, cols.stop) == (r0, r1, c0, c1)
                assert rows.start % 2 == 0 and cols.start % 2 == 0  # no 2 x 2 block straddles two blocks
                seen.setdefault(level.index, []).extend(cells)
        for index, cells in seen.items():
            assert sorted(cells) == levels[index].cells(), f"blocks of base {base.index} do not tile level {index}"


def test_block_cell_window_is_the_cell_within_the_block_plane():
    level = pyramid_levels(150, 131, 16, (10.0, 0.0, 0.0, 0.0, -10.0, 0.0))[0]
    block = blocks(level, 4)[-1]  # the bottom-right block, cut by the level's edge
    rows, cols = block.window(level)
    for row, col in block.cells(level):
        local_rows, local_cols = block.cell_window(level, row, col)
        cell_rows, cell_cols = level.cell_slice(row, col)
        assert (local_rows.start + rows.start, local_rows.stop + rows.start) == (cell_rows.start, cell_rows.stop)
        assert (local_cols.start + cols.start, local_cols.stop + cols.start) == (cell_cols.start, cell_cols.stop)


def test_a_block_span_must_be_a_power_of_two():
    level = pyramid_levels(64, 64, 16, (10.0, 0.0, 0.0, 0.0, -10.0, 0.0))[0]
    with pytest.raises(ValueError, match="power of two"):
        blocks(level, 3)
