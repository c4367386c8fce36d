"""CF fill values and packing are kept as stored and become the store's nodata and band scale
and offset; --cast reads xarray's decoded values instead."""

from __future__ import annotations

import numpy as np
import pytest
from source_inputs import cf_encoded, write

from chronozarr import InputError
from chronozarr.inputs import open_input_dataset


@pytest.mark.parametrize("suffix", [".nc", ".zarr"])
def test_a_cf_fill_value_keeps_the_stored_dtype_and_becomes_the_nodata(tmp_path, suffix):
    ds, raw = cf_encoded(dtype="uint16", fill=65535, scale=None, offset=None, names=("B04",))
    with open_input_dataset(write(ds, tmp_path / f"in{suffix}")) as source:
        assert source.data.dtype == np.uint16  # xarray alone reads float32 with NaN
        np.testing.assert_array_equal(source.data.values[:, 0], raw["B04"])
        assert source.encode_arguments()["nodata"] == 65535
        assert "bands" not in source.encode_arguments()  # no packing: bands come from their names


def test_cf_packing_becomes_band_scale_offset_and_units(tmp_path):
    ds, raw = cf_encoded()
    with open_input_dataset(write(ds, tmp_path / "in.nc")) as source:
        assert source.data.dtype == np.int16
        np.testing.assert_array_equal(source.data.values[:, 0], raw["sst"])
        (band,) = source.encode_arguments()["bands"]
        assert (band.name, band.scale, band.offset, band.units) == ("sst", 0.01, 20.0, "degC")
        assert source.nodata == -32768


def test_stacked_variables_keep_each_ones_packing(tmp_path):
    ds, raw = cf_encoded(dtype="uint16", fill=0, names=("B02", "B04"))
    ds["B04"].attrs.update(scale_factor=0.0002, add_offset=-0.1)
    with open_input_dataset(write(ds, tmp_path / "in.nc"), variables=["B02", "B04"]) as source:
        np.testing.assert_array_equal(source.data.values[:, 1], raw["B04"])
        bands = source.encode_arguments()["bands"]
        assert [(b.name, b.common_name, b.scale, b.offset) for b in bands] == [("B02", "blue", 0.01, 20.0), ("B04", "red", 0.0002, -0.1)]


def test_variables_with_different_fill_values_need_a_cast(tmp_path):
    ds, _ = cf_encoded(dtype="uint16", fill=0, names=("B02",))
    ds["B04"] = cf_encoded(dtype="uint16", fill=65535, names=("B04",))[0]["B04"]
    path = write(ds, tmp_path / "in.nc")
    with pytest.raises(InputError, match=r"mark missing values differently \(B02: 0, B04: 65535\).*--cast float32"):
        open_input_dataset(path, variables=["B02", "B04"])
    with open_input_dataset(path, variables=["B02", "B04"], cast="float32", lossy=True) as source:
        assert np.isnan(source.data.values[0, :, 0, 0]).all()


def test_cast_reads_the_decoded_physical_values(tmp_path):
    ds, raw = cf_encoded()
    with open_input_dataset(write(ds, tmp_path / "in.nc"), cast="float32", lossy=True) as source:
        expected = np.where(raw["sst"] == -32768, np.nan, raw["sst"] * 0.01 + 20.0).astype("float32")
        np.testing.assert_array_equal(source.data.values[:, 0], expected)
        assert "bands" not in source.encode_arguments() and "nodata" not in source.encode_arguments()


def test_an_integer_cast_of_a_decoded_fill_value_names_the_way_out(tmp_path):
    ds, _ = cf_encoded(dtype="uint16", fill=0, scale=None, offset=None)
    with open_input_dataset(write(ds, tmp_path / "in.nc"), cast="uint16") as source:
        with pytest.raises(InputError, match="without --cast the stored values are kept and the fill value becomes the nodata"):
            source.data.values


@pytest.mark.parametrize("bits", [8, 16])
def test_unsigned_flagged_integers_are_stored_as_the_unsigned_values_they_mean(tmp_path, bits):
    # GOES-R ABI style: uint stored in its signed twin with _Unsigned = "true", fill -1, packing.
    ds, raw = cf_encoded(dtype=f"uint{bits}", fill=(1 << bits) - 1, scale=0.5, offset=-3.0, names=("Rad",), units="W m-2")
    ds["Rad"].encoding.update(dtype=f"int{bits}", _Unsigned="true", _FillValue=np.dtype(f"int{bits}").type(-1))
    path = write(ds, tmp_path / "in.nc")
    with open_input_dataset(path) as source:
        assert source.data.dtype == np.dtype(f"uint{bits}")
        np.testing.assert_array_equal(source.data.values[:, 0], raw["Rad"])
        assert source.nodata == (1 << bits) - 1
        (band,) = source.encode_arguments()["bands"]
        assert (band.scale, band.offset, band.units) == (0.5, -3.0, "W m-2")
        # Physical values as xarray's own CF decoding gives them.
        import xarray as xr

        with xr.open_dataset(path) as decoded:
            expected = decoded["Rad"].values
        stored = source.data.values[:, 0].astype("float64")
        physical = np.where(stored == source.nodata, np.nan, stored * band.scale + band.offset)
        np.testing.assert_array_equal(physical, expected)
