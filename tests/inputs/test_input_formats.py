"""inputs/input_formats: each input is recognised by what it is on disk, in the table's order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from chronozarr.inputs.input_formats import CLASSIC_NETCDF, DATED_FILES, INPUT_FORMATS, LISTING, NETCDF4, ZARR, accepted, input_format


@pytest.fixture
def dataset() -> xr.Dataset:
    return xr.Dataset({"v": (("y", "x"), np.arange(6, dtype="int16").reshape(2, 3))})


def test_netcdf_files_are_told_apart_by_their_signature_not_their_name(tmp_path: Path, dataset: xr.Dataset) -> None:
    dataset.to_netcdf(tmp_path / "four.dat", engine="netcdf4", format="NETCDF4")
    dataset.to_netcdf(tmp_path / "classic.bin", engine="netcdf4", format="NETCDF3_CLASSIC")
    (tmp_path / "fake.nc").write_bytes(b"not a netcdf file")
    assert input_format(tmp_path / "four.dat") is NETCDF4
    assert input_format(tmp_path / "classic.bin") is CLASSIC_NETCDF
    assert input_format(tmp_path / "fake.nc") is None


def test_zarr_stores_by_their_metadata_files_and_urls(tmp_path: Path, dataset: xr.Dataset) -> None:
    dataset.to_zarr(tmp_path / "v3", zarr_format=3)
    dataset.to_zarr(tmp_path / "v2", zarr_format=2)
    (tmp_path / "plain").mkdir()
    assert input_format(tmp_path / "v3") is ZARR
    assert input_format(tmp_path / "v2") is ZARR
    assert input_format(tmp_path / "plain") is None
    assert input_format("https://example.org/store.zarr") is ZARR
    assert input_format("s3://bucket/store") is ZARR


def test_raster_listings_and_globs_come_first(tmp_path: Path) -> None:
    (tmp_path / "2024-01-01.tif").write_bytes(b"")
    assert input_format(f"{tmp_path}/*.tif") is DATED_FILES
    (tmp_path / "list.csv").write_text("uri,datetime\n")
    assert input_format(tmp_path / "list.csv") is LISTING
    assert input_format("https://example.org/items.json") is LISTING


def test_every_entry_is_named_in_the_accepted_list() -> None:
    text = accepted()
    assert all(f.name in text and f.told_by in text for f in INPUT_FORMATS)
    assert set(accepted(per_date=True).split("; ")) == {f"{f.name} ({f.told_by})" for f in INPUT_FORMATS if f.per_date}
