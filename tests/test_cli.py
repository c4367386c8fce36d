"""`chronozarr encode` from the command line: through CliRunner, and once as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import zarr
import xarray as xr
from foreign_stores import Layout, build
from source_inputs import band_variables, cf_encoded, cube, latlon, write
from typer.testing import CliRunner

from chronozarr.cli import app

EXAMPLE = "chronozarr encode scenes.nc my_store --variables B02,B03,B04,B08 --crs EPSG:32631"
FAST = ["--chunk-size", "16", "--no-progress"]


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def store_attrs(out: Path) -> dict:
    return zarr.open_group(out, mode="r").attrs["chronozarr"]


def level0(out: Path, name: str = "data") -> np.ndarray:
    return zarr.open_group(out, mode="r")[f"0/{name}"][:]


@pytest.mark.parametrize("args", [["--help"], ["encode", "--help"]])
def test_help_shows_a_concrete_example(args):
    result = run(*args)
    assert result.exit_code == 0
    assert EXAMPLE in result.stdout


def test_no_arguments_prints_help():
    assert "encode" in run().output


def test_encode_a_4d_netcdf_variable(tmp_path):
    ds = cube()
    out = tmp_path / "store"
    result = run("encode", write(ds, tmp_path / "in.nc"), out, "--encoding", "none", *FAST)
    assert result.exit_code == 0, result.output
    assert str(out) in result.stdout and "levels, encoding none" in result.stdout
    np.testing.assert_array_equal(level0(out), ds["reflectance"].values)
    attrs = store_attrs(out)
    assert attrs["crs"] == "EPSG:32631"
    assert attrs["band_names"] == ["b0", "b1"]


def test_encode_variables_as_bands_with_mask_from_zarr(tmp_path):
    ds = band_variables()
    out = tmp_path / "store"
    result = run(
        "encode", write(ds, tmp_path / "in.zarr"), out, "--variables", "B02,B03,B04", "--mask-variable", "valid",
        "--encoding", "star-delta", "--anchor-interval", "2", *FAST,
    )
    assert result.exit_code == 0, result.output
    attrs = store_attrs(out)
    assert attrs["band_names"] == ["B02", "B03", "B04"]
    assert attrs["mask_variable"] == "mask"
    np.testing.assert_array_equal(level0(out, "mask"), ds["valid"].values)
    anchors = level0(out)[0]  # timestep 0 is an anchor: true values, where the mask is valid
    np.testing.assert_array_equal(anchors[0], ds["B02"].values[0])


def test_south_up_latlon_is_stored_north_up_in_epsg_4326(tmp_path):
    ds = latlon(south_up=True)
    out = tmp_path / "store"
    result = run("encode", write(ds, tmp_path / "in.nc"), out, "--encoding", "none", *FAST)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(level0(out), ds["ndvi"].values[:, :, ::-1, :])
    assert store_attrs(out)["crs"] == "EPSG:4326"
    y = zarr.open_group(out, mode="r")["0/y"][:]
    assert y[0] > y[-1]


def test_layout_codec_bands_and_provenance_options_reach_the_store(tmp_path):
    bands = [{"name": "blue", "common_name": "blue", "scale": 0.0001, "offset": 0, "units": "reflectance"},
             {"name": "green", "scale": 0.0001}]
    provenance = {"sources": ["synthetic"], "composite": "none", "gap_fill": "none"}
    (tmp_path / "bands.json").write_text(json.dumps(bands))
    (tmp_path / "prov.json").write_text(json.dumps(provenance))
    out = tmp_path / "store"
    result = run(
        "encode", write(cube(), tmp_path / "in.nc"), out, "--shard", "--shard-time", "2", "--codec", "blosc",
        "--blosc-shuffle", "shuffle", "--level", "3", "--nodata", "none", "--workers", "2",
        "--bands-json", tmp_path / "bands.json", "--provenance-json", tmp_path / "prov.json", *FAST,
    )
    assert result.exit_code == 0, result.output
    attrs = store_attrs(out)
    assert attrs["band_names"] == ["blue", "green"]
    assert attrs["provenance"]["sources"] == ["synthetic"]
    assert attrs["nodata"] is None
    codecs = json.loads((out / "0" / "data" / "zarr.json").read_text())["codecs"]
    assert codecs[0]["name"] == "sharding_indexed"
    assert codecs[0]["configuration"]["codecs"][1]["configuration"]["shuffle"] == "shuffle"


def test_float64_needs_an_explicit_cast(tmp_path):
    path = write(cube(dtype="float64"), tmp_path / "in.nc")
    result = run("encode", path, tmp_path / "refused", *FAST)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: the input data is float64")
    assert "--cast float32" in result.stderr
    assert not (tmp_path / "refused").exists()
    result = run("encode", path, tmp_path / "store", "--cast", "float32", *FAST)
    assert result.exit_code == 2 and "--cast float32 would change" in result.stderr and "add --lossy" in result.stderr
    assert not (tmp_path / "store" / "zarr.json").exists()
    result = run("encode", path, tmp_path / "store", "--cast", "float32", "--lossy", *FAST)
    assert result.exit_code == 0, result.output
    assert level0(tmp_path / "store").dtype == np.float32


def test_cf_packed_int16_is_stored_as_stored_with_its_scale_offset_and_fill(tmp_path):
    ds, raw = cf_encoded()
    out = tmp_path / "store"
    result = run("encode", write(ds, tmp_path / "in.nc"), out, *FAST)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(level0(out)[:, 0], raw["sst"])
    attrs = store_attrs(out)
    assert attrs["nodata"] == -32768
    assert attrs["bands"] == [{"name": "sst", "scale": 0.01, "offset": 20.0, "units": "degC"}]
    physical = np.where(raw["sst"] == -32768, np.nan, raw["sst"] * 0.01 + 20.0).astype(np.float32)  # as the reference
    with xr.open_dataset(out, engine="chronozarr") as stored:
        np.testing.assert_array_equal(stored["data"].values[:, 0], physical)


def test_a_uint16_fill_value_stays_uint16_unless_told_otherwise(tmp_path):
    ds, raw = cf_encoded(dtype="uint16", fill=65535, scale=None, offset=None, names=("B04",))
    path = write(ds, tmp_path / "in.nc")
    result = run("encode", path, tmp_path / "kept", *FAST)
    assert result.exit_code == 0, result.output
    assert level0(tmp_path / "kept").dtype == np.uint16 and store_attrs(tmp_path / "kept")["nodata"] == 65535
    result = run("encode", path, tmp_path / "told", "--nodata", "none", *FAST)
    assert result.exit_code == 0, result.output
    assert store_attrs(tmp_path / "told")["nodata"] is None
    np.testing.assert_array_equal(level0(tmp_path / "told")[:, 0], raw["B04"])


def test_a_star_delta_store_re_encodes_from_its_true_values(tmp_path):
    levels = build(tmp_path / "old", Layout(anchor_interval=3, n_time=6, mask=True, nodata=None))
    out = tmp_path / "new"
    result = run("encode", tmp_path / "old", out, "--encoding", "none", *FAST)
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(level0(out), levels[0][0])
    np.testing.assert_array_equal(level0(out, "mask"), levels[0][1])
    assert store_attrs(out)["nodata"] is None


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (cube, ["--variable", "nope"], "--variable: variable 'nope' is not in"),
        (lambda: latlon(south_up=False).isel(lon=slice(None, None, -1)), [], "coordinate 'lon' decreases"),
        (lambda: cube(crs_key=None), [], "declares no CRS"),
        (cube, ["--shard-time", "2"], "--shard-time requires --shard"),
        (cube, ["--nodata", "zero"], "--nodata must be a number or 'none'"),
        (cube, ["--blosc-cname", "lz4"], "apply only with --codec blosc"),
        (cube, ["--bands-json", "missing.json"], "--bands-json missing.json: cannot read it"),
        (cube, ["--chunk-size", "15"], "chunk_size must be a positive even integer"),
        (cube, ["--cast", "uint8"], "--cast uint8 would change the value"),  # raised mid-encode
    ],
)
def test_user_errors_exit_2_with_one_line_and_no_traceback(tmp_path, make, args, message):
    ds = make()
    if "--cast" in args:
        ds["reflectance"] = ds["reflectance"] * 10
    out = tmp_path / "store"
    result = run("encode", write(ds, tmp_path / "in.nc"), out, *args, "--no-progress")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert not out.exists() or not any(out.iterdir())


def test_non_empty_output_is_refused(tmp_path):
    out = tmp_path / "store"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = run("encode", write(cube(), tmp_path / "in.nc"), out, *FAST)
    assert result.exit_code == 2
    assert "is not empty; stores are never overwritten" in result.stderr
    assert (out / "keep.txt").read_text() == "mine"


def _console_script() -> Path:
    script = Path(sys.executable).parent / "chronozarr"
    assert script.exists(), "the chronozarr console script is not installed (pip install -e .)"
    return script


def test_console_script_encodes_and_reports_errors(tmp_path):
    script = _console_script()
    path = write(band_variables(), tmp_path / "in.nc")
    out = tmp_path / "store"
    done = subprocess.run(
        [script, "encode", path, out, "--variables", "B02,B03", "--encoding", "none", *FAST],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{out}: ")
    np.testing.assert_array_equal(level0(out)[:, 1], band_variables()["B03"].values)

    failed = subprocess.run(
        [script, "encode", path, out, "--variables", "B02"], capture_output=True, text=True, timeout=120
    )
    assert failed.returncode == 2
    assert failed.stderr.startswith("error: ") and "is not empty" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_help_of_the_installed_script():
    done = subprocess.run([_console_script(), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and EXAMPLE in done.stdout


def test_an_unquoted_glob_says_to_quote_it(tmp_path):
    for name in ("a.tif", "b.tif"):
        (tmp_path / name).write_bytes(b"")
    expanded = sorted(str(p) for p in tmp_path.glob("*.tif"))  # what the shell makes of cogs/*.tif
    result = run("convert", *expanded, tmp_path / "out")
    assert result.exit_code == 2
    assert "unexpected extra argument" in result.stderr and "quote it ('scenes/*.tif')" in result.stderr
