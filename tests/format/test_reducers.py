"""Composite reducers against numpy written here: nanmedian / nanmean on a float copy with NaN for
invalid observations (then rint for integer stores), and per-pixel loops for first, last, min, max
and medoid."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_settings import PROPERTIES

from chronozarr.errors import InputError
from chronozarr.format.reducers import REDUCERS, carry_forward, coverage_of, reduce_pixels

FILL = 7


def _nan_copy(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return np.where(valid[:, None], values.astype(np.float64), np.nan)


def _expected(values: np.ndarray, valid: np.ndarray, reducer: str) -> np.ndarray:
    """The composite computed pixel by pixel, without the code under test."""
    n, bands, height, width = values.shape
    out = np.full((bands, height, width), FILL, dtype=values.dtype)
    integer = values.dtype.kind != "f"
    for y in range(height):
        for x in range(width):
            kept = [i for i in range(n) if valid[i, y, x]]
            if not kept:
                continue
            obs = values[kept, :, y, x].astype(np.float64)  # (k, band)
            if reducer == "first":
                out[:, y, x] = values[kept[0], :, y, x]
            elif reducer == "last":
                out[:, y, x] = values[kept[-1], :, y, x]
            elif reducer in ("min", "max"):
                out[:, y, x] = values[kept, :, y, x].min(axis=0) if reducer == "min" else values[kept, :, y, x].max(axis=0)
            elif reducer in ("median", "mean"):
                column = _nan_copy(values, valid)[:, :, y, x]
                result = np.nanmedian(column, axis=0) if reducer == "median" else np.nanmean(column, axis=0)
                out[:, y, x] = np.rint(result) if integer else result
            else:  # medoid: the nearest observation to the per-band median, the first on a tie
                median = np.median(obs, axis=0)
                distances = [float(((o - median) ** 2).sum()) for o in obs]
                best = distances.index(min(distances))
                out[:, y, x] = values[kept[best], :, y, x]
    return out


def _case(seed: int, dtype: str, n: int = 5, bands: int = 3, size: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    high = 40 if dtype != "float32" else 1.0
    values = (rng.integers(0, high, (n, bands, size, size)) if dtype != "float32" else rng.random((n, bands, size, size))).astype(dtype)
    valid = rng.random((n, size, size)) < 0.6
    valid[:, 0, 0] = False  # a pixel no observation covers
    return values, valid


@pytest.mark.parametrize("reducer", REDUCERS)
@pytest.mark.parametrize("dtype", ["uint16", "int16", "uint8", "float32"])
def test_each_reducer_matches_numpy_over_the_valid_observations(reducer: str, dtype: str) -> None:
    values, valid = _case(3, dtype)
    got, count = reduce_pixels(values, valid, reducer, fill=FILL)
    assert got.dtype == values.dtype
    np.testing.assert_array_equal(count, valid.sum(axis=0))
    np.testing.assert_array_equal(got, _expected(values, valid, reducer))


def test_even_median_and_mean_round_half_to_even() -> None:
    values = np.array([1, 2, 3, 4, 2, 3], dtype=np.uint16).reshape(6, 1, 1, 1)
    two = np.zeros((6, 1, 1), dtype=bool)
    two[:2] = True  # 1 and 2: 1.5 -> 2
    assert reduce_pixels(values, two, "median")[0].item() == 2
    two[:] = False
    two[[2, 3]] = True  # 3 and 4: 3.5 -> 4
    assert reduce_pixels(values, two, "mean")[0].item() == 4
    two[:] = False
    two[[0, 4]] = True  # 1 and 2 again, at other places: 1.5 -> 2; 2 and 3 -> 2.5 -> 2
    assert reduce_pixels(values, two, "median")[0].item() == 2
    two[:] = False
    two[[4, 5]] = True
    assert reduce_pixels(values, two, "mean")[0].item() == 2


def test_medoid_takes_every_band_from_one_observation_and_ties_go_to_the_earlier() -> None:
    # two observations equally far from the median (their mean): the first is kept
    values = np.array([[10, 20], [20, 10]], dtype=np.uint16).reshape(2, 2, 1, 1)
    valid = np.ones((2, 1, 1), dtype=bool)
    np.testing.assert_array_equal(reduce_pixels(values, valid, "medoid")[0][:, 0, 0], [10, 20])
    np.testing.assert_array_equal(reduce_pixels(values[::-1].copy(), valid, "medoid")[0][:, 0, 0], [20, 10])


@PROPERTIES
@given(
    hnp.arrays(np.uint16, st.tuples(st.integers(1, 6), st.integers(1, 3), st.integers(1, 4), st.integers(1, 4))),
    st.data(),
    st.sampled_from(REDUCERS),
)
def test_reducers_match_numpy_on_any_values(values: np.ndarray, data: st.DataObject, reducer: str) -> None:
    n, _, height, width = values.shape
    valid = data.draw(hnp.arrays(np.bool_, (n, height, width)))
    got, count = reduce_pixels(values, valid, reducer, fill=FILL)
    np.testing.assert_array_equal(got, _expected(values, valid, reducer))
    np.testing.assert_array_equal(coverage_of(count), np.minimum(valid.sum(axis=0), 255))


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 13, 64, 65, 90])
@pytest.mark.parametrize("dtype", ["uint16", "int16", "uint8"])
def test_median_of_many_observations_matches_numpy_also_where_the_dtype_maximum_is_observed(n: int, dtype: str) -> None:
    """Every observation count a period may have (a sorting network up to 64, np.sort above), with
    valid observations at the dtype's largest value (which invalid ones are sorted as)."""
    rng = np.random.default_rng(n)
    info = np.iinfo(dtype)
    values = rng.integers(info.max - 50, info.max, (n, 2, 5, 7), endpoint=True).astype(dtype)
    values[rng.random(values.shape) < 0.3] = info.max
    valid = rng.random((n, 5, 7)) < 0.7
    valid[:, 0, 0] = False
    got, _ = reduce_pixels(values, valid, "median", fill=FILL)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN pixel
        want = np.rint(np.nanmedian(_nan_copy(values, valid), axis=0))
    want = np.where(valid.any(axis=0), np.nan_to_num(want), FILL).astype(dtype)
    np.testing.assert_array_equal(got, want)


def test_coverage_saturates_at_255() -> None:
    np.testing.assert_array_equal(coverage_of(np.array([0, 1, 255, 256, 9000])), [0, 1, 255, 255, 255])


def test_carry_forward_fills_only_pixels_without_a_value() -> None:
    values = np.array([[[1, 0, 0]]], dtype=np.uint16)
    has = np.array([[True, False, False]])
    previous = np.array([[[5, 6, 0]]], dtype=np.uint16)
    previous_has = np.array([[True, True, False]])
    got, got_has = carry_forward(values, has, previous, previous_has)
    np.testing.assert_array_equal(got, [[[1, 6, 0]]])
    np.testing.assert_array_equal(got_has, [[True, True, False]])


def test_an_unknown_reducer_is_refused_naming_the_choices() -> None:
    with pytest.raises(InputError, match="medoid"):
        reduce_pixels(np.zeros((1, 1, 1, 1), np.uint16), np.ones((1, 1, 1), bool), "mode")
