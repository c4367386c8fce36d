"""Anchors, references, modular residuals and volatility values (spec 4.2, 5)."""

from __future__ import annotations

import numpy as np
import pytest
from expected import anchors_for, modular_residual, references_for

from chronozarr.format.temporal import (
    anchor_indices,
    nearest_references,
    reconstruct,
    residual,
    volatility_value,
)


@pytest.mark.parametrize(
    ("n_time", "interval", "anchors", "references"),
    [
        (4, 2, [0, 2], {1: 0, 3: 2}),
        (5, 2, [0, 2, 4], {1: 0, 3: 2}),
        (7, 4, [0, 4], {1: 0, 2: 0, 3: 4, 5: 4, 6: 4}),
        (1, 6, [0], {}),
        (3, 1, [0, 1, 2], {}),
        (13, 6, [0, 6, 12], {1: 0, 2: 0, 3: 0, 4: 6, 5: 6, 7: 6, 8: 6, 9: 6, 10: 12, 11: 12}),
    ],
)
def test_schedule_examples(n_time: int, interval: int, anchors: list[int], references: dict[int, int]) -> None:
    """Anchors are multiples of the interval; each other step names its nearest anchor, ties earlier."""
    got_anchors = anchor_indices(n_time, interval)
    assert list(got_anchors) == anchors
    assert nearest_references(range(n_time), list(got_anchors)) == references


@pytest.mark.parametrize("n_time", [1, 2, 5, 8, 17])
@pytest.mark.parametrize("interval", [1, 2, 3, 4, 6])
def test_schedule_matches_reference(n_time: int, interval: int) -> None:
    """The schedule agrees with the independent reference for many sizes, within the allowed distance."""
    anchors = anchor_indices(n_time, interval)
    assert list(anchors) == anchors_for(n_time, interval)
    refs = nearest_references(range(n_time), list(anchors))
    assert refs == references_for(n_time, interval)
    assert all(0 < abs(t - a) < interval for t, a in refs.items())


def test_anchor_interval_below_one_is_rejected() -> None:
    with pytest.raises(ValueError):
        anchor_indices(4, 0)


@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_residual_wraps_modulo_dtype(dtype: str) -> None:
    """(source - anchor) mod 2^bits, including wraparound at 0 and at the maximum; add reconstructs."""
    top = np.iinfo(dtype).max
    source = np.array([0, 1, top, top - 1, 5, 0, top], dtype=dtype)
    anchor = np.array([top, top - 1, 0, 1, 5, 1, top - 2], dtype=dtype)
    got = residual(source, anchor)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, modular_residual(source, anchor))
    np.testing.assert_array_equal(got[:2], [1, 3])  # 0 - max = 1, 1 - (max - 1) = 3
    np.testing.assert_array_equal(got[2:4], [top, top - 2])
    np.testing.assert_array_equal(reconstruct(anchor, got), source)


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_residual_refuses_signed_and_float(dtype: str) -> None:
    a = np.zeros(3, dtype=dtype)
    with pytest.raises(TypeError):
        residual(a, a)


@pytest.mark.parametrize(
    ("abs_sum", "count", "want"),
    [(0.0, 0, 0.0), (5000.0, 1, 0.5), (30000.0, 2, 1.0), (123.0, 10, 0.00123), (0.0, 4, 0.0)],
)
def test_volatility_value(abs_sum: float, count: int, want: float) -> None:
    """Mean / 10000, clipped to [0, 1], 0.0 when nothing was averaged."""
    assert volatility_value(abs_sum, count) == pytest.approx(want)
