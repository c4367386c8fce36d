"""Which pixels an area holds (closed boundary, centres), the default level and the geometry
checks, against centre coordinates and inequalities written in the test."""

from __future__ import annotations

import numpy as np
import pytest

from chronozarr.errors import InputError
from chronozarr.format.geometry import Level, pyramid_levels
from chronozarr.format.region import PIXEL_BUDGET, area_of, choose_level, holds, window

# Pixel centres at integers: column i at x = i, row j at y = -j (north up).
LEVEL = Level(0, 20, 30, 16, (1.0, 0.0, -0.5, 0.0, -1.0, 0.5))
XS = np.arange(30, dtype=float)[None, :]
YS = -np.arange(20, dtype=float)[:, None]


def _all(area):
    return holds(area, LEVEL, slice(0, 20), slice(0, 30))


def test_a_box_holds_centres_on_its_edges_and_not_beyond():
    on_edges = _all(area_of((3, -9, 12, -2)))
    np.testing.assert_array_equal(on_edges, (XS >= 3) & (XS <= 12) & (YS >= -9) & (YS <= -2))
    between = _all(area_of((3.5, -9.5, 12.5, -2.5)))
    np.testing.assert_array_equal(between, (XS >= 4) & (XS <= 12) & (YS >= -9) & (YS <= -3))


def test_a_polygon_with_a_hole_holds_its_boundary_and_the_holes_boundary():
    outer = [[2, -2], [20, -2], [20, -15], [2, -15], [2, -2]]
    hole = [[6, -5], [10, -5], [10, -9], [6, -9], [6, -5]]
    got = _all(area_of({"type": "Polygon", "coordinates": [outer, hole]}))
    in_outer = (XS >= 2) & (XS <= 20) & (YS <= -2) & (YS >= -15)
    strictly_in_hole = (XS > 6) & (XS < 10) & (YS < -5) & (YS > -9)
    np.testing.assert_array_equal(got, in_outer & ~strictly_in_hole)


def test_a_triangle_holds_the_centres_on_its_diagonal():
    got = _all(area_of({"type": "Polygon", "coordinates": [[[0, 0], [8, 0], [0, -8], [0, 0]]]}))
    np.testing.assert_array_equal(got, (XS >= 0) & (YS <= 0) & (XS - YS <= 8))
    shifted = _all(area_of({"type": "Polygon", "coordinates": [[[0.5, 0.5], [8.7, 0.5], [0.5, -7.7]]]}))
    np.testing.assert_array_equal(shifted, (XS >= 0.5) & (YS <= 0.5) & ((XS - 0.5) + (0.5 - YS) <= 8.2 + 1e-9))


def test_a_multipolygon_is_the_union_of_its_parts():
    a = [[[1, -1], [4, -1], [4, -4], [1, -4]]]
    b = [[[3, -3], [9, -3], [9, -6], [3, -6]]]
    got = _all(area_of({"type": "MultiPolygon", "coordinates": [a, b]}))
    want = ((XS >= 1) & (XS <= 4) & (YS <= -1) & (YS >= -4)) | ((XS >= 3) & (XS <= 9) & (YS <= -3) & (YS >= -6))
    np.testing.assert_array_equal(got, want)


def test_a_sub_window_gives_the_same_pixels_as_the_whole():
    area = area_of({"type": "Polygon", "coordinates": [[[0.3, -0.2], [17.9, -3.1], [9.2, -18.4]]]})
    whole = _all(area)
    np.testing.assert_array_equal(holds(area, LEVEL, slice(3, 11), slice(5, 25)), whole[3:11, 5:25])


def test_a_point_holds_the_pixel_whose_area_contains_it():
    got = _all(area_of({"type": "Point", "coordinates": [7.49, -3.2]}))
    assert got.sum() == 1 and got[3, 7]
    assert window(area_of({"type": "Point", "coordinates": [99, 0]}), LEVEL) is None


def test_a_shapely_geometry_is_read_through_its_geo_interface():
    shapely = pytest.importorskip("shapely.geometry")
    got = _all(area_of(shapely.box(3, -9, 12, -2)))
    np.testing.assert_array_equal(got, (XS >= 3) & (XS <= 12) & (YS >= -9) & (YS <= -2))


@pytest.mark.parametrize(
    ("geometry", "words"),
    [
        ((5, 0, 5, 3), "empty"),
        ({"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [8, 0], [0, 0]]]}, "empty"),
        ({"type": "Polygon", "coordinates": [[[0, 0], [4, -4], [4, 0], [0, -4], [0, 0]]]}, "crosses itself"),
        ({"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, "Polygon"),
        ({"type": "Polygon", "coordinates": [[[0, 0], [float("nan"), 1], [1, 1]]]}, "finite"),
        ("nonsense", "not an area"),
    ],
)
def test_a_geometry_that_is_not_an_area_is_an_input_error(geometry, words):
    with pytest.raises(InputError, match=words):
        area_of(geometry)


def test_the_default_level_is_the_finest_whose_window_fits_the_budget():
    levels = pyramid_levels(4096, 4096, 256, (10.0, 0.0, 0.0, 0.0, -10.0, 40960.0))
    big = area_of((0, 0, 40960, 40960))  # 4096 x 4096 pixels at level 0
    assert choose_level(big, levels).index == 3  # 512 x 512 = PIXEL_BUDGET
    assert 512 * 512 == PIXEL_BUDGET
    assert choose_level(big, levels, budget=512 * 512 - 1).index == 4
    assert choose_level(area_of((100, 100, 900, 900)), levels).index == 0
    assert choose_level(big, levels, lod=1).index == 1
    with pytest.raises(InputError, match="level 9 does not exist"):
        choose_level(big, levels, lod=9)
    with pytest.raises(InputError, match="outside the store"):
        choose_level(area_of((50000, 0, 60000, 100)), levels)
