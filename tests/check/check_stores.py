"""Stores for the validator tests, built once per session and copied for each mutation.

Not a conftest.py: tests/conftest.py is imported as `conftest`, and a second one would shadow it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
from conftest import make_series

import chronozarr
from chronozarr.check import Report

N_TIME = 5
HEIGHT, WIDTH = 20, 18  # with chunk size 8: levels of 3 x 3, 2 x 2 and 1 x 1 cells, odd sizes below


def planes(n_time: int = N_TIME, height: int = HEIGHT, width: int = WIDTH) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    mask = (rng.random((n_time, height, width)) > 0.2).astype("uint8")
    coverage = (mask * rng.integers(1, 4, size=mask.shape)).astype("uint8")
    return mask, coverage


def build(path: Path, dtype: str = "uint16", *, planes_too: bool = True, n_time: int = N_TIME, **options: Any) -> Path:
    da = make_series(n_time=n_time, height=HEIGHT, width=WIDTH, dtype=dtype, seed=3)
    if planes_too:
        mask, coverage = planes(n_time)
        options.setdefault("mask", mask)
        options.setdefault("coverage", coverage)
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=8, workers=2, **options)
    return path


@pytest.fixture(scope="session")
def base_stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A star-delta store unsharded and sharded over several time shards, and one without planes."""
    root = tmp_path_factory.mktemp("check-base")
    return {
        "unsharded": build(root / "unsharded", encoding="star-delta", anchor_interval=2),
        "sharded": build(root / "sharded", encoding="star-delta", anchor_interval=2, shard=True, shard_time=2),
        "plain": build(root / "plain", planes_too=False, encoding="none"),
    }


@pytest.fixture
def copy_store(base_stores: dict[str, Path], tmp_path: Path) -> Callable[[str], Path]:
    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(base_stores[name], target, copy_function=shutil.copyfile)
        return target

    return copy


@pytest.fixture(scope="session")
def scratch(base_stores: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One shared copy for tests that change only the root zarr.json and put it back."""
    target = tmp_path_factory.mktemp("check-scratch") / "store"
    shutil.copytree(base_stores["unsharded"], target)
    return target


def read_json(store: Path, key: str) -> Any:
    return json.loads((store / key).read_text())


def write_json(store: Path, key: str, doc: Any) -> None:
    (store / key).write_text(json.dumps(doc, indent=2))


def edit_block(store: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change the root chronozarr block in place."""
    root = read_json(store, "zarr.json")
    change(root["attributes"]["chronozarr"])
    write_json(store, "zarr.json", root)


def edit_root(store: Path, change: Callable[[dict[str, Any]], None]) -> None:
    root = read_json(store, "zarr.json")
    change(root)
    write_json(store, "zarr.json", root)


def edit_node(store: Path, node: str, change: Callable[[dict[str, Any]], None], *, consolidated: bool = True) -> None:
    """Change a node's zarr.json and, unless told not to, its consolidated copy the same way."""
    doc = read_json(store, f"{node}/zarr.json")
    change(doc)
    write_json(store, f"{node}/zarr.json", doc)
    if consolidated:
        root = read_json(store, "zarr.json")
        change(root["consolidated_metadata"]["metadata"][node])
        write_json(store, "zarr.json", root)


def drop_node(store: Path, node: str) -> None:
    """Remove a node's directory and its consolidated entry."""
    shutil.rmtree(store / node)
    root = read_json(store, "zarr.json")
    del root["consolidated_metadata"]["metadata"][node]
    write_json(store, "zarr.json", root)


def level_count(store: Path) -> int:
    return len(read_json(store, "zarr.json")["attributes"]["chronozarr"]["levels"])


# -- mutations and verdicts shared by the validator tests ------------------------------------


def assert_valid(report: Report) -> None:
    assert report.ok, report.to_text()


def assert_caught(report: Report, section: str, *, first: bool = True) -> None:
    """A fail under `section` exists and, by default, it is the first fail reported."""
    assert not report.ok, "mutation not caught"
    assert section in report.sections(), f"no fail in section {section}:\n{report.to_text()}"
    if first:
        assert report.fails[0].section == section, report.to_text()


def set_field(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target = doc
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value

    return change


def delete_field(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        target = doc
        for part in path[:-1]:
            target = target[part]
        del target[path[-1]]

    return change


def overwrite_chunk(store: Path, key: str) -> None:
    """Replace a uint16 chunk (1, 2, 8, 8) with other values that still decode."""
    values = np.arange(2 * 8 * 8, dtype="<u2").reshape(1, 2, 8, 8) + 40000
    (store / key).write_bytes(numcodecs.Zstd(level=5).encode(values.tobytes()))


def add_unexpected_object(store: Path) -> None:
    (store / "0" / "data" / "notes.txt").write_text("hello")
