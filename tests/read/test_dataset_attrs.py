"""What the reference's water-mask guide reads from a store: `open_dataset(path).to_xarray()` with the
mask as a (time, y, x) coordinate, and `open_dataset(path).attrs.bands` with each band's scale, offset
and units (the JS reader's `store.attrs.bands[i]`). Expected values come from the arrays written
here and the band list given to encode, never from the reader."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import chronozarr
from chronozarr.read import attributes
from conftest import make_series

BANDS = [
    {"name": "ndwi", "scale": 1e-4, "offset": 0.0, "units": "index"},
    {"name": "water", "scale": 1e-4, "offset": 0.0, "units": "fraction"},
]


@pytest.fixture(scope="module")
def water_store(tmp_path_factory):
    """A small water-mask store in the guide's form: int16 ndwi x 10000, water 0 or 10000, a mask."""
    rng = np.random.default_rng(3)
    ndwi = rng.integers(-9000, 9000, size=(4, 20, 24)).astype(np.int16)
    water = np.where(ndwi > -1500, 10000, 0).astype(np.int16)
    mask = (rng.random((4, 20, 24)) > 0.25).astype(np.uint8)
    values = np.stack([ndwi * mask, water * mask], axis=1)
    da = make_series(n_time=4, n_band=2, height=20, width=24, dtype="int16", bands=["ndwi", "water"]).copy(data=values)
    path = tmp_path_factory.mktemp("water") / "water-1"
    chronozarr.encode(da, path, crs="EPSG:32718", chunk_size=16, bands=BANDS, mask=mask, coverage=mask, nodata=None, progress=False)
    return path, values, mask


def test_to_xarray_carries_the_mask_as_a_coordinate(water_store):
    path, values, mask = water_store
    da = chronozarr.open_dataset(path).to_xarray()
    assert "mask" in da.coords and "mask" not in da.dims
    assert da.coords["mask"].dims == ("time", "y", "x")
    np.testing.assert_array_equal(da.coords["mask"].values, mask)
    np.testing.assert_array_equal(da.values, values)
    # the guide's selection: the valid pixels of a month, by the coordinate
    month = da.isel(time=2).sel(band="water")
    np.testing.assert_array_equal(month.where(month.mask == 1, drop=False).values[mask[2] == 1], values[2, 1][mask[2] == 1])


def test_physical_values_are_nan_exactly_where_the_mask_is_zero(water_store):
    path, values, mask = water_store
    da = chronozarr.open_dataset(path).to_xarray(times=[1, 3], physical=True)
    expected = values[[1, 3]].astype(np.float64) * 1e-4
    expected[np.broadcast_to((mask[[1, 3]] == 0)[:, None], expected.shape)] = np.nan
    np.testing.assert_allclose(da.values, expected, rtol=1e-6)
    np.testing.assert_array_equal(da.coords["mask"].values, mask[[1, 3]])
    assert set(np.unique(da.sel(band="water").values[~np.isnan(da.sel(band="water").values)])) <= {0.0, 1.0}


def test_a_store_without_a_mask_has_no_mask_coordinate(tmp_path):
    chronozarr.encode(make_series(n_time=2), tmp_path / "s", crs="EPSG:32631", chunk_size=16, progress=False)
    assert "mask" not in chronozarr.open_dataset(tmp_path / "s").to_xarray().coords


def test_attrs_bands_reads_as_the_reference_writes_it(water_store):
    path, _, _ = water_store
    attrs = chronozarr.open_dataset(path).attrs
    assert [(b.name, b.scale, b.offset, b.units) for b in attrs.bands] == [(b["name"], b["scale"], b["offset"], b["units"]) for b in BANDS]
    assert attrs["bands"] == attrs.bands  # a mapping too, as the JS reader's attrs object
    assert attrs.crs == "EPSG:32718" and attrs.spec_version == "0.2.0" and len(attrs.times) == 4
    assert attrs.mask_variable == "mask"
    with pytest.raises(AttributeError, match="no 'scale'"):
        _ = attrs.scale


def test_a_root_attribute_through_attrs_still_answers_with_one_warning(water_store):
    path, _, _ = water_store
    store = chronozarr.open_dataset(path)
    attributes._warned.clear()  # earlier tests of this process may have used the old form
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = store.attrs["chronozarr"]
        second = store.attrs.get("multiscales")
    assert first == store.root_attrs["chronozarr"] and second == store.root_attrs["multiscales"]
    assert first["bands"][0]["units"] == "index"
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1 and "store.root_attrs[key]" in str(deprecations[0].message)
