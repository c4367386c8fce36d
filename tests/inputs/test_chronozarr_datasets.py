"""A chronozarr store as the input of encode: read reconstructed, with its own metadata."""

from __future__ import annotations

import numpy as np
import pytest
from foreign_stores import Layout, build

from chronozarr import InputError
from chronozarr.inputs import open_input_dataset


@pytest.fixture(scope="module")
def star_delta_store(tmp_path_factory):
    """A store written by another implementation: star-delta, mask, nodata null, scaled bands."""
    path = tmp_path_factory.mktemp("store-input") / "store"
    levels = build(path, Layout(anchor_interval=3, n_time=6, mask=True, nodata=None))
    return path, levels


@pytest.mark.parametrize(("where", "group", "level"), [("", None, 0), ("", "1", 1), ("/1", None, 1)])
def test_a_chronozarr_store_is_read_reconstructed_with_its_own_metadata(star_delta_store, where, group, level):
    path, levels = star_delta_store
    data, mask, _ = levels[level]
    with open_input_dataset(f"{path}{where}", group=group) as source:
        np.testing.assert_array_equal(source.data.values, data)  # true values, not residuals
        np.testing.assert_array_equal(source.mask.values, mask)
        assert source.crs == "EPSG:32631"
        arguments = source.encode_arguments()
        assert arguments["nodata"] is None  # declared null, not the uint16 default 0
        assert [(b.name, b.scale) for b in arguments["bands"]] == [("B0", 0.0001), ("B1", 0.0001)]


def test_a_chronozarr_store_group_must_be_a_level(star_delta_store):
    path, _ = star_delta_store
    with pytest.raises(InputError, match="--group must be one of its level numbers"):
        open_input_dataset(path, group="0/data")
    with pytest.raises(InputError, match="there is no level 9"):
        open_input_dataset(path, group="9")
