"""ChronoDataset reads equal the source for every layout the writer makes (checked against the input
array and a numpy block mean written here, never against the reader itself)."""

from __future__ import annotations

import numpy as np
import pytest

import chronozarr
from chronozarr.errors import StoreError

LAYOUTS = {
    "none": dict(encoding="none"),
    "star": dict(encoding="star-delta", anchor_interval=3),
    "star-sharded": dict(encoding="star-delta", anchor_interval=3, shard=True, shard_time=4),
    "none-sharded-whole": dict(encoding="none", shard=True),
    "star-sharded-long": dict(encoding="star-delta", anchor_interval=2, shard=True, shard_time=10),
}


def mean2x2(plane: np.ndarray) -> np.ndarray:
    """Level-1 block mean of a (band, y, x) uint16 plane with nodata 0, written independently."""
    b, h, w = plane.shape
    padded = np.pad(plane, ((0, 0), (0, h % 2), (0, w % 2)), mode="edge").astype(np.int64)
    blocks = padded.reshape(b, (h + 1) // 2, 2, (w + 1) // 2, 2)
    valid = blocks != 0
    total = (blocks * valid).sum(axis=(2, 4))
    count = valid.sum(axis=(2, 4))
    return np.where(count > 0, total // np.maximum(count, 1), 0).astype(plane.dtype)


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def written(request, tmp_path_factory):
    from conftest import make_series

    da = make_series(n_time=7, height=37, width=29, seed=5)
    values = da.values.copy()
    values[2, :, :5, :5] = 0  # nodata patch
    values[3, 0] = np.where(values[3, 0] % 7 == 0, 65535, values[3, 0])  # wraparound residuals
    da = da.copy(data=values)
    mask = (np.random.default_rng(1).random((7, 37, 29)) > 0.1).astype(np.uint8)
    coverage = np.random.default_rng(2).integers(0, 9, size=(7, 37, 29)).astype(np.uint8)
    path = tmp_path_factory.mktemp(request.param) / "store"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, mask=mask, coverage=coverage, **LAYOUTS[request.param])
    return path, values, mask, coverage


def test_every_timestep_reads_back_exactly(written):
    path, values, mask, coverage = written
    with chronozarr.open_dataset(path) as store:
        for t in range(values.shape[0]):
            np.testing.assert_array_equal(store.read(t), values[t])
            np.testing.assert_array_equal(store.read_mask(t), mask[t])
            np.testing.assert_array_equal(store.read_coverage(t), coverage[t])


def test_level_one_equals_an_independent_block_mean_without_mask(tmp_path):
    from conftest import make_series

    da = make_series(n_time=3, height=37, width=29, seed=9)
    values = da.values.copy()
    values[1, :, 3:9, 4:7] = 0
    chronozarr.encode(da.copy(data=values), tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=2)
    with chronozarr.open_dataset(tmp_path / "s") as store:
        for t in range(3):
            np.testing.assert_array_equal(store.read(t, lod=1), mean2x2(values[t]))


def test_cells_windows_bands_and_points(written):
    path, values, _, _ = written
    with chronozarr.open_dataset(path) as store:
        np.testing.assert_array_equal(store.read_cell(4, 2, 1), values[4, :, 32:37, 16:29])
        np.testing.assert_array_equal(store.read(5, window=(slice(10, 30), slice(3, 20))), values[5, :, 10:30, 3:20])
        np.testing.assert_array_equal(store.read(5, window=(10, 30, 3, 20), bands=["b1"]), values[5, 1:2, 10:30, 3:20])
        np.testing.assert_array_equal(store.read_point(20, 17), values[:, :, 20, 17])
        np.testing.assert_array_equal(store.read_point(36, 28, times=[6, 1]), values[[6, 1], :, 36, 28])


def test_to_xarray_physical_applies_scale_and_validity(written):
    path, values, mask, _ = written
    with chronozarr.open_dataset(path) as store:
        raw = store.to_xarray(times=[2, 3])
        np.testing.assert_array_equal(raw.values, values[[2, 3]])
        assert list(raw.band.values) == ["b0", "b1"]
        phys = store.to_xarray(times=[2], physical=True).values[0]
    expected = values[2].astype(np.float64)  # scale 1, offset 0 for bands named b0/b1
    expected[:, mask[2] == 0] = np.nan
    np.testing.assert_array_equal(phys, expected)


def test_properties_describe_the_store(written):
    path, values, _, _ = written
    with chronozarr.open_dataset(path) as store:
        assert store.times_iso[0] == "2024-01-01T00:00:00Z"
        assert store.times.dtype == np.dtype("datetime64[ms]")
        assert store.band_names == ["b0", "b1"]
        assert store.dtype == np.uint16 and store.nodata == 0 and store.crs == "EPSG:32631"
        assert [l.shape for l in store.levels][:2] == [(7, 2, 37, 29), (7, 2, 19, 15)]
        assert store.levels[0].chunk_size == 16 and store.levels[0].grid == (3, 2)
        assert store.level_for_resolution(25.0) == 1 and store.level_for_resolution(5.0) == 0


def test_out_of_range_requests_are_errors_not_garbage(written):
    path, *_ = written
    with chronozarr.open_dataset(path) as store:
        with pytest.raises(IndexError):
            store.read(7)
        with pytest.raises(IndexError):
            store.read_cell(0, 5, 0)
        with pytest.raises(IndexError):
            store.read(0, lod=9)
        with pytest.raises(KeyError):
            store.read(0, bands=["nir"])


def test_missing_chunks_read_as_fill(tmp_path):
    from conftest import make_series

    da = make_series(n_time=2, height=16, width=16)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="none")
    (tmp_path / "s" / "0" / "data" / "c" / "1" / "0" / "0" / "0").unlink()
    with chronozarr.open_dataset(tmp_path / "s") as store:
        assert (store.read(1) == 0).all()


def test_opening_a_non_store_names_the_problem(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        chronozarr.open_dataset(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreError, match="no zarr.json"):
        chronozarr.open_dataset(tmp_path / "empty")


def test_read_region_out_of_range_raises_our_errors_that_are_still_the_builtins(tmp_path):
    """A region past the level, a timestep past the axis, a level or an array the store does not
    have: each is a ChronozarrError (the CLI prints it as one line) and still the builtin a caller
    may catch (IndexError, KeyError)."""
    from conftest import make_series

    from chronozarr.errors import ChronozarrError, OutOfRangeError, UnknownNameError

    path = tmp_path / "store"
    chronozarr.encode(make_series(n_time=3, height=20, width=18, seed=2), path, crs="EPSG:32631", chunk_size=16)
    with chronozarr.open_dataset(path) as store:
        cases = [
            (OutOfRangeError, IndexError, lambda: store.read_region("data", [0], slice(0, 21), slice(0, 4))),
            (OutOfRangeError, IndexError, lambda: store.read_region("data", [0], slice(0, 4), slice(-1, 4))),
            (OutOfRangeError, IndexError, lambda: store.read_region("data", [3], slice(0, 4), slice(0, 4))),
            (OutOfRangeError, IndexError, lambda: store.read_region("data", [0], slice(0, 4), slice(0, 4), lod=9)),
            (UnknownNameError, KeyError, lambda: store.read_region("mask", [0], slice(0, 4), slice(0, 4))),
        ]
        for ours, builtin, call in cases:
            with pytest.raises(ours) as caught:
                call()
            assert isinstance(caught.value, ChronozarrError) and isinstance(caught.value, builtin)
            assert "'" not in str(caught.value)[:1]  # the message as written, not KeyError's quoted repr
