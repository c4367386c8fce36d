"""Stores written with --checksum (the crc32c codec after the compressor): they read, append and
validate as plain ones do, other Zarr readers read them, and a chunk whose bytes were damaged is
refused by the reader and named by validate, where a store without checksums decodes it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import zarr
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app
from conftest import make_series

LAYOUTS = {
    "plain": dict(encoding="none"),
    "star": dict(encoding="star-delta", anchor_interval=2),
    "sharded": dict(encoding="none", shard=True),
    "blosc": dict(encoding="none", codec="blosc"),
}
CHUNK = "0/data/c/1/0/0/0"  # timestep 1 (a delta under star-delta), cell (0, 0)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    root = tmp_path_factory.mktemp("checksum")
    da = make_series(n_time=4, height=32, width=32, seed=21)
    for name, options in LAYOUTS.items():
        for checksum in (True, False):
            store = root / f"{name}-{checksum}"
            chronozarr.encode(da[:3], store, crs="EPSG:32631", chunk_size=16, progress=False, checksum=checksum, **options)
            chronozarr.append(store, da[3:])
    return root, da.values


def _codecs(store: Path) -> list[str]:
    codecs = json.loads((store / "0/data/zarr.json").read_text())["codecs"]
    if codecs[0]["name"] == "sharding_indexed":
        codecs = codecs[0]["configuration"]["codecs"]
    return [c["name"] for c in codecs]


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_checksummed_store_reads_appends_and_validates_like_a_plain_one(stores, name):
    root, values = stores
    store = root / f"{name}-True"
    assert _codecs(store)[-1] == "crc32c" and _codecs(root / f"{name}-False")[-1] != "crc32c"
    with chronozarr.open_dataset(store) as s:
        for t in range(4):
            np.testing.assert_array_equal(s.read(t), values[t])
    assert chronozarr.validate(store).ok


@pytest.mark.parametrize("name", ["plain", "sharded"])
def test_zarr_python_reads_a_checksummed_store(stores, name):
    root, values = stores
    np.testing.assert_array_equal(zarr.open_group(root / f"{name}-True", mode="r")["0/data"][:], values)


def _flip_a_bit(store: Path, sharded: bool) -> str:
    """One bit of the first chunk's compressed bytes; returns the object damaged."""
    key = "0/data/c/0/0/0/0" if sharded else CHUNK
    raw = bytearray((store / key).read_bytes())
    raw[len(raw) // 4 if sharded else len(raw) // 2] ^= 0x10
    (store / key).write_bytes(bytes(raw))
    return key


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_damaged_chunk_is_refused_by_the_reader_and_named_by_validate(stores, tmp_path, name):
    root, values = stores
    store = tmp_path / "s"
    shutil.copytree(root / f"{name}-True", store)
    key = _flip_a_bit(store, name == "sharded")
    t = 0 if name == "sharded" else 1
    with chronozarr.open_dataset(store) as s, pytest.raises(chronozarr.StoreError, match="crc32c does not match"):
        s.read(t)
    report = chronozarr.validate(store, sample_pyramid=False)
    assert not report.ok and any(f.key.startswith(key) and "crc32c" in f.message for f in report.fails), report.to_text()


def test_without_checksums_the_same_damage_can_decode_to_other_values(stores, tmp_path):
    """What the option is for: gzip and zstd frames here carry no checksum of their own."""
    root, values = stores
    store = tmp_path / "s"
    shutil.copytree(root / "blosc-False", store)
    _flip_a_bit(store, sharded=False)
    # The store's bytes are fixed (a seeded series), so this flip is too: it decodes, to other values.
    with chronozarr.open_dataset(store) as s:
        damaged = s.read(1)
    assert not np.array_equal(damaged, values[1])


def test_the_cli_writes_checksums_with_the_option(tmp_path):
    da = make_series(n_time=2, height=16, width=16)
    da.to_dataset(name="data").to_netcdf(tmp_path / "in.nc")
    result = CliRunner().invoke(app, ["encode", str(tmp_path / "in.nc"), str(tmp_path / "out"), "--crs", "EPSG:32631", "--chunk-size", "16", "--checksum"])
    assert result.exit_code == 0, result.output
    assert _codecs(tmp_path / "out")[-1] == "crc32c"
