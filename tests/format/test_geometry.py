"""Level geometry of spec 2.1, 3.3 and 6: sizes, grids, transforms and where the pyramid stops."""

from __future__ import annotations

import math

import pytest
from expected import level_count

from chronozarr.format.geometry import pyramid_levels

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
