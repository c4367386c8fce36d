"""Block reductions (spec 2.3, 2.4, 2.5, 6) against a per-pixel loop in Python numbers.

The oracle visits each output pixel, gathers its four source pixels with the spec's edge
replication (an index past the end reads the last row or column), applies the validity rule of
spec 2.3 itself, and sums in Python ints (floor division) or float64 in block order.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_settings import PROPERTIES

from chronozarr.format.pyramid import block_max, block_mean, block_rounded_mean, validity

DTYPES = ("uint8", "uint16", "int16", "float32")
planes = st.tuples(st.integers(1, 3), st.integers(1, 9), st.integers(1, 9))


def sources(y: int, x: int, height: int, width: int) -> list[tuple[int, int]]:
    """The four source pixels of output (y, x) in block order tl, tr, bl, br, edges replicated."""
    return [(min(2 * y + dy, height - 1), min(2 * x + dx, width - 1)) for dy in (0, 1) for dx in (0, 1)]


def oracle_mean(data: np.ndarray, mask: np.ndarray | None, nodata: float | None) -> np.ndarray:
    bands, height, width = data.shape
    out = np.empty((bands, -(-height // 2), -(-width // 2)), dtype=data.dtype)
    for b in range(bands):
        for y in range(out.shape[1]):
            for x in range(out.shape[2]):
                values = []
                for sy, sx in sources(y, x, height, width):
                    value = data[b, sy, sx].item()
                    if mask is not None:
                        ok = mask[sy, sx] == 1
                    else:
                        ok = nodata is None or value != nodata
                    if ok:
                        values.append(value)
                if not values:
                    out[b, y, x] = 0 if nodata is None else nodata
                elif data.dtype.kind == "f":
                    total = 0.0
                    for v in values:
                        total += float(v)  # float64, block order
                    out[b, y, x] = np.float32(total / len(values))
                else:
                    out[b, y, x] = sum(values) // len(values)  # exact sum, floor
    return out


@st.composite
def cases(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray | None, float | None]:
    """A (band, y, x) plane, and a mask, a nodata value present in the data, or neither."""
    dtype, shape = np.dtype(draw(st.sampled_from(DTYPES))), draw(planes)
    if dtype.kind == "f":
        elements = st.floats(-2.0**100, 2.0**100, width=32, allow_nan=False, allow_infinity=False)
    else:
        info = np.iinfo(dtype)
        elements = st.integers(int(info.min), int(info.max))
    data = draw(hnp.arrays(dtype, shape, elements=elements))
    rule = draw(st.sampled_from(["mask", "nodata", "none"]))
    mask = nodata = None
    if rule == "mask":
        mask = draw(hnp.arrays(np.uint8, shape[1:], elements=st.integers(0, 1)))
    elif rule == "nodata":
        nodata = data.flat[draw(st.integers(0, data.size - 1))].item()  # a value that occurs
        holes = draw(hnp.arrays(bool, shape))
        data[holes] = nodata
    return data, mask, nodata


@PROPERTIES
@given(case=cases())
def test_block_mean_is_the_mean_of_each_blocks_valid_pixels(case: tuple[np.ndarray, np.ndarray | None, float | None]) -> None:
    data, mask, nodata = case
    got = block_mean(data, validity(data, mask, nodata), nodata)
    want = oracle_mean(data, mask, nodata)
    assert got.dtype == data.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # == for floats: 0.0 and -0.0 are the same mean


@PROPERTIES
@given(mask=hnp.arrays(np.uint8, st.tuples(st.integers(1, 3), st.integers(1, 9), st.integers(1, 9)), elements=st.integers(0, 1)))
def test_mask_reduces_to_one_where_any_source_pixel_is_valid(mask: np.ndarray) -> None:
    t, height, width = mask.shape
    got = block_max(mask)
    assert got.shape == (t, -(-height // 2), -(-width // 2))
    for i in range(t):
        for y in range(got.shape[1]):
            for x in range(got.shape[2]):
                assert got[i, y, x] == max(mask[i, sy, sx] for sy, sx in sources(y, x, height, width))


@PROPERTIES
@given(coverage=hnp.arrays(np.uint8, st.tuples(st.integers(1, 3), st.integers(1, 9), st.integers(1, 9))))
def test_coverage_reduces_to_the_mean_rounded_half_up(coverage: np.ndarray) -> None:
    t, height, width = coverage.shape
    got = block_rounded_mean(coverage)
    assert got.dtype == np.uint8 and got.shape == (t, -(-height // 2), -(-width // 2))
    for i in range(t):
        for y in range(got.shape[1]):
            for x in range(got.shape[2]):
                total = sum(int(coverage[i, sy, sx]) for sy, sx in sources(y, x, height, width))
                assert got[i, y, x] == (total + 2) // 4
