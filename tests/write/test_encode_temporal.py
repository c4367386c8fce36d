"""Star-delta residuals, recorded references, volatility and auto selection (spec 4, 5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr
from conftest import make_series
from expected import anchors_for, chronozarr_attrs, level_count, modular_residual, pyramid, references_for, true_values, volatility

import chronozarr


def _encode(tmp_path: Path, da: Any, name: str = "store", **options: Any) -> Path:
    store = tmp_path / name
    chronozarr.encode(da, store, crs="EPSG:32631", workers=2, **options)
    return store


def _full_range(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values over the whole dtype range, with hand-placed wraparound cases at pixel row 0."""
    top = int(np.iinfo(dtype).max)
    values = np.random.default_rng(seed).integers(0, top, size=shape, endpoint=True).astype(dtype)
    # anchor 0 holds max / 0 / 1; its references hold 0 / max / max-1 (wrap both ways)
    values[0, :, 0, :3] = [top, 0, 1]
    values[1, :, 0, :3] = [0, top, top - 1]
    values[2, :, 0, :3] = [1, top - 1, 0]
    # anchor 4 against its references 3, 5 and 6
    values[4, :, 0, :3] = [top, 0, top]
    values[3, :, 0, :3] = [0, top, 2]
    values[5, :, 0, :3] = [top - 1, 1, 0]
    values[6, :, 0, :3] = [2, top, 1]
    return values


@pytest.mark.parametrize("shard_time", [None, 2])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_residuals_are_modular_differences_at_every_level(tmp_path: Path, dtype: str, shard_time: int | None) -> None:
    """Anchors hold true values, deltas (source - anchor) mod 2^bits, at level 0 and every coarser level."""
    da = make_series(n_time=7, n_band=2, height=13, width=11, dtype=dtype)
    values = _full_range(dtype, da.shape, seed=31)
    da = da.copy(data=values)
    store = _encode(
        tmp_path, da, encoding="star-delta", anchor_interval=4, chunk_size=4,
        shard=shard_time is not None, shard_time=shard_time,
    )
    temporal = chronozarr_attrs(store)["temporal"]
    assert temporal == {
        "encoding": "star-delta",
        "anchor_interval": 4,
        "anchor_indices": [0, 4],
        "delta_reference": {"1": 0, "2": 0, "3": 4, "5": 4, "6": 4},
    }
    group = zarr.open_group(store, mode="r")
    stored0 = group["0/data"][:]
    # hand-checked wraparound: 0 - max = 1, max - 0 = max, (max-1) - 1 = max-2, 0 - max(anchor 4) = 1
    top = int(np.iinfo(dtype).max)
    np.testing.assert_array_equal(stored0[1, 0, 0, :3], [1, top, top - 2])
    np.testing.assert_array_equal(stored0[3, 0, 0, :3], [1, top, 3])
    refs = {1: 0, 2: 0, 3: 4, 5: 4, 6: 4}
    levels = pyramid(values, None, None, 0, level_count(13, 11, 4))
    for k, (source, _, _) in enumerate(levels):
        stored = group[f"{k}/data"][:]
        for t in range(7):
            if t in refs:
                want = modular_residual(source[t], source[refs[t]])
            else:
                want = source[t]
            np.testing.assert_array_equal(stored[t], want, err_msg=f"level {k} timestep {t}")


@pytest.mark.parametrize(
    ("n_time", "interval", "references"),
    [(4, 2, {"1": 0, "3": 2}), (7, 4, {"1": 0, "2": 0, "3": 4, "5": 4, "6": 4}), (3, 1, {}), (2, 6, {"1": 0})],
)
def test_recorded_references_are_nearest_anchor_ties_earlier(
    tmp_path: Path, n_time: int, interval: int, references: dict[str, int]
) -> None:
    """delta_reference names every non-anchor timestep with its nearest anchor (ties to the earlier one)."""
    da = make_series(n_time=n_time, height=6, width=6, dtype="uint16")
    store = _encode(tmp_path, da, encoding="star-delta", anchor_interval=interval, chunk_size=4)
    temporal = chronozarr_attrs(store)["temporal"]
    assert temporal["delta_reference"] == references
    assert temporal["anchor_indices"] == list(range(0, n_time, interval))
    assert {str(t): a for t, a in references_for(n_time, interval).items()} == references
    np.testing.assert_array_equal(true_values(store, 0), da.values)


@pytest.mark.parametrize("encoding", ["none", "star-delta"])
def test_volatility_matches_independent_computation(tmp_path: Path, encoding: str) -> None:
    """Per level-0 cell: mean |source[t] - source[ref(t)]| / 10000 over non-anchor t, float32."""
    da = make_series(n_time=9, n_band=2, height=21, width=13, dtype="uint16", seed=33)
    store = _encode(tmp_path, da, encoding=encoding, anchor_interval=4, chunk_size=8)
    got = zarr.open_group(store, mode="r")["volatility"][:]
    assert got.dtype == np.float32
    assert got.shape == (3, 2)
    want = volatility(da.values, references_for(9, 4), 8)
    assert np.all(want > 0)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_volatility_of_none_store_uses_default_nominal_interval(tmp_path: Path) -> None:
    """Without anchor_interval a none store measures against the nominal interval-6 schedule."""
    da = make_series(n_time=10, n_band=1, height=9, width=9, dtype="int16", seed=34)
    store = _encode(tmp_path, da, encoding="none", chunk_size=8)
    got = zarr.open_group(store, mode="r")["volatility"][:]
    want = volatility(da.values, references_for(10, 6), 8)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    other = volatility(da.values, references_for(10, 3), 8)
    assert not np.allclose(got, other, rtol=1e-6), "the fixture must tell the schedules apart"


def test_volatility_of_float32_and_clipping(tmp_path: Path) -> None:
    """float32 differences are exact in float64; mean changes above 10000 clip to 1.0."""
    da = make_series(n_time=3, n_band=1, height=8, width=16, dtype="float32", seed=35)
    values = da.values.copy()
    values[1, :, :, 8:] += 50000.0  # the right cell changes by far more than 10000
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="none", anchor_interval=2, chunk_size=8)
    got = zarr.open_group(store, mode="r")["volatility"][:]
    want = volatility(values, references_for(3, 2), 8)
    assert got[0, 1] == 1.0
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize(("n_time", "interval"), [(1, 6), (4, 1)])
def test_volatility_is_zero_without_delta_timesteps(tmp_path: Path, n_time: int, interval: int) -> None:
    """One timestep, or every timestep an anchor: volatility is 0.0 everywhere."""
    da = make_series(n_time=n_time, height=12, width=12, dtype="uint16")
    store = _encode(tmp_path, da, encoding="star-delta", anchor_interval=interval, chunk_size=8)
    got = zarr.open_group(store, mode="r")["volatility"][:]
    np.testing.assert_array_equal(got, np.zeros((2, 2), dtype=np.float32))


def _slowly_changing(n_time: int, height: int, width: int, dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    top = np.iinfo(dtype).max
    base = rng.integers(10, top - 10, size=(1, 2, height, width)).astype(np.int64)
    jitter = rng.integers(-1, 2, size=(n_time, 2, height, width))
    return (base + jitter).astype(dtype)


@pytest.mark.parametrize(("dtype", "height", "width", "cells"), [("uint16", 32, 32, 4), ("uint8", 16, 40, 3), ("uint16", 16, 24, 2)])
def test_auto_picks_star_delta_on_nearly_identical_dates(
    tmp_path: Path, dtype: str, height: int, width: int, cells: int
) -> None:
    """Near-identical dates compress far better as residuals: star-delta with a recorded selection."""
    da = make_series(n_time=6, height=height, width=width, dtype=dtype)
    values = _slowly_changing(6, height, width, dtype, seed=36)
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="auto", anchor_interval=3, chunk_size=16)
    temporal = chronozarr_attrs(store)["temporal"]
    assert temporal["encoding"] == "star-delta"
    selection = temporal["selection"]
    assert selection["mode"] == "auto"
    assert set(selection) == {"mode", "sampled_cells", "ratio"}
    if cells < 3:
        assert selection["sampled_cells"] == cells  # all cells when there are fewer than 3
    else:
        assert 3 <= selection["sampled_cells"] <= cells
    assert 0 < selection["ratio"] <= 0.85
    assert temporal["anchor_indices"] == [0, 3]
    np.testing.assert_array_equal(true_values(store, 0), values)


def test_auto_picks_none_on_independent_noise(tmp_path: Path) -> None:
    """Independent noise gains nothing from residuals: none, with the measured ratio above 0.85."""
    da = make_series(n_time=4, height=32, width=32, dtype="uint16")
    values = np.random.default_rng(37).integers(0, 65535, size=da.shape, endpoint=True).astype(np.uint16)
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="auto", chunk_size=16)
    temporal = chronozarr_attrs(store)["temporal"]
    assert temporal["encoding"] == "none"
    assert set(temporal) == {"encoding", "selection"}
    assert temporal["selection"]["mode"] == "auto"
    assert 3 <= temporal["selection"]["sampled_cells"] <= 4
    assert temporal["selection"]["ratio"] > 0.85
    np.testing.assert_array_equal(zarr.open_group(store, mode="r")["0/data"][:], values)


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_auto_on_signed_and_float_is_none_without_selection(tmp_path: Path, dtype: str) -> None:
    """auto applies to uint8/uint16 only; other dtypes get none and no selection."""
    da = make_series(n_time=3, height=8, width=8, dtype=dtype)
    store = _encode(tmp_path, da, encoding="auto", chunk_size=8)
    assert chronozarr_attrs(store)["temporal"] == {"encoding": "none"}


@pytest.mark.parametrize("encoding", ["none", "star-delta"])
def test_forced_encoding_writes_no_selection(tmp_path: Path, encoding: str) -> None:
    """A forced choice is recorded without a selection block, even on data auto would decide otherwise."""
    da = make_series(n_time=4, height=16, width=16, dtype="uint16")
    da = da.copy(data=_slowly_changing(4, 16, 16, "uint16", seed=38))
    store = _encode(tmp_path, da, encoding=encoding, anchor_interval=2, chunk_size=8)
    temporal = chronozarr_attrs(store)["temporal"]
    assert temporal["encoding"] == encoding
    assert "selection" not in temporal
    if encoding == "none":
        assert temporal == {"encoding": "none"}


def test_auto_samples_whole_anchor_groups_of_a_long_series() -> None:
    """A long series is measured on two complete reference groups (each anchor with every timestep
    stored against it), both inside the axis; a short one on every timestep. Groups come from the
    spec 4.2 schedule as tests/expected derives it, not from the writer's Schedule."""
    from chronozarr.write.plan import Schedule
    from chronozarr.write.selection import sample_times

    n_time, interval = 40, 6
    anchors, references = anchors_for(n_time, interval), references_for(n_time, interval)
    long = Schedule.nearest(n_time, interval)
    assert (list(long.anchors), long.references) == (anchors, references)
    times = sample_times(long, n_time)
    sampled = [a for a in anchors if a in times]
    assert len(sampled) == 2 and all(0 < a < anchors[-1] for a in sampled)
    groups = {a: {a} | {t for t, ref in references.items() if ref == a} for a in sampled}
    assert all(len(group) > 1 for group in groups.values())
    assert set(times) == groups[sampled[0]] | groups[sampled[1]]
    assert times == sorted(times)
    # a series of at most 2k + 1 timesteps (13 at interval 6) is measured whole
    assert sample_times(Schedule.nearest(13, 6), 13) == list(range(13))
