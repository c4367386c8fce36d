"""The synthetic demo series and `python -m chronozarr.demo`."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import zarr

from chronozarr import demo, encode

SIZE = {"n_time": 14, "height": 96, "width": 128}


@pytest.fixture(scope="module")
def series():
    return demo.demo_series(**SIZE)


def test_same_seed_gives_identical_arrays(series):
    again = demo.demo_series(**SIZE)
    for first, second in zip(series, again):
        np.testing.assert_array_equal(first.values, second.values)
        assert first.dtype == second.dtype


def test_another_seed_gives_another_scene(series):
    other = demo.demo_series(**SIZE, seed=1)
    assert not np.array_equal(series[0].values, other[0].values)


def test_dims_dtypes_and_coordinates(series):
    da, mask, coverage = series
    n_time, height, width = SIZE["n_time"], SIZE["height"], SIZE["width"]
    assert da.dims == ("time", "band", "y", "x")
    assert da.shape == (n_time, 4, height, width)
    assert da.dtype == np.uint16
    assert list(da["band"].values) == ["B02", "B03", "B04", "B08"]
    assert da.attrs["crs"] == demo.CRS
    for plane in (mask, coverage):
        assert plane.dims == ("time", "y", "x")
        assert plane.shape == (n_time, height, width)
        assert plane.dtype == np.uint8
    times = da["time"].values
    assert times[0] == np.datetime64("2016-01-01")
    assert times[-1] == np.datetime64("2017-02-01")
    assert np.all(np.diff(da["x"].values) == demo.PIXEL)
    assert np.all(np.diff(da["y"].values) == -demo.PIXEL)
    assert da["x"].values[0] == demo.ORIGIN[0] + demo.PIXEL / 2
    assert int(da.values.min()) >= 1  # never the nodata value 0


def test_scene_reads_as_water_through_vegetation(series):
    da, mask, _ = series
    clear = next(t for t in range(SIZE["n_time"]) if mask.values[t].all())
    nir = da.values[clear, 3]
    assert np.median(nir) > 2500  # mostly vegetation
    assert nir.min() < 600  # and some water, dark in the near infrared


def test_clouds_on_a_few_dates_are_bright_and_masked(series):
    da, mask, coverage = series
    cloudy = demo.cloudy_dates(SIZE["n_time"])
    assert 1 <= len(cloudy) <= SIZE["n_time"] // 5
    for t in range(SIZE["n_time"]):
        invalid = mask.values[t] == 0
        if t in cloudy:
            assert invalid.any()
            assert da.values[t][:, invalid].min(axis=0).max() > 5000  # cloud tops are bright in every band
        else:
            assert not invalid.any()
        assert np.all(coverage.values[t][invalid] == 0)
        assert set(np.unique(coverage.values[t][~invalid])) <= {1, 2, 3, 4, 5}
    assert set(np.unique(mask.values)) == {0, 1}


def test_main_writes_a_store_zarr_opens_and_rebuilds_it(tmp_path, capsys):
    assert demo.main([str(tmp_path), "--small"]) == 0
    out = capsys.readouterr().out
    assert "validated: level 0 identical for 24 timesteps" in out
    assert "viewer" in out
    group = zarr.open_group(tmp_path / "demo.zarr", mode="r")
    block = group.attrs["chronozarr"]
    assert [b["common_name"] for b in block["bands"]] == ["blue", "green", "red", "nir"]
    assert block["provenance"]["sources"] == ["synthetic"]
    assert group["0/data"].shape == (24, 4, 96, 128)
    # A second run replaces the store of the first.
    assert demo.main([str(tmp_path), "--small", "--encoding", "none"]) == 0
    root = json.loads((tmp_path / "demo.zarr" / "zarr.json").read_text())
    assert root["attributes"]["chronozarr"]["temporal"]["encoding"] == "none"


def test_star_delta_store_is_reconstructed_bit_exact(tmp_path, capsys):
    assert demo.main([str(tmp_path), "--small", "--encoding", "star-delta"]) == 0
    assert "level 0 identical for 24" in capsys.readouterr().out


def test_verification_notices_a_difference(tmp_path):
    da, mask, coverage = demo.demo_series(n_time=3, height=32, width=32)
    encode(da, tmp_path / "s", crs=demo.CRS, chunk_size=16, encoding="star-delta", mask=mask)
    changed = da.copy(data=da.values.copy())
    changed.values[2, 1, 5, 5] += 1
    with pytest.raises(demo.DemoError, match="timestep 2"):
        demo.verify_level0(tmp_path / "s", changed)


@pytest.mark.parametrize("content", ["notes.txt", "zarr.json"])
def test_main_leaves_anything_else_alone(tmp_path, capsys, content):
    store = tmp_path / "demo.zarr"
    store.mkdir()
    keep = store / content
    keep.write_text(json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}}))
    assert demo.main([str(tmp_path), "--small"]) == 1
    assert keep.exists()
    assert f"{store} exists and was not written by the demo" in capsys.readouterr().err


def _tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_cli_demo_refuses_a_real_store_it_did_not_write(tmp_path):
    """A user's chronozarr store copied to DIR/demo.zarr is a complete store with chronozarr
    attributes; only the demo's own marker lets the demo replace it."""
    from typer.testing import CliRunner

    from chronozarr.cli import app

    user = tmp_path / "mine.zarr"
    encode(demo.demo_series(n_time=3, height=32, width=32)[0], user, crs=demo.CRS, chunk_size=16, progress=False)
    trap = tmp_path / "trap"
    shutil.copytree(user, trap / "demo.zarr")
    before = _tree(trap / "demo.zarr")
    result = CliRunner().invoke(app, ["demo", str(trap), "--small", "--no-serve"])
    assert result.exit_code == 2
    assert str(trap / "demo.zarr") in result.stderr and "not written by the demo" in result.stderr
    assert _tree(trap / "demo.zarr") == before


def test_cli_demo_replaces_its_own_store_and_it_still_validates(tmp_path):
    from typer.testing import CliRunner

    from chronozarr.check.validate import validate
    from chronozarr.cli import app

    for _ in range(2):
        result = CliRunner().invoke(app, ["demo", str(tmp_path), "--small", "--no-serve", "--seed", str(_)])
        assert result.exit_code == 0, result.output
    assert validate(tmp_path / "demo.zarr").ok


def test_serve_prints_the_viewer_and_map_urls_and_stops_on_ctrl_c(tmp_path, monkeypatch):
    from chronozarr.demo import command
    from chronozarr.view import map_page_installed

    store = tmp_path / "demo.zarr"
    encode(demo.demo_series(**SIZE)[0], store, crs=demo.CRS, progress=False)

    class Interrupted:
        def wait(self) -> None:
            raise KeyboardInterrupt

    monkeypatch.setattr(command, "threading_event", Interrupted)
    lines: list[str] = []
    assert command.serve_demo(store, 0, lines.append) == 0
    assert lines[0].startswith("viewer: http://127.0.0.1:") and lines[0].endswith("/store/demo.zarr/")  # the viewer's title is the URL's last segment
    # The map page needs js/node_modules (make test installs it); without it the line is left out.
    map_line = lines[0].replace("viewer: ", "on a map (MapLibre): ").replace("/viewer/", "/maplibre/")
    assert (map_line in lines) == map_page_installed()


def test_demo_help_shows_the_examples_verbatim_with_the_demo_s_size_and_bands(tmp_path):
    from typer.testing import CliRunner

    from chronozarr.cli import app

    out = CliRunner().invoke(app, ["demo", "--help"]).output
    assert "\\b" not in out and "[[DIR]]" not in out and "[DIR]" in out
    assert "\n    chronozarr demo /tmp/demo --port 8001\n" in out  # one example a line, not reflowed
    da = demo.demo_series(n_time=1, height=96, width=128)[0]
    assert f"{da.sizes['band']} bands" in " ".join(out.split()) and da.sizes["band"] == 4
    assert "1024 x 768 px (width x height)" in " ".join(out.split())
