"""A v0.1-style store (bands as strings, no levels/band_names mirrors, no consolidated metadata,
pixels_per_tile in multiscales, sharded over the whole time axis) reads through the fallbacks."""

from __future__ import annotations

import json

import numpy as np

import chronozarr


def make_v01_store(path, da) -> None:
    """Encode, then rewrite the root the way a 0.1 writer left it."""
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=2, shard=True)
    doc = json.loads((path / "zarr.json").read_text())
    doc.pop("consolidated_metadata")
    block = doc["attributes"]["chronozarr"]
    block["spec_version"] = "0.1.0"
    block["bands"] = [b["name"] for b in block["bands"]]
    for field in ("band_names", "levels", "shard_bytes"):
        block.pop(field)
    block["temporal"].pop("encoding")
    for dataset in doc["attributes"]["multiscales"][0]["datasets"]:
        dataset["pixels_per_tile"] = 16
    (path / "zarr.json").write_text(json.dumps(doc))


def test_v01_store_reads_exactly_through_per_node_metadata(tmp_path):
    from conftest import make_series

    da = make_series(n_time=5, height=40, width=24, seed=8)
    make_v01_store(tmp_path / "old", da)
    with chronozarr.open_dataset(tmp_path / "old") as store:
        assert store.meta.spec_version == "0.1.0" and store.encoding == "star-delta"
        assert store.band_names == ["b0", "b1"] and store.bands[0].scale == 1.0
        assert store.meta.requests_to_open > 1
        assert store.levels[0].chunk_size == 16
        for t in range(5):
            np.testing.assert_array_equal(store.read(t), da.values[t])
        assert store.stats.suffix > 0  # no shard_bytes: the index comes from the end of the object


def test_unknown_versions_encodings_and_codecs_are_refused_by_name(tmp_path):
    import pytest

    from chronozarr.errors import StoreError
    from conftest import make_series

    da = make_series(n_time=2, height=16, width=16)
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=16, encoding="none")
    root = tmp_path / "s" / "zarr.json"
    original = root.read_text()

    def broken(change) -> str:
        doc = json.loads(original)
        change(doc)
        root.write_text(json.dumps(doc))
        with pytest.raises(StoreError) as info:
            chronozarr.open_dataset(tmp_path / "s")
        return str(info.value)

    assert "0.3.0" in broken(lambda d: d["attributes"]["chronozarr"].update(spec_version="0.3.0"))
    assert "chain" in broken(lambda d: d["attributes"]["chronozarr"]["temporal"].update(encoding="chain"))

    def lz(d):
        d["consolidated_metadata"]["metadata"]["0/data"]["codecs"][1] = {"name": "lz4", "configuration": {}}

    assert "lz4" in broken(lz)

    def int32(d):
        d["consolidated_metadata"]["metadata"]["0/data"]["data_type"] = "int32"

    assert "int32" in broken(int32)
