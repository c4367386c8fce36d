"""Block reductions of spec 6 (data), 2.4 (mask) and 2.5 (coverage) against a numpy reference."""

from __future__ import annotations

import numpy as np
import pytest
from expected import reduce_coverage, reduce_data, reduce_mask, valid_pixels

from chronozarr.format.pyramid import block_max, block_mean, block_rounded_mean, validity

SHAPES = [(2, 8, 6), (2, 7, 5), (1, 1, 1), (3, 1, 4), (2, 5, 1)]


def _random(dtype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    kind = np.dtype(dtype)
    if kind.kind == "f":
        return rng.normal(0.0, 50.0, size=shape).astype(dtype)
    info = np.iinfo(kind)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=kind)


def _full_validity(data: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    return np.ones(data.shape, dtype=bool) if valid is None else np.broadcast_to(valid, data.shape)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
def test_block_mean_all_valid_matches_reference(dtype: str, shape: tuple[int, int, int]) -> None:
    """Without a validity rule every pixel counts: edge-replicated 2x2 mean, floored for integers."""
    rng = np.random.default_rng(1)
    data = _random(dtype, shape, rng)
    got = block_mean(data, None, None)
    want = reduce_data(data, np.ones(shape, dtype=bool), None)
    assert got.dtype == np.dtype(dtype)
    assert got.shape == (shape[0], (shape[1] + 1) // 2, (shape[2] + 1) // 2)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int16", "float32"])
def test_block_mean_with_nodata_excludes_nodata_pixels_per_band(dtype: str) -> None:
    """With numeric nodata and no mask each band's nodata pixels are left out of its own mean."""
    rng = np.random.default_rng(2)
    data = _random(dtype, (2, 9, 7), rng)
    nodata = 0 if dtype != "float32" else -9999.0
    holes = rng.random(data.shape) < 0.4
    data[holes] = nodata
    data[:, 0:2, 0:2] = nodata  # an all-invalid block in every band
    data[0, 2:4, 2:4] = nodata  # all-invalid in band 0 only
    valid = validity(data, None, nodata)
    np.testing.assert_array_equal(_full_validity(data, valid), valid_pixels(data, None, nodata))
    got = block_mean(data, valid, nodata)
    want = reduce_data(data, valid_pixels(data, None, nodata), nodata)
    np.testing.assert_array_equal(got, want)
    assert np.all(got[:, 0, 0] == np.asarray(nodata, dtype=dtype))
    assert got[0, 1, 1] == np.asarray(nodata, dtype=dtype)


@pytest.mark.parametrize("nodata", [None, 7])
def test_block_mean_with_mask_uses_mask_only(nodata: int | None) -> None:
    """A mask decides validity for every band; nodata values under mask==1 are averaged like data."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 60000, size=(3, 11, 9), dtype=np.uint16)
    data[:, 3, 3] = 7  # equals nodata but the mask says valid
    mask = (rng.random((11, 9)) < 0.6).astype(np.uint8)
    mask[3, 3] = 1
    mask[4:6, 4:6] = 0  # one all-invalid block
    valid = validity(data, mask, nodata)
    np.testing.assert_array_equal(_full_validity(data, valid), valid_pixels(data, mask, nodata))
    got = block_mean(data, valid, nodata)
    np.testing.assert_array_equal(got, reduce_data(data, valid_pixels(data, mask, nodata), nodata))
    assert np.all(got[:, 2, 2] == (0 if nodata is None else nodata))


def test_block_mean_int16_floors_toward_negative_infinity() -> None:
    """int16 means floor the exact sum: (-1 -2 -2 -2) / 4 = -1.75 becomes -2, not -1."""
    data = np.array([[[-1, -2], [-2, -2]]], dtype=np.int16)
    assert block_mean(data, None, None)[0, 0, 0] == -2
    three = np.array([[[-32768, -32768], [-32767, 5]]], dtype=np.int16)
    valid = np.array([[[True, True], [True, False]]])
    # exact sum -98303 over 3 pixels is -32767.67, floored to -32768; no int16 overflow
    assert block_mean(three, valid, None)[0, 0, 0] == -32768


def test_block_mean_uint16_sum_does_not_overflow() -> None:
    """Four values near 65535 are summed in a wider type before dividing."""
    data = np.full((1, 2, 2), 65535, dtype=np.uint16)
    data[0, 1, 1] = 65534
    assert block_mean(data, None, None)[0, 0, 0] == 65534


def test_block_mean_float32_accumulates_in_float64() -> None:
    """float32 values whose float32 sum would lose the small ones keep them through float64."""
    data = np.array([[[1.0e8, 1.0], [1.0, 1.0]]], dtype=np.float32)
    want = np.float32((1.0e8 + 3.0) / 4.0)
    assert block_mean(data, None, None)[0, 0, 0] == want


@pytest.mark.parametrize("shape", [(8, 6), (7, 5), (1, 1), (3, 2)])
def test_block_max_and_rounded_mean(shape: tuple[int, int]) -> None:
    """Mask reduces by block max, coverage by (sum + 2) // 4, both with edge replication."""
    rng = np.random.default_rng(4)
    mask = (rng.random(shape) < 0.3).astype(np.uint8)
    coverage = rng.integers(0, 256, size=shape, dtype=np.uint8)
    np.testing.assert_array_equal(block_max(mask), reduce_mask(mask))
    got = block_rounded_mean(coverage)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, reduce_coverage(coverage))


def test_rounded_mean_rounds_halves_up() -> None:
    """Block sums 2, 6 and 1019 give 1, 2 and 255 (halves up, no uint8 overflow)."""
    coverage = np.array([[1, 1, 3, 3, 255, 255], [0, 0, 0, 0, 255, 254]], dtype=np.uint8)
    np.testing.assert_array_equal(block_rounded_mean(coverage), [[1, 2, 255]])
