"""Star-delta rules (spec 4.2, 5) for random schedules, dtypes and values, against plain integers.

The oracles work in Python ints or int64: anchors as the multiples of k, references by scanning
every anchor, residuals as (source - anchor) mod 2^bits and sums of |differences| exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from expected import anchors_for, modular_residual, references_for
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_settings import PROPERTIES

from chronozarr.format.temporal import (
    STAR_DELTA_DTYPES,
    abs_difference_sum,
    anchor_indices,
    nearest_references,
    reconstruct,
    reference_is_valid,
    references_from_json,
    references_to_json,
    residual,
    schedule_problems,
    volatility_value,
)

schedules = st.tuples(st.integers(1, 120), st.integers(1, 20))
shapes = hnp.array_shapes(min_dims=1, max_dims=3, max_side=9)


@st.composite
def pairs(draw: st.DrawFn, dtypes: tuple[str, ...] = STAR_DELTA_DTYPES) -> tuple[np.ndarray, np.ndarray]:
    """A source and an anchor array of one dtype and shape, any values the dtype holds."""
    dtype, shape = draw(st.sampled_from(dtypes)), draw(shapes)
    return draw(hnp.arrays(dtype, shape)), draw(hnp.arrays(dtype, shape))


@PROPERTIES
@given(schedule=schedules)
def test_anchor_indices_are_the_multiples_of_the_interval(schedule: tuple[int, int]) -> None:
    n_time, k = schedule
    assert anchor_indices(n_time, k) == anchors_for(n_time, k)


@PROPERTIES
@given(schedule=schedules)
def test_nearest_references_match_a_scan_of_every_anchor(schedule: tuple[int, int]) -> None:
    """Nearest by index distance, ties toward the earlier anchor; every such reference is valid."""
    n_time, k = schedule
    anchors = anchors_for(n_time, k)
    refs = nearest_references(range(n_time), anchors)
    assert refs == references_for(n_time, k)
    assert all(reference_is_valid(t, a, anchors, k) for t, a in refs.items())
    assert list(schedule_problems(n_time, k, anchors, refs)) == []


@PROPERTIES
@given(schedule=schedules, t=st.integers(0, 130), anchor=st.integers(0, 130))
def test_a_reference_is_valid_exactly_when_it_names_an_anchor_closer_than_the_interval(schedule: tuple[int, int], t: int, anchor: int) -> None:
    n_time, k = schedule
    anchors = anchors_for(n_time, k)
    assert reference_is_valid(t, anchor, anchors, k) == (anchor in anchors and 0 < abs(t - anchor) < k)


@PROPERTIES
@given(schedule=st.tuples(st.integers(2, 60), st.integers(2, 12)), data=st.data())
def test_a_schedule_with_one_broken_reference_is_refused(schedule: tuple[int, int], data: st.DataObject) -> None:
    """Pointing one reference at a non-anchor, at an anchor too far away, or dropping it is reported.
    (With n_time and k at least 2, timestep 1 always has a reference to break.)"""
    n_time, k = schedule
    refs = references_for(n_time, k)
    t = data.draw(st.sampled_from(sorted(refs)))
    anchors = anchors_for(n_time, k)
    far = [a for a in anchors if abs(t - a) >= k]
    broken = dict(refs)
    how = data.draw(st.sampled_from(["non-anchor", "far", "missing"] if far else ["non-anchor", "missing"]))
    if how == "non-anchor":
        broken[t] = t
    elif how == "far":
        broken[t] = data.draw(st.sampled_from(far))
    else:
        del broken[t]
    assert list(schedule_problems(n_time, k, anchors, broken)), how


@PROPERTIES
@given(pair=pairs())
def test_residual_is_the_modular_difference_and_reconstructs_exactly(pair: tuple[np.ndarray, np.ndarray]) -> None:
    source, anchor = pair
    stored = residual(source, anchor)
    assert stored.dtype == source.dtype
    np.testing.assert_array_equal(stored, modular_residual(source, anchor))
    bits = source.dtype.itemsize * 8
    back = reconstruct(anchor, stored)
    assert back.dtype == source.dtype
    np.testing.assert_array_equal(back, ((anchor.astype(np.int64) + stored.astype(np.int64)) % (1 << bits)).astype(source.dtype))
    assert back.tobytes() == source.tobytes()


@PROPERTIES
@given(pair=pairs(("int8", "int16", "int32", "uint32", "float32", "float64")))
def test_residuals_refuse_every_dtype_but_uint8_and_uint16(pair: tuple[np.ndarray, np.ndarray]) -> None:
    source, anchor = pair
    with pytest.raises(TypeError):
        residual(source, anchor)


@PROPERTIES
@given(dtypes=st.permutations(STAR_DELTA_DTYPES), shape=shapes)
def test_residuals_refuse_mixed_dtypes(dtypes: list[str], shape: tuple[int, ...]) -> None:
    dtype, other = dtypes
    with pytest.raises(TypeError):
        residual(np.zeros(shape, dtype), np.zeros(shape, other))


@PROPERTIES
@given(pair=pairs(("uint8", "uint16", "int16")))
def test_abs_difference_sum_is_exact_for_integers(pair: tuple[np.ndarray, np.ndarray]) -> None:
    source, reference = pair
    want = sum(abs(int(s) - int(r)) for s, r in zip(source.ravel().tolist(), reference.ravel().tolist(), strict=True))
    assert abs_difference_sum(source, reference) == float(want)


@PROPERTIES
@given(total=st.integers(0, 10**12), count=st.integers(0, 10**6))
def test_volatility_is_the_mean_over_ten_thousand_clipped_to_one(total: int, count: int) -> None:
    want = 0.0 if count == 0 else min(total / count / 10000.0, 1.0)
    assert volatility_value(float(total), count) == pytest.approx(want, rel=1e-12, abs=0.0)


@PROPERTIES
@given(schedule=schedules)
def test_delta_reference_json_round_trips(schedule: tuple[int, int]) -> None:
    refs = references_for(*schedule)
    doc = references_to_json(refs)
    assert all(key == str(int(key)) for key in doc)
    assert references_from_json(doc) == refs
