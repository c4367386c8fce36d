"""Objects and metadata on disk: keys, padding, shard indexes, consolidated metadata, write order."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import google_crc32c
import numcodecs
import numpy as np
import pytest
import zarr
from conftest import make_series
from expected import chronozarr_attrs, level_count, pyramid, root_doc, store_files

import chronozarr

EMPTY = 2**64 - 1


def _encode(tmp_path: Path, da: Any, **options: Any) -> Path:
    store = tmp_path / "store"
    chronozarr.encode(da, store, crs="EPSG:32631", workers=2, **options)
    return store


def _node_docs(store: Path) -> dict[str, dict[str, Any]]:
    """Every zarr.json below the root, by node path."""
    return {
        p.parent.relative_to(store).as_posix(): json.loads(p.read_text())
        for p in store.rglob("zarr.json")
        if p.parent != store
    }


def _shard_index(blob: bytes, n_inner: int) -> np.ndarray:
    """(offset, nbytes) pairs from an end-located index after checking its crc32c."""
    size = 16 * n_inner + 4
    tail = blob[-size:]
    body, crc = tail[:-4], tail[-4:]
    assert int.from_bytes(crc, "little") == google_crc32c.value(body), "shard index crc32c mismatch"
    return np.frombuffer(body, dtype="<u8").reshape(n_inner, 2)


def test_all_fill_chunks_are_not_written(tmp_path: Path) -> None:
    """A timestep that is entirely nodata leaves no chunk objects at any level; zarr reads it as fill."""
    da = make_series(n_time=3, height=20, width=18, dtype="uint16")
    values = da.values.copy()
    values[1] = 0
    values[2, :, :8, :8] = 0  # one all-fill level-0 cell at timestep 2
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="none", chunk_size=8)
    files = store_files(store)
    n_levels = level_count(20, 18, 8)
    for k in range(n_levels):
        assert not any(f.startswith(f"{k}/data/c/1/") for f in files), f"level {k} wrote chunks of timestep 1"
        assert any(f.startswith(f"{k}/data/c/0/") for f in files)
    assert "0/data/c/2/0/0/0" not in files
    assert "0/data/c/2/0/0/1" in files
    group = zarr.open_group(store, mode="r")
    for k in range(n_levels):
        np.testing.assert_array_equal(group[f"{k}/data"][1], 0)
    np.testing.assert_array_equal(group["0/data"][:], values)


def test_all_fill_inner_chunks_are_empty_shard_entries(tmp_path: Path) -> None:
    """Sharded: an all-fill timestep is an empty index entry; an all-fill cell writes no shard object."""
    da = make_series(n_time=3, height=16, width=16, dtype="uint16")
    values = da.values.copy()
    values[1] = 0
    values[:, :, 8:, 8:] = 0  # cell (1, 1) is fill at every timestep
    da = da.copy(data=values)
    store = _encode(tmp_path, da, encoding="none", chunk_size=8, shard=True)
    files = store_files(store)
    assert "0/data/c/0/0/1/1" not in files
    assert "1/1/1" not in chronozarr_attrs(store)["shard_bytes"]["0"]
    index = _shard_index((store / "0/data/c/0/0/0/0").read_bytes(), 3)
    assert list(index[1]) == [EMPTY, EMPTY]
    assert all(e != EMPTY for e in index[[0, 2]].ravel())
    np.testing.assert_array_equal(zarr.open_group(store, mode="r")["0/data"][:], values)


@pytest.mark.parametrize("encoding", ["none", "star-delta"])
def test_edge_chunks_are_padded_with_fill_in_anchors_and_zero_in_residuals(tmp_path: Path, encoding: str) -> None:
    """The edge cell object is a full cs x cs chunk; beyond the array it holds fill (nodata 5) or 0 for residuals."""
    da = make_series(n_time=2, n_band=2, height=11, width=13, dtype="uint16")
    store = _encode(tmp_path, da, encoding=encoding, anchor_interval=2, chunk_size=8, nodata=5)
    decode = numcodecs.Zstd()
    for t in range(2):
        raw = decode.decode((store / f"0/data/c/{t}/0/1/1").read_bytes())
        chunk = np.frombuffer(raw, dtype="<u2").reshape(2, 8, 8)
        residual = encoding == "star-delta" and t == 1
        pad = 0 if residual else 5
        assert np.all(chunk[:, 3:, :] == pad)
        assert np.all(chunk[:, :, 5:] == pad)
        inside = da.values[t, :, 8:11, 8:13].astype(np.int64)
        if residual:
            inside = (inside - da.values[0, :, 8:11, 8:13].astype(np.int64)) % 65536
        np.testing.assert_array_equal(chunk[:, :3, :5], inside)


@pytest.mark.parametrize(("n_time", "shard_time"), [(5, 2), (3, 5), (4, None)])
def test_shard_objects_indexes_and_shard_bytes(tmp_path: Path, n_time: int, shard_time: int | None) -> None:
    """Each shard: index of 16*shard_time+4 bytes with a valid crc32c, inner chunks decoding to the
    expected (padded) chunk of each timestep, empty entries past n_time; shard_bytes = file sizes."""
    height, width, cs = 19, 13, 8
    da = make_series(n_time=n_time, n_band=2, height=height, width=width, dtype="uint16", seed=41)
    mask = (np.random.default_rng(41).random((n_time, height, width)) < 0.8).astype(np.uint8)
    store = _encode(
        tmp_path, da, encoding="none", chunk_size=cs, shard=True, shard_time=shard_time, mask=mask, nodata=None
    )
    per_shard = shard_time or n_time
    n_shards = math.ceil(n_time / per_shard)
    levels = pyramid(da.values, mask, None, None, level_count(height, width, cs))
    block = chronozarr_attrs(store)
    files = store_files(store)
    decode = numcodecs.Zstd()
    expected_bytes: dict[str, dict[str, int]] = {}
    for k, (data, mask_k, _) in enumerate(levels):
        rows, cols = math.ceil(data.shape[2] / cs), math.ceil(data.shape[3] / cs)
        keys = {f"{k}/data/c/{ts}/0/{r}/{c}" for ts in range(n_shards) for r in range(rows) for c in range(cols)}
        assert {f for f in files if f.startswith(f"{k}/data/c/")} == keys
        mask_keys = {f"{k}/mask/c/{ts}/{r}/{c}" for ts in range(n_shards) for r in range(rows) for c in range(cols)}
        assert {f for f in files if f.startswith(f"{k}/mask/c/")} == mask_keys
        expected_bytes[str(k)] = {}
        for ts in range(n_shards):
            for r in range(rows):
                for c in range(cols):
                    blob = (store / f"{k}/data/c/{ts}/0/{r}/{c}").read_bytes()
                    expected_bytes[str(k)][f"{ts}/{r}/{c}"] = len(blob)
                    index = _shard_index(blob, per_shard)
                    for pos in range(per_shard):
                        t = ts * per_shard + pos
                        offset, nbytes = (int(v) for v in index[pos])
                        if t >= n_time:
                            assert (offset, nbytes) == (EMPTY, EMPTY)
                            continue
                        assert offset + nbytes <= len(blob) - (16 * per_shard + 4)
                        raw = decode.decode(blob[offset : offset + nbytes])
                        chunk = np.frombuffer(raw, dtype="<u2").reshape(2, cs, cs)
                        want = np.zeros((2, cs, cs), dtype=np.uint16)
                        cell = data[t, :, r * cs : (r + 1) * cs, c * cs : (c + 1) * cs]
                        want[:, : cell.shape[1], : cell.shape[2]] = cell
                        np.testing.assert_array_equal(chunk, want)
                    mask_blob = (store / f"{k}/mask/c/{ts}/{r}/{c}").read_bytes()
                    _shard_index(mask_blob, per_shard)
        np.testing.assert_array_equal(zarr.open_group(store, mode="r")[f"{k}/mask"][:], mask_k)
    assert block["shard_bytes"] == expected_bytes


def test_unsharded_store_has_no_shard_bytes(tmp_path: Path) -> None:
    store = _encode(tmp_path, make_series(n_time=2, height=10, width=10), chunk_size=8)
    assert "shard_bytes" not in chronozarr_attrs(store)


@pytest.mark.parametrize("shard", [False, True])
def test_consolidated_metadata_and_dimension_names(tmp_path: Path, shard: bool) -> None:
    """The root's consolidated metadata equals every node's zarr.json, and names every node;
    every array sets dimension_names equal to _ARRAY_DIMENSIONS; no pixels_per_tile anywhere."""
    da = make_series(n_time=3, height=20, width=17, dtype="uint8")
    coverage = np.ones((3, 20, 17), dtype=np.uint8)
    store = _encode(tmp_path, da, chunk_size=8, shard=shard, coverage=coverage, mask=np.ones((3, 20, 17), np.uint8))
    root = root_doc(store)
    nodes = _node_docs(store)
    consolidated = root["consolidated_metadata"]
    assert consolidated["kind"] == "inline"
    assert consolidated["must_understand"] is False
    assert consolidated["metadata"] == nodes
    opened = zarr.open_group(store, mode="r", use_consolidated=True)
    assert opened.metadata.consolidated_metadata is not None
    assert set(opened.metadata.consolidated_metadata.flattened_metadata) == set(nodes)
    n_levels = level_count(20, 17, 8)
    expected_nodes = {"volatility"}
    for k in range(n_levels):
        names = ("data", "mask", "coverage", "time", "band", "y", "x", "spatial_ref")
        expected_nodes |= {str(k)} | {f"{k}/{name}" for name in names}
    assert set(nodes) == expected_nodes
    arrays = {key: doc for key, doc in nodes.items() if doc["node_type"] == "array"}
    assert len(arrays) == 1 + 8 * n_levels
    for key, doc in arrays.items():
        assert doc["dimension_names"] == doc["attributes"]["_ARRAY_DIMENSIONS"], key
    assert "pixels_per_tile" not in (store / "zarr.json").read_text()
    assert all("pixels_per_tile" not in json.dumps(doc) for doc in nodes.values())
    assert not any(p.name.startswith(".z") for p in store.rglob("*"))


@pytest.mark.parametrize("shard", [False, True])
def test_root_zarr_json_is_written_last(tmp_path: Path, shard: bool) -> None:
    """Every other object's mtime is no later than the root zarr.json's."""
    da = make_series(n_time=4, height=20, width=20, dtype="uint16")
    store = _encode(tmp_path, da, chunk_size=8, shard=shard, shard_time=2 if shard else None)
    root_time = (store / "zarr.json").stat().st_mtime_ns
    others = [p for p in store.rglob("*") if p.is_file() and p != store / "zarr.json"]
    assert len(others) > 20
    late = [p for p in others if p.stat().st_mtime_ns > root_time]
    assert late == []
    # chunk and shard objects come before every zarr.json below the root (spec 9 upload order)
    chunks = [p for p in others if any(f"/{name}/c/" in p.as_posix() for name in ("data", "mask", "coverage"))]
    metas = [p for p in others if p.name == "zarr.json"]
    assert chunks and metas
    assert max(p.stat().st_mtime_ns for p in chunks) <= min(p.stat().st_mtime_ns for p in metas)


def test_levels_coordinates_and_group_attributes(tmp_path: Path) -> None:
    """Level groups carry crs, transform (pixel size * 2^k, origin kept) and resolution; the levels mirror,
    multiscales, times, band names and x/y pixel centres agree with them."""
    da = make_series(n_time=3, n_band=2, height=37, width=29, dtype="uint16", bands=["B04", "B08"])
    store = _encode(tmp_path, da, chunk_size=8)
    block = chronozarr_attrs(store)
    group = zarr.open_group(store, mode="r")
    n_levels = level_count(37, 29, 8)
    origin_x, origin_y = 500_000.0, 5_000_000.0
    assert block["times"] == ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"]
    assert block["band_names"] == ["B04", "B08"]
    assert block["crs"] == "EPSG:32631"
    assert block["nodata"] == 0
    assert block["variable"] == "data"
    assert block["volatility_path"] == "volatility"
    assert root_doc(store)["attributes"]["multiscales"] == [
        {
            "datasets": [{"path": str(k), "crs": "EPSG:32631"} for k in range(n_levels)],
            "type": "reduce",
            "metadata": {"method": "block_mean", "version": "chronozarr 0.2.0", "args": []},
        }
    ]
    h, w = 37, 29
    for k in range(n_levels):
        res = 10.0 * 2**k
        transform = [res, 0.0, origin_x, 0.0, -res, origin_y]
        attrs = json.loads((store / str(k) / "zarr.json").read_text())["attributes"]
        assert attrs == {"crs": "EPSG:32631", "transform": transform, "resolution": res}
        assert block["levels"][k] == {
            "path": str(k), "resolution": res, "transform": transform, "shape": [3, 2, h, w],
            "grid": [math.ceil(h / 8), math.ceil(w / 8)],
        }
        np.testing.assert_allclose(group[f"{k}/x"][:], origin_x + (np.arange(w) + 0.5) * res)
        np.testing.assert_allclose(group[f"{k}/y"][:], origin_y - (np.arange(h) + 0.5) * res)
        np.testing.assert_array_equal(group[f"{k}/time"][:], [1704067200000, 1706745600000, 1709251200000])
        assert [str(v) for v in group[f"{k}/band"][:]] == ["B04", "B08"]
        assert group[f"{k}/data"].shape == (3, 2, h, w)
        h, w = math.ceil(h / 2), math.ceil(w / 2)


@pytest.mark.parametrize(
    ("dtype", "nodata", "root_nodata", "fill"),
    [("uint8", "default", 0, 0), ("uint16", "default", 0, 0), ("int16", "default", None, 0),
     ("float32", "default", None, 0.0), ("uint16", None, None, 0), ("int16", -32768, -32768, -32768),
     ("uint16", 65535, 65535, 65535)],
)
def test_nodata_profiles(tmp_path: Path, dtype: str, nodata: Any, root_nodata: Any, fill: Any) -> None:
    """Default nodata 0 for unsigned, null otherwise; fill_value equals nodata or 0; attribute only when numeric."""
    da = make_series(n_time=2, height=10, width=10, dtype=dtype)
    store = _encode(tmp_path, da, chunk_size=8, nodata=nodata)
    block = chronozarr_attrs(store)
    assert block["nodata"] == root_nodata
    for k in range(len(block["levels"])):
        doc = json.loads((store / f"{k}/data/zarr.json").read_text())
        assert doc["fill_value"] == fill
        assert type(doc["fill_value"]) is type(fill)
        if root_nodata is None:
            assert "nodata" not in doc["attributes"]
        else:
            assert doc["attributes"]["nodata"] == root_nodata


@pytest.mark.parametrize("shard", [False, True])
def test_mask_and_coverage_use_the_data_codec(tmp_path: Path, shard: bool) -> None:
    """data, mask and coverage share one compression codec (spec 8), typesize following each dtype."""
    da = make_series(n_time=2, height=10, width=10, dtype="uint16")
    planes = np.ones((2, 10, 10), dtype=np.uint8)
    store = _encode(
        tmp_path, da, chunk_size=8, shard=shard, codec="blosc", blosc_cname="lz4", blosc_shuffle="shuffle",
        level=3, mask=planes, coverage=planes,
    )

    def chain(name: str) -> list[dict[str, Any]]:
        codecs = json.loads((store / f"0/{name}/zarr.json").read_text())["codecs"]
        return codecs[0]["configuration"]["codecs"] if shard else codecs

    def blosc(typesize: int) -> dict[str, Any]:
        config = {"cname": "lz4", "clevel": 3, "shuffle": "shuffle", "typesize": typesize, "blocksize": 0}
        return {"name": "blosc", "configuration": config}

    assert chain("data") == [{"name": "bytes", "configuration": {"endian": "little"}}, blosc(2)]
    assert chain("mask") == [{"name": "bytes"}, blosc(1)]
    assert chain("coverage") == [{"name": "bytes"}, blosc(1)]
    group = zarr.open_group(store, mode="r")
    np.testing.assert_array_equal(group["0/mask"][:], planes)
    np.testing.assert_array_equal(group["0/coverage"][:], planes)


def test_auto_selection_leaves_no_scratch_files(tmp_path, series_factory) -> None:
    """The sampled chunks are stored from the scratch area, which is gone afterwards."""
    import os

    import chronozarr

    da = series_factory(n_time=5, height=40, width=40)
    summary = chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16)
    assert summary.selection_ratio is not None
    hidden = [name for _, dirs, files in os.walk(tmp_path / "s") for name in dirs + files if name.startswith(".")]
    assert hidden == []
