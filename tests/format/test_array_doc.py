"""The array document model: what the writer writes is the Zarr v3 document spec 2, 7 and 8
describe, and reading it back gives the same model."""

from __future__ import annotations

import numpy as np
import pytest

from chronozarr.errors import StoreError
from chronozarr.format.array_doc import ArrayDocument, time_objects
from chronozarr.format.codecs import CodecSpec

BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}


def _sharded() -> ArrayDocument:
    return ArrayDocument.create(
        shape=[10, 2, 300, 200], dtype="uint16", chunk_shape=[1, 2, 64, 64], codec=CodecSpec("zstd", 3, checksum=True),
        dimension_names=["time", "band", "y", "x"], fill_value=0, attributes={"nodata": 0}, shard_shape=[4, 2, 128, 128],
        path="0/data",
    )


def test_a_sharded_array_is_written_as_the_zarr_v3_sharding_document():
    expected = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [10, 2, 300, 200],
        "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 2, 128, 128]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0,
        "codecs": [{
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [1, 2, 64, 64],
                "codecs": [BYTES_LE, {"name": "zstd", "configuration": {"level": 3, "checksum": False}}, {"name": "crc32c"}],
                "index_codecs": [BYTES_LE, {"name": "crc32c"}],
                "index_location": "end",
            },
        }],
        "dimension_names": ["time", "band", "y", "x"],
        "attributes": {"_ARRAY_DIMENSIONS": ["time", "band", "y", "x"], "nodata": 0},
    }
    assert _sharded().to_json() == expected
    assert list(_sharded().to_json()) == list(expected)  # the key order, so the bytes, are fixed


def test_a_string_array_starts_with_vlen_utf8_and_fills_with_a_string():
    doc = ArrayDocument.create(shape=[3], dtype="string", chunk_shape=[3], codec=CodecSpec("zstd", 5), dimension_names=["band"], fill_value="")
    assert doc.to_json()["codecs"] == [{"name": "vlen-utf8", "configuration": {}}, {"name": "zstd", "configuration": {"level": 5, "checksum": False}}]
    assert doc.to_json()["fill_value"] == "" and doc.dtype == np.dtype(object)


def test_what_is_written_reads_back_as_the_same_model():
    doc = _sharded()
    back = ArrayDocument.from_json("0/data", doc.to_json())
    assert back == doc and back.to_json() == doc.to_json()
    assert back.chunk_shape == (1, 2, 64, 64) and back.shard_shape == (4, 2, 128, 128)
    assert back.chunks_per_shard == 4 * 1 * 2 * 2 and back.fill == np.uint16(0) and back.fill.dtype == np.uint16


def test_a_float_fill_keeps_its_json_value_and_reads_as_the_dtype():
    doc = ArrayDocument.create(
        shape=[1, 1, 4, 4], dtype="float32", chunk_shape=[1, 1, 4, 4], codec=CodecSpec("gzip", 5), dimension_names=["time", "band", "y", "x"], fill_value=0.1
    )
    assert doc.to_json()["fill_value"] == 0.1  # not float32's 0.10000000149011612
    assert doc.fill == np.float32(0.1) and doc.fill.dtype == np.float32


def test_the_key_of_the_object_holding_an_element_follows_the_default_encoding_of_the_chunk_grid():
    doc = _sharded()
    assert doc.key_holding((5, 1, 299, 130)) == "0/data/c/1/0/2/1"  # 5 // 4, 1 // 2, 299 // 128, 130 // 128


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(chunk_key_encoding={"name": "v2"}), "unsupported chunk_key_encoding"),
        (lambda d: d.update(data_type="complex64"), "unsupported data_type"),
        (lambda d: d["codecs"][0]["configuration"].update(index_codecs=[BYTES_LE]), "unsupported shard index codecs"),
        (lambda d: d["codecs"][0]["configuration"].update(chunk_shape=[1, 2, 60, 64]), "does not divide the shard shape"),
        (lambda d: d.update(shape=[2**40, 2**40, 2, 1]), "more than a reader can address"),
        (lambda d: d.update(fill_value="zero"), "fill_value 'zero' is not a uint16 value"),
        (lambda d: d.update(codecs=7), "is not a valid Zarr v3 array document"),
    ],
)
def test_a_document_a_reader_cannot_use_is_refused_naming_it(change, message):
    doc = _sharded().to_json()
    change(doc)
    with pytest.raises(StoreError, match=message) as caught:
        ArrayDocument.from_json("0/data", doc)
    assert str(caught.value).startswith("0/data")


def test_with_shape_changes_only_the_shape_and_grid_and_checks_the_result():
    """What append does to a document: the JSON differs from the old one in `shape` (and, when
    given, the chunk grid) and nowhere else, written out by hand here."""
    before = _sharded().to_json()
    after = _sharded().with_shape([13, 2, 300, 200]).to_json()
    assert after == {**before, "shape": [13, 2, 300, 200]} and list(after) == list(before)
    time = ArrayDocument.create(shape=[5], dtype="int64", chunk_shape=[5], codec=CodecSpec("zstd", 3), dimension_names=["time"], path="0/time")
    grown = time.with_shape([9], [9]).to_json()
    assert grown == {**time.to_json(), "shape": [9], "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [9]}}}
    with pytest.raises(StoreError, match="does not match shape"):
        _sharded().with_shape([13, 300, 200])


def test_time_objects_reads_how_timesteps_map_to_objects_even_where_the_model_refuses():
    """What a host's cache rules need (format/caching.py): 10 timesteps, 4 per shard, sharded (the
    document _sharded writes), also from a document with a dtype the model refuses; a field of
    another type says nothing."""
    doc = _sharded().to_json()
    assert time_objects(doc) == (10, 4, True)
    foreign = {**doc, "data_type": "complex64"}
    with pytest.raises(StoreError, match="unsupported data_type"):
        ArrayDocument.from_json("0/data", foreign)
    assert time_objects(foreign) == (10, 4, True)
    plain = {**doc, "chunk_grid": {"configuration": {"chunk_shape": [1, 2, 64, 64]}}, "codecs": [BYTES_LE]}
    assert time_objects(plain) == (10, 1, False)
    assert time_objects({**doc, "shape": None}) is None
    assert time_objects([doc]) is None
