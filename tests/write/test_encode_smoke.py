"""A first end-to-end check: encode writes a store zarr-python opens with the input at level 0."""

import numpy as np
import zarr

import chronozarr


def test_none_store_reads_back_through_plain_zarr(tmp_path, series_factory):
    da = series_factory()
    chronozarr.encode(da, tmp_path / "store", crs="EPSG:32631", encoding="none", chunk_size=16)
    group = zarr.open_group(tmp_path / "store", mode="r")
    np.testing.assert_array_equal(group["0/data"][:], da.values)
