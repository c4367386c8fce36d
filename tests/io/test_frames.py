"""RasterFrames: indexing the lazy array reads the same values numpy indexing gives on the stack."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from raster_inputs import geotiff, pixels
from xarray.core import indexing

from chronozarr.io.frames import FileReads, RasterFrames, lazy_array

KEYS = [
    (0, slice(None), slice(None), slice(None)),
    (slice(1, 3), 1, slice(2, 9), slice(None, None, 3)),
    (2, slice(None, None, -1), 5, slice(-4, None)),
    (slice(None), slice(0, 0), slice(None), slice(None)),
    (-1, 0, slice(19, 2, -4), 17),
]


@pytest.fixture
def stack(tmp_path):
    arrays = np.stack([pixels(3, seed=i) for i in range(3)])
    uris = [str(geotiff(tmp_path / f"{i}.tif", a)) for i, a in enumerate(arrays)]
    return arrays, uris


@pytest.mark.parametrize("key", KEYS)
def test_indexing_matches_numpy(stack, key):
    arrays, uris = stack
    frames = RasterFrames(uris, (1, 2, 3), *arrays.shape[2:], "uint16", FileReads((1, 2, 3)))
    np.testing.assert_array_equal(frames[indexing.BasicIndexer(key)], arrays[key])


def test_band_subset_and_alpha_validity(stack):
    arrays, uris = stack
    reads = FileReads((1, 3, 2))
    subset = RasterFrames(uris, (3, 1), *arrays.shape[2:], "uint16", reads)
    np.testing.assert_array_equal(subset[indexing.BasicIndexer((slice(None),) * 4)], arrays[:, [2, 0]])
    alpha = RasterFrames(uris, (2,), *arrays.shape[2:], "uint16", reads, alpha=True)
    expected = (arrays[:, 1] != 0).astype(np.uint8)
    assert alpha.shape == expected.shape and alpha.dtype == np.uint8
    np.testing.assert_array_equal(alpha[indexing.BasicIndexer((1, slice(3, 7), slice(None)))], expected[1, 3:7])


def test_lazy_array_reads_on_demand(stack):
    arrays, uris = stack
    frames = RasterFrames(uris, (1, 2, 3), *arrays.shape[2:], "uint16", FileReads((1, 2, 3)))
    da = lazy_array(frames, ("time", "band", "y", "x"), {"time": np.arange(3), "extra": np.arange(9)})
    assert isinstance(da, xr.DataArray) and "extra" not in da.coords
    np.testing.assert_array_equal(da[1, :, 4:6].values, arrays[1, :, 4:6])


def test_data_and_alpha_of_a_timestep_come_from_one_read(stack, monkeypatch):
    arrays, uris = stack
    reads = FileReads((1, 3, 2))
    data = RasterFrames(uris, (1, 3), *arrays.shape[2:], "uint16", reads)
    alpha = RasterFrames(uris, (2,), *arrays.shape[2:], "uint16", reads, alpha=True)
    opened = []
    import chronozarr.io.frames as frames_module

    real = frames_module.rasterio_module

    class Counting:
        def open(self, uri):
            opened.append(uri)
            return real().open(uri)

    monkeypatch.setattr(frames_module, "rasterio_module", Counting)
    for t in range(3):
        np.testing.assert_array_equal(data[indexing.BasicIndexer((t, slice(None), slice(None), slice(None)))], arrays[t, [0, 2]])
        np.testing.assert_array_equal(alpha[indexing.BasicIndexer((t, slice(None), slice(None)))], (arrays[t, 1] != 0).astype(np.uint8))
    assert opened == uris  # one read per file, not one per array
