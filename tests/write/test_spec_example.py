"""The complete example of spec 3.9, rebuilt and compared key by key and document by document.

5 monthly timesteps from 2024-01-01, bands B04 and B08, 700 x 600 uint16 pixels, cs 512,
EPSG:32631 at 10 m, star-delta with anchor_interval 2, shard_time 4, with mask, coverage and
provenance. Shard byte lengths are compared with the real files instead of the illustrative ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import google_crc32c
import numpy as np
import pytest
import xarray as xr
import zarr
from expected import pyramid, references_for, root_doc, store_files, true_values, volatility

import chronozarr

EMPTY = 2**64 - 1
TRANSFORM0 = [10.0, 0.0, 746090.0, 0.0, -10.0, 2540440.0]
TRANSFORM1 = [20.0, 0.0, 746090.0, 0.0, -20.0, 2540440.0]
BANDS = [
    {"name": "B04", "common_name": "red", "scale": 0.0001, "offset": 0.0, "units": "reflectance"},
    {"name": "B08", "common_name": "nir", "scale": 0.0001, "offset": 0.0, "units": "reflectance"},
]
PROVENANCE = {
    "sources": ["sentinel-2-l2a"],
    "composite": "monthly median",
    "gap_fill": "carry-forward",
    "notes": "SCL classes 4, 5, 6, 7 and 11 kept",
}
TIMES = ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z",
         "2024-05-01T00:00:00Z"]
TIME_MS = [1704067200000, 1706745600000, 1709251200000, 1711929600000, 1714521600000]
ZSTD = {"name": "zstd", "configuration": {"level": 5, "checksum": False}}
BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}
INDEX_CODECS = [BYTES_LE, {"name": "crc32c"}]
KEY_ENCODING = {"name": "default", "configuration": {"separator": "/"}}
CRS_URL = "http://www.opengis.net/def/crs/EPSG/0/32631"


def _inputs() -> tuple[xr.DataArray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(39)
    shape = (5, 2, 700, 600)
    values = rng.integers(1, 5000, size=shape, endpoint=True).astype(np.uint16)
    mask = (rng.random((5, 700, 600)) < 0.9).astype(np.uint8)
    values[np.broadcast_to(mask[:, None] == 0, shape)] = 0  # fill where the mask says invalid
    coverage = rng.integers(0, 4, size=(5, 700, 600)).astype(np.uint8)
    times = np.array(["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01"], dtype="datetime64[ns]")
    da = xr.DataArray(
        values,
        dims=("time", "band", "y", "x"),
        coords={
            "time": times,
            "band": ["B04", "B08"],
            "y": 2540440.0 - (np.arange(700) + 0.5) * 10.0,
            "x": 746090.0 + (np.arange(600) + 0.5) * 10.0,
        },
    )
    return da, mask, coverage


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, xr.DataArray, np.ndarray, np.ndarray]:
    da, mask, coverage = _inputs()
    store = tmp_path_factory.mktemp("spec-example") / "example.zarr"
    chronozarr.encode(
        da, store, crs="EPSG:32631", encoding="star-delta", anchor_interval=2, chunk_size=512,
        shard=True, shard_time=4, mask=mask, coverage=coverage, bands=BANDS, provenance=PROVENANCE, workers=2,
    )
    return store, da, mask, coverage


def _doc(store: Path, key: str) -> dict[str, Any]:
    return json.loads((store / key / "zarr.json").read_text())


def _expected_shard_keys() -> dict[str, set[str]]:
    return {
        "0": {f"{ts}/{r}/{c}" for ts in (0, 1) for r in (0, 1) for c in (0, 1)},
        "1": {"0/0/0", "1/0/0"},
    }


def test_store_holds_exactly_the_listed_objects(example: tuple[Path, Any, Any, Any]) -> None:
    """Root, volatility, two levels with data/mask/coverage shards, single-chunk coordinates and a
    chunkless spatial_ref; nothing else."""
    store = example[0]
    want = {"zarr.json", "volatility/zarr.json", "volatility/c/0/0"}
    for level, shard_ids in _expected_shard_keys().items():
        want.add(f"{level}/zarr.json")
        for name in ("data", "mask", "coverage", "time", "band", "y", "x", "spatial_ref"):
            want.add(f"{level}/{name}/zarr.json")  # spatial_ref: the CF grid mapping, no chunk
        for name in ("time", "band", "y", "x"):
            want.add(f"{level}/{name}/c/0")
        for shard_id in shard_ids:
            ts, r, c = shard_id.split("/")
            want |= {f"{level}/data/c/{ts}/0/{r}/{c}", f"{level}/mask/c/{ts}/{r}/{c}", f"{level}/coverage/c/{ts}/{r}/{c}"}
    assert store_files(store) == want


def test_root_document(example: tuple[Path, Any, Any, Any]) -> None:
    """multiscales and the chronozarr block equal the example field by field (real shard sizes)."""
    store = example[0]
    root = root_doc(store)
    assert root["zarr_format"] == 3
    assert root["node_type"] == "group"
    assert set(root) == {"zarr_format", "node_type", "attributes", "consolidated_metadata"}
    attrs = root["attributes"]
    assert set(attrs) == {"multiscales", "chronozarr"}
    assert attrs["multiscales"] == [
        {
            "datasets": [{"path": "0", "crs": "EPSG:32631"}, {"path": "1", "crs": "EPSG:32631"}],
            "type": "reduce",
            "metadata": {"method": "block_mean", "version": "chronozarr 0.2.0", "args": []},
        }
    ]
    block = attrs["chronozarr"]
    expected = {
        "spec_version": "0.2.0",
        "variable": "data",
        "times": TIMES,
        "bands": BANDS,
        "band_names": ["B04", "B08"],
        "nodata": 0,
        "crs": "EPSG:32631",
        "temporal": {
            "encoding": "star-delta",
            "anchor_interval": 2,
            "anchor_indices": [0, 2, 4],
            "delta_reference": {"1": 0, "3": 2},
        },
        "volatility_path": "volatility",
        "mask_variable": "mask",
        "coverage_variable": "coverage",
        "provenance": PROVENANCE,
        "levels": [
            {"path": "0", "resolution": 10.0, "transform": TRANSFORM0, "shape": [5, 2, 700, 600], "grid": [2, 2]},
            {"path": "1", "resolution": 20.0, "transform": TRANSFORM1, "shape": [5, 2, 350, 300], "grid": [1, 1]},
        ],
    }
    assert set(block) == set(expected) | {"shard_bytes"}
    for field, value in expected.items():
        assert block[field] == value, field
    shard_bytes = block["shard_bytes"]
    assert set(shard_bytes) == {"0", "1"}
    for level, ids in _expected_shard_keys().items():
        assert set(shard_bytes[level]) == ids
        for shard_id, size in shard_bytes[level].items():
            ts, r, c = shard_id.split("/")
            assert size == (store / f"{level}/data/c/{ts}/0/{r}/{c}").stat().st_size, f"{level} {shard_id}"
    assert "pixels_per_tile" not in (store / "zarr.json").read_text()


@pytest.mark.parametrize(("level", "transform", "height", "width"), [("0", TRANSFORM0, 700, 600), ("1", TRANSFORM1, 350, 300)])
def test_level_documents(example: tuple[Path, Any, Any, Any], level: str, transform: list[float], height: int, width: int) -> None:
    """Level group, data, mask, coverage and time documents as in the example, plus the proj/spatial/_CRS attributes."""
    store = example[0]
    assert _doc(store, level) == {
        "zarr_format": 3,
        "node_type": "group",
        "attributes": {"crs": "EPSG:32631", "transform": transform, "resolution": transform[0]},
    }

    data = _doc(store, f"{level}/data")
    attrs = data.pop("attributes")
    assert data == {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [5, 2, height, width],
        "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 2, 512, 512]}},
        "chunk_key_encoding": KEY_ENCODING,
        "fill_value": 0,
        "codecs": [{
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [1, 2, 512, 512],
                "codecs": [BYTES_LE, ZSTD],
                "index_codecs": INDEX_CODECS,
                "index_location": "end",
            },
        }],
        "dimension_names": ["time", "band", "y", "x"],
    }
    assert attrs["_ARRAY_DIMENSIONS"] == ["time", "band", "y", "x"]
    assert attrs["nodata"] == 0
    assert attrs["proj:code"] == "EPSG:32631"
    assert attrs["spatial:dimensions"] == ["y", "x"]
    assert attrs["spatial:shape"] == [height, width]
    assert attrs["spatial:transform"] == transform
    assert attrs["spatial:bbox"] == [746090.0, 2540440.0 - 7000.0, 746090.0 + 6000.0, 2540440.0]
    assert attrs["_CRS"]["url"] == CRS_URL
    assert set(attrs["_CRS"]) <= {"url", "wkt"}
    extra = set(attrs) - {"_ARRAY_DIMENSIONS", "nodata", "proj:code", "spatial:dimensions", "spatial:shape",
                          "spatial:transform", "spatial:bbox", "_CRS"}
    # the spec lets a writer repeat crs and transform; the CF grid mapping adds its two references
    assert extra <= {"crs", "transform", "grid_mapping", "coordinates"}
    assert (attrs["grid_mapping"], attrs["coordinates"]) == ("spatial_ref", "spatial_ref")
    if "crs" in attrs:
        assert attrs["crs"] == "EPSG:32631"
    if "transform" in attrs:
        assert attrs["transform"] == transform

    plane = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [5, height, width],
        "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 512, 512]}},
        "chunk_key_encoding": KEY_ENCODING,
        "fill_value": 0,
        "codecs": [{
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [1, 512, 512],
                "codecs": [{"name": "bytes"}, ZSTD],
                "index_codecs": INDEX_CODECS,
                "index_location": "end",
            },
        }],
        "dimension_names": ["time", "y", "x"],
        # the spec's document, and the references to the level's CF grid mapping
        "attributes": {"_ARRAY_DIMENSIONS": ["time", "y", "x"], "grid_mapping": "spatial_ref", "coordinates": "spatial_ref"},
    }
    assert _doc(store, f"{level}/mask") == plane
    assert _doc(store, f"{level}/coverage") == plane

    assert _doc(store, f"{level}/time") == {
        "zarr_format": 3, "node_type": "array", "shape": [5], "data_type": "int64", "fill_value": 0,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5]}},
        "chunk_key_encoding": KEY_ENCODING,
        "codecs": [BYTES_LE, ZSTD],
        "dimension_names": ["time"],
        "attributes": {"_ARRAY_DIMENSIONS": ["time"], "units": "milliseconds since 1970-01-01T00:00:00",
                       "calendar": "proleptic_gregorian"},
    }
    group = zarr.open_group(store, mode="r")
    np.testing.assert_array_equal(group[f"{level}/time"][:], TIME_MS)

    band = _doc(store, f"{level}/band")
    assert band["shape"] == [2]
    assert band["chunk_grid"]["configuration"]["chunk_shape"] == [2]
    assert band["data_type"] in ("string", "int32")
    if band["data_type"] == "string":
        assert band["codecs"][0]["name"] == "vlen-utf8"
        assert [str(v) for v in group[f"{level}/band"][:]] == ["B04", "B08"]
    assert band["dimension_names"] == band["attributes"]["_ARRAY_DIMENSIONS"] == ["band"]
    for axis, n in (("y", height), ("x", width)):
        doc = _doc(store, f"{level}/{axis}")
        assert doc["data_type"] == "float64"
        assert doc["shape"] == [n]
        assert doc["chunk_grid"]["configuration"]["chunk_shape"] == [n]
        assert doc["codecs"] == [BYTES_LE, ZSTD]
        assert doc["dimension_names"] == doc["attributes"]["_ARRAY_DIMENSIONS"] == [axis]
    res = transform[0]
    np.testing.assert_allclose(group[f"{level}/x"][:], 746090.0 + (np.arange(width) + 0.5) * res)
    np.testing.assert_allclose(group[f"{level}/y"][:], 2540440.0 - (np.arange(height) + 0.5) * res)


def test_volatility_document_and_values(example: tuple[Path, xr.DataArray, Any, Any]) -> None:
    """volatility: [2, 2] float32 single chunk, fill 0.0, dims row/col, values from the references."""
    store, da, _, _ = example
    doc = _doc(store, "volatility")
    assert doc["shape"] == [2, 2]
    assert doc["data_type"] == "float32"
    assert doc["chunk_grid"]["configuration"]["chunk_shape"] == [2, 2]
    assert doc["fill_value"] == 0.0
    assert doc["dimension_names"] == doc["attributes"]["_ARRAY_DIMENSIONS"] == ["row", "col"]
    got = zarr.open_group(store, mode="r")["volatility"][:]
    np.testing.assert_allclose(got, volatility(da.values, references_for(5, 2), 512), rtol=1e-6)


def test_shard_indexes(example: tuple[Path, Any, Any, Any]) -> None:
    """Every shard ends in a 68-byte index with a valid crc32c; time shard 1 has exactly 3 empty entries."""
    store = example[0]
    for level, ids in _expected_shard_keys().items():
        for shard_id in ids:
            ts, r, c = shard_id.split("/")
            for key in (f"{level}/data/c/{ts}/0/{r}/{c}", f"{level}/mask/c/{ts}/{r}/{c}", f"{level}/coverage/c/{ts}/{r}/{c}"):
                blob = (store / key).read_bytes()
                tail = blob[-68:]
                assert int.from_bytes(tail[64:], "little") == google_crc32c.value(tail[:64]), key
                entries = np.frombuffer(tail[:64], dtype="<u8").reshape(4, 2)
                empty = [i for i in range(4) if entries[i, 0] == EMPTY and entries[i, 1] == EMPTY]
                assert empty == ([1, 2, 3] if ts == "1" else []), key
                for offset, nbytes in entries[[i for i in range(4) if i not in empty]]:
                    assert int(offset) + int(nbytes) <= len(blob) - 68, key


def test_metadata_consistency(example: tuple[Path, Any, Any, Any]) -> None:
    """Consolidated metadata equals each node's zarr.json; dimension_names equal _ARRAY_DIMENSIONS."""
    store = example[0]
    nodes = {
        p.parent.relative_to(store).as_posix(): json.loads(p.read_text())
        for p in store.rglob("zarr.json")
        if p.parent != store
    }
    assert root_doc(store)["consolidated_metadata"]["metadata"] == nodes
    for key, doc in nodes.items():
        if doc["node_type"] == "array":
            assert doc["dimension_names"] == doc["attributes"]["_ARRAY_DIMENSIONS"], key
        assert "pixels_per_tile" not in json.dumps(doc)


def test_values_at_both_levels(example: tuple[Path, xr.DataArray, np.ndarray, np.ndarray]) -> None:
    """Level 0 reconstructs the input; level 1 data, mask and coverage match the reference reductions."""
    store, da, mask, coverage = example
    levels = pyramid(da.values, mask, coverage, 0, 2)
    group = zarr.open_group(store, mode="r")
    for k, (data, m, c) in enumerate(levels):
        np.testing.assert_array_equal(true_values(store, k), data)
        np.testing.assert_array_equal(group[f"{k}/mask"][:], m)
        np.testing.assert_array_equal(group[f"{k}/coverage"][:], c)
