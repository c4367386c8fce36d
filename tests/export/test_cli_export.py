"""`chronozarr export-cog` and `chronozarr stac` from the command line: help, output, errors."""

from __future__ import annotations

import json
import sys

import pytest
from export_stores import star_delta_masked
from typer.testing import CliRunner

from chronozarr.cli import app


def run(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def star(tmp_path_factory):
    return star_delta_masked(tmp_path_factory.mktemp("star"), n_time=3)


@pytest.mark.parametrize("command, example", [("export-cog", "chronozarr export-cog my_store cogs/"), ("stac", "chronozarr stac my_store --out catalog/")])
def test_help_shows_examples(command, example):
    result = run(command, "--help")
    assert result.exit_code == 0 and example in result.stdout


def test_export_cog_writes_files_and_says_so(star, tmp_path):
    result = run("export-cog", star.path, tmp_path / "cogs", "--level", "1", "--times", "0,2", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "2 COGs of level 1" in result.stdout
    import rasterio

    with rasterio.open(tmp_path / "cogs" / "L1_2024-01-01.tif") as cog:  # the order info prints too
        assert f"({cog.width} x {cog.height} px (width x height))" in result.stdout
    info = run("info", star.path).stdout
    assert f"{cog.width} x {cog.height} px (width x height)" in info and " m per pixel" in info
    assert sorted(p.name for p in (tmp_path / "cogs").iterdir()) == ["L1_2024-01-01.tif", "L1_2024-03-01.tif"]


def test_stac_writes_a_collection_and_an_item(star, tmp_path):
    result = run("stac", star.path, "--out", tmp_path, "--href", "https://example.org/s", "--license", "CC0-1.0")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "collection.json").read_text())["license"] == "CC0-1.0"
    assert json.loads((tmp_path / "star-store" / "star-store.json").read_text())["assets"]["store"]["href"] == "https://example.org/s"


@pytest.mark.parametrize(
    "args, message",
    [
        (["export-cog", "{missing}", "{out}"], "no store at"),
        (["export-cog", "{store}", "{out}", "--level", "7"], "--level 7: the store has levels 0..2"),
        (["export-cog", "{store}", "{out}", "--times", "2030-"], "matches no timestep"),
        (["export-cog", "{notstore}", "{out}"], "not a chronozarr store"),
        (["stac", "{missing}", "--out", "{out}"], "no store at"),
    ],
)
def test_mistakes_end_as_one_error_line_with_status_2(star, tmp_path, args, message):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    paths = {"missing": tmp_path / "nope", "out": tmp_path / "out", "store": star.path, "notstore": tmp_path / "plain"}
    result = run(*(a.format(**paths) for a in args))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["export-cog", "stac"])
def test_existing_output_is_refused_until_overwrite(star, tmp_path, command):
    args = [command, star.path, *(["--out"] if command == "stac" else []), tmp_path, *(["--no-progress", "--times", "0"] if command == "export-cog" else [])]
    assert run(*args).exit_code == 0
    again = run(*args)
    assert again.exit_code == 2 and "--overwrite" in again.stderr
    assert run(*args, "--overwrite").exit_code == 0


@pytest.mark.parametrize("command, module, extra", [("export-cog", "rasterio", "geo")])  # stac needs no extra
def test_a_missing_geo_extra_says_how_to_install_it(star, tmp_path, monkeypatch, command, module, extra):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    out = ["--out", tmp_path] if command == "stac" else [tmp_path]
    result = run(command, star.path, *out)
    assert result.exit_code == 2
    assert f"pip install 'chronozarr[{extra}]'" in result.stderr and "Traceback" not in result.output
