"""export_cog: true values at level 0 and 1, georeferencing, band metadata, COG layout, masks, files."""

from __future__ import annotations

import numpy as np
import pytest
from export_stores import CRS, float_masked, level_one, star_delta_masked

import chronozarr
from chronozarr.errors import InputError, OutputExistsError
from chronozarr.export.cog import export_cog, file_names
from chronozarr.serve import StoreServer

import rasterio


@pytest.fixture(scope="module")
def star(tmp_path_factory):
    return star_delta_masked(tmp_path_factory.mktemp("star"))


@pytest.fixture(scope="module")
def floats(tmp_path_factory):
    return float_masked(tmp_path_factory.mktemp("float"))


def _read(path):
    with rasterio.open(path) as src:
        return src.read(), src.read_masks(1), src


def _expected(built, t, level):
    """(values, mask or None) the COG of timestep t must hold: masked pixels become nodata."""
    values = built.values[t]
    mask = None if built.mask is None else built.mask[t]
    if level == 1:
        values, mask = level_one(values, mask, built.nodata)
    if mask is not None and built.nodata is not None:
        values = np.where(mask.astype(bool), values, np.asarray(built.nodata, dtype=values.dtype))
    return values, mask


@pytest.mark.parametrize("level", [0, 1])
def test_star_delta_store_exports_true_values_bit_for_bit(star, tmp_path, level):
    summary = export_cog(star.path, tmp_path, level=level, progress=False)
    assert [p.name for p in summary.files] == [f"L{level}_2024-0{m}-01.tif" for m in range(1, 6)]
    for t, path in enumerate(summary.files):
        values, mask = _expected(star, t, level)
        got, got_mask, src = _read(path)
        assert got.dtype == values.dtype
        np.testing.assert_array_equal(got, values)
        np.testing.assert_array_equal(got_mask, np.where(mask.astype(bool), 255, 0))
        assert src.nodata == 0


def test_masked_pixels_are_nodata_and_valid_nodata_values_stay_valid(star, tmp_path):
    export_cog(star.path, tmp_path, times="2", progress=False)
    with rasterio.open(tmp_path / "L0_2024-03-01.tif") as src:
        data = src.read(masked=True)
        assert src.mask_flag_enums[0] == [rasterio.enums.MaskFlags.per_dataset]
    assert data.mask[:, 0, 0].all() and (data.data[:, 0, 0] == 0).all()
    assert not data.mask[:, 2, 2].any()  # valid in the mask although the corner around it is not
    assert not data.mask[:, 10, 10].any() and (data.data[:, 10, 10] == 0).all()


@pytest.mark.parametrize("level", [0, 1])
def test_float_store_with_mask_and_no_nodata_keeps_the_mask_band(floats, tmp_path, level):
    summary = export_cog(floats.path, tmp_path, level=level, progress=False)
    for t, path in enumerate(summary.files):
        values, mask = _expected(floats, t, level)
        got, got_mask, src = _read(path)
        assert got.tobytes() == values.tobytes()  # bit for bit, NaN-safe
        np.testing.assert_array_equal(got_mask, np.where(mask.astype(bool), 255, 0))
        assert src.nodata is None


def test_georeferencing_and_band_metadata(star, floats, tmp_path):
    export_cog(star.path, tmp_path / "star", level=1, times="0", progress=False)
    export_cog(floats.path, tmp_path / "float", times="0", progress=False)
    with rasterio.open(tmp_path / "star" / "L1_2024-01-01.tif") as src:
        assert src.crs.to_epsg() == int(CRS.split(":")[1])
        assert tuple(src.transform)[:6] == (20.0, 0.0, 500_000.0, 0.0, -20.0, 5_000_000.0)
        assert (src.height, src.width, src.count) == (19, 15, 2)
        assert src.descriptions == ("red", "nir")
        assert src.scales == (1e-4, 2e-4) and src.offsets == (-0.1, 0.0)
        assert src.units == ("reflectance", "reflectance")
    with rasterio.open(tmp_path / "float" / "L0_2024-01-01.tif") as src:
        assert tuple(src.transform)[:6] == (10.0, 0.0, 500_000.0, 0.0, -10.0, 5_000_000.0)
        assert src.descriptions == ("temperature", "albedo")
        assert src.scales == (0.5, 1.0) and src.offsets == (273.15, 0.0)
        assert src.units[0] == "K" and not src.units[1]


def test_files_are_cloud_optimized_with_three_overviews(floats, star, tmp_path):
    (floats_file,) = export_cog(floats.path, tmp_path / "float", times="0", progress=False).files
    (star_file,) = export_cog(star.path, tmp_path / "star", times="0", progress=False).files
    with rasterio.open(floats_file) as src:  # 64 x 80 float32
        structure = src.tags(ns="IMAGE_STRUCTURE")
        assert structure["LAYOUT"] == "COG"
        assert (structure["COMPRESSION"], structure["PREDICTOR"], structure["INTERLEAVE"]) == ("DEFLATE", "3", "PIXEL")
        assert structure["OVERVIEW_RESAMPLING"] == "AVERAGE"
        assert src.block_shapes == [(512, 512)] * 2
        assert src.overviews(1) == [2, 4, 8] and src.overviews(2) == [2, 4, 8]
    with rasterio.open(star_file) as src:  # 37 x 29 uint16
        structure = src.tags(ns="IMAGE_STRUCTURE")
        assert (structure["LAYOUT"], structure["PREDICTOR"]) == ("COG", "2")
        assert len(src.overviews(1)) == 3


def test_only_complete_files_are_left(star, tmp_path):
    export_cog(star.path, tmp_path, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"L0_2024-0{m}-01.tif" for m in range(1, 6)]


def test_a_failed_write_leaves_no_file_under_the_final_name(star, tmp_path, monkeypatch):
    import chronozarr.export.cog as cog

    def fail(rasterio, path, *args):
        path.write_bytes(b"half a tiff")
        raise RuntimeError("disk full")

    monkeypatch.setattr(cog, "_write", fail)
    with pytest.raises(RuntimeError):
        export_cog(star.path, tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_existing_files_are_refused_unless_overwrite_and_other_files_stay(star, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    export_cog(star.path, tmp_path, times="0", progress=False)
    export_cog(star.path, tmp_path, times="1", progress=False)  # a different file: allowed
    with pytest.raises(OutputExistsError, match=r"L0_2024-01-01\.tif.*--overwrite"):
        export_cog(star.path, tmp_path, times="0..1", progress=False)
    export_cog(star.path, tmp_path, times="0..1", overwrite=True, progress=False)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_times_select_by_index_date_prefix_and_range(star, tmp_path):
    summary = export_cog(star.path, tmp_path, times="-1,2024-02,2024-03..2024-03-31", progress=False)
    assert [p.name for p in summary.files] == ["L0_2024-02-01.tif", "L0_2024-03-01.tif", "L0_2024-05-01.tif"]
    assert [p.name for p in export_cog(star.path, tmp_path / "b", times=[0, 4], progress=False).files] == [
        "L0_2024-01-01.tif", "L0_2024-05-01.tif"
    ]
    with pytest.raises(InputError, match="2023"):
        export_cog(star.path, tmp_path, times="2023-", progress=False)


def test_a_level_that_does_not_exist_is_refused(star, tmp_path):
    with pytest.raises(InputError, match=r"levels 0\.\.2"):
        export_cog(star.path, tmp_path, level=3, progress=False)


def test_timesteps_sharing_a_date_get_the_time_in_their_names():
    times = np.array(["2024-01-01T00:00", "2024-01-01T12:30", "2024-01-02T00:00"], dtype="datetime64[ms]")
    assert file_names(times, 2) == ["L2_2024-01-01T00-00-00.tif", "L2_2024-01-01T12-30-00.tif", "L2_2024-01-02.tif"]


def test_a_store_served_over_http_exports_the_same_values(star, tmp_path):
    with StoreServer(star.path.parent) as server:
        summary = export_cog(f"{server.url}/{star.path.name}", tmp_path, times="1", progress=False)
    got, _, _ = _read(summary.files[0])
    np.testing.assert_array_equal(got, _expected(star, 1, 0)[0])


def test_tiny_levels_get_the_overviews_that_fit(tmp_path):
    from conftest import make_series

    for height, width, overviews in ((3, 2, 1), (5, 4, 2), (9, 2, 3)):
        name = f"s{height}x{width}"
        chronozarr.encode(make_series(n_time=1, n_band=1, height=height, width=width), tmp_path / name, crs=CRS, chunk_size=2, encoding="none", progress=False)
        path = export_cog(tmp_path / name, tmp_path / f"out-{name}", progress=False).files[0]
        with rasterio.open(path) as src:
            assert len(src.overviews(1)) == overviews
            assert src.tags(ns="IMAGE_STRUCTURE")["LAYOUT"] == "COG"


def test_a_level_is_written_in_strips_of_chunk_rows_and_the_staging_file_goes(star, tmp_path, monkeypatch):
    monkeypatch.setattr("chronozarr.export.cog.STRIP_ROWS", 16)  # 37 rows of 16-pixel chunks: 3 strips
    reads = []
    original = chronozarr.read.dataset.ChronoDataset.read

    def counted(self, t, lod=0, bands=None, window=None):
        reads.append(window)
        return original(self, t, lod, bands, window)

    monkeypatch.setattr(chronozarr.read.dataset.ChronoDataset, "read", counted)
    summary = export_cog(star.path, tmp_path, times=[1], progress=False)
    assert [w[0] for w in reads] == [slice(0, 16), slice(16, 32), slice(32, 37)]
    values, mask_band, _ = _read(summary.files[0])
    expected, mask = _expected(star, 1, 0)
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(mask_band, np.where(mask.astype(bool), 255, 0))
    assert sorted(p.name for p in tmp_path.iterdir()) == [summary.files[0].name]
