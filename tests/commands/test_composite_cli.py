"""convert --composite from the command line: the store it writes equals the numpy composite, the
summary lists the periods, a mistaken option exits 2 with one line naming the fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from composite_scenes import expected_composite, make_scenes, write_items
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app

runner = CliRunner()
DATES = ["2024-05-02T10:00:00Z", "2024-05-20T10:00:00Z", "2024-06-09T10:00:00Z", "2024-06-19T10:00:00Z"]
FAST = ["--chunk-size", "8", "--encoding", "none", "--no-progress"]


def test_convert_composite_writes_the_monthly_medoid_and_lists_the_periods(tmp_path: Path) -> None:
    scenes = make_scenes(DATES, seed=11, cloudy=0.6)
    items = write_items(tmp_path, scenes)
    args = ["convert", str(items), str(tmp_path / "out"), "--assets", "B04,B08", "--composite", "month", "--reducer", "medoid",
            "--valid", "scl:4,5,6,7,11", "--gap-fill", "carry-forward", *FAST]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "2024-06-01  2 scene(s)" in result.output and "gap-filled" in result.output
    want = expected_composite([scenes[:2], scenes[2:]], "medoid", carry=True)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        got = (np.stack([store.read(t) for t in range(2)]), np.stack([store.read_mask(t) for t in range(2)]),
               np.stack([store.read_coverage(t) for t in range(2)]))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_convert_composite_mistakes_exit_2_naming_the_fix(tmp_path: Path) -> None:
    items = write_items(tmp_path, make_scenes(DATES[:1], seed=12))
    base = ["convert", str(items), str(tmp_path / "out"), "--assets", "B04", *FAST]
    for extra, said in ((["--composite", "month", "--reducer", "mode"], "medoid"), (["--composite", "fortnight"], "16D"),
                        (["--composite", "month", "--mask-bits", "scl:clouds"], "QA_PIXEL"), (["--gap-fill", "carry-forward"], "--composite"),
                        (["--composite", "month", "--period-start", "2024-05-01"], "give no --period-start"),
                        (["--composite", "month", "--valid", "cloud:1"], "name the item's mask asset"),
                        (["--composite", "month", "--valid", "scl:4,x"], "must be integers"),
                        (["--composite", "month", "--valid", "scl:4", "--mask-bits", "scl:cloud"], "one --valid or --mask-bits per asset")):
        result = runner.invoke(app, base + extra)
        assert result.exit_code == 2, result.output
        assert said in result.output and "Traceback" not in result.output


def test_a_netcdf_series_is_refused_for_composites_in_one_line(tmp_path: Path) -> None:
    from conftest import make_series

    make_series().to_netcdf(tmp_path / "series.nc")
    result = runner.invoke(app, ["convert", str(tmp_path / "series.nc"), str(tmp_path / "out"), "--crs", "EPSG:32631",
                                 "--composite", "month", *FAST])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--composite reduces scenes" in result.output and "resample(time='1MS')" in result.output
    assert not (tmp_path / "out").exists()


def test_convert_help_shows_composite_examples() -> None:
    result = runner.invoke(app, ["convert", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--composite month --reducer median" in result.output and "--valid" in result.output


def test_append_composite_adds_new_months_carrying_the_store_last_values_forward(tmp_path: Path) -> None:
    dates = DATES + ["2024-07-04T10:00:00Z", "2024-07-24T10:00:00Z"]
    scenes = make_scenes(dates, seed=13, cloudy=0.75)
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    options = ["--assets", "B04,B08", "--composite", "month", "--valid", "scl:4,5,6,7,11", "--gap-fill", "carry-forward"]
    first = runner.invoke(app, ["convert", str(write_items(tmp_path / "old", scenes[:4])), str(tmp_path / "out"), *options, *FAST])
    assert first.exit_code == 0, first.output
    added = runner.invoke(app, ["append", str(tmp_path / "out"), str(write_items(tmp_path / "new", scenes[4:])), *options,
                                "--no-progress"])
    assert added.exit_code == 0, added.output
    assert "2024-07-01  2 scene(s)" in added.output
    want = expected_composite([scenes[:2], scenes[2:4], scenes[4:]], "median", carry=True)
    assert ((want[2][2] == 0) & (want[1][2] == 1)).any()  # July carries values in from June
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.times_iso == ["2024-05-01T00:00:00Z", "2024-06-01T00:00:00Z", "2024-07-01T00:00:00Z"]
        got = (np.stack([store.read(t) for t in range(3)]), np.stack([store.read_mask(t) for t in range(3)]),
               np.stack([store.read_coverage(t) for t in range(3)]))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_append_help_shows_a_composite_example() -> None:
    result = runner.invoke(app, ["append", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--composite month" in result.output and "--valid scl:4,5,6,7,11" in result.output


def test_dry_runs_print_the_periods_the_scenes_of_each_and_the_grid(tmp_path: Path) -> None:
    scenes = make_scenes(DATES + ["2024-07-04T10:00:00Z"], seed=14)
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    options = ["--assets", "B04,B08", "--composite", "month", "--valid", "scl:4,5,6,7,11"]
    grid = "18 x 20 px (width x height), pixels of 10 x 10 in EPSG:32631, north-west corner (500000, 5000200)"  # raster_inputs' grid
    dry = runner.invoke(app, ["convert", str(write_items(tmp_path / "old", scenes[:4])), str(tmp_path / "out"), *options, *FAST, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "monthly median composite of 4 scene(s) in 2 period(s)" in dry.output and grid in dry.output
    assert "2024-05-01  2 scene(s): item S00" in dry.output and "2024-06-01  2 scene(s): item S02" in dry.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert runner.invoke(app, ["convert", str(tmp_path / "old" / "items.json"), str(tmp_path / "out"), *options, *FAST]).exit_code == 0
    added = runner.invoke(app, ["append", str(tmp_path / "out"), str(write_items(tmp_path / "new", scenes[4:])), *options, "--dry-run"])
    assert added.exit_code == 0, added.output
    assert "2024-07-01  1 scene(s): item S04" in added.output and f"on the store's grid: {grid}" in added.output
