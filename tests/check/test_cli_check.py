"""`chronozarr validate` and `chronozarr info` on the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from check_stores import base_stores, edit_block  # noqa: F401  (fixture)
from typer.testing import CliRunner

from chronozarr.cli import app

runner = CliRunner()


def test_validate_valid_store_exits_0(base_stores: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", str(base_stores["unsharded"])])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1].endswith("valid (0 fail, 0 warn, 0 info)")


def test_validate_prints_one_line_per_finding_and_exits_1(base_stores: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "s"
    shutil.copytree(base_stores["sharded"], store)
    edit_block(store, lambda b: b["shard_bytes"]["0"].update({"0/0/0": 1}))
    result = runner.invoke(app, ["validate", str(store)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[0].startswith("FAIL 7.3 0/data/c/0/0/0/0: shard_bytes lists 1 bytes")
    assert "INVALID (1 fail" in lines[-1]


def test_validate_json(base_stores: dict[str, Path], tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "missing"), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False and len(data["findings"]) == 1


def test_info_text_and_json(base_stores: dict[str, Path]) -> None:
    text = runner.invoke(app, ["info", str(base_stores["sharded"])])
    assert text.exit_code == 0 and "sharded, shard_time 2" in text.output
    as_json = runner.invoke(app, ["info", str(base_stores["sharded"]), "--json"])
    assert json.loads(as_json.output)["times"]["count"] == 5


def test_info_of_a_non_store_is_a_user_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["info", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert "error:" in result.output


def test_info_of_a_file_says_it_is_a_file_not_that_nothing_is_there(tmp_path: Path) -> None:
    existing = tmp_path / "scene.tif"
    existing.write_bytes(b"II*\x00")
    result = runner.invoke(app, ["info", str(existing)])
    assert result.exit_code == 2
    assert "it is a file, not a store" in result.stderr and "does not exist" not in result.stderr
    result = runner.invoke(app, ["validate", str(existing)])
    assert "it is a file, not a store" in result.output


def test_help_has_examples() -> None:
    for command in ("validate", "info"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and f"chronozarr {command} my_store" in result.output
