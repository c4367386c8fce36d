"""Array documents and chunk decoding: a damaged chunk or an unusable fill_value is an error naming
it, never values made up from bytes that are not there."""

from __future__ import annotations

import json

import numcodecs
import numpy as np
import pytest
from bounded import run_bounded
from foreign_stores import Layout, build

import chronozarr
from chronozarr import StoreError
from chronozarr.format.array_doc import ArrayDocument
from chronozarr.read.decode import decode_chunk, decode_strings


def _document(dtype: str, fill: object, codec: dict | None = None) -> dict:
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    codecs.append(codec or {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}})
    return {
        "zarr_format": 3, "node_type": "array", "shape": [1, 1, 8, 8], "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 1, 8, 8]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs, "dimension_names": ["time", "band", "y", "x"],
    }


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.99])
def test_a_truncated_blosc_chunk_is_refused(keep):
    values = np.random.default_rng(1).integers(0, 60000, size=(1, 1, 8, 8), dtype="<u2")
    encoded = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE).encode(values.tobytes())
    info = ArrayDocument.from_json("0/data", _document("uint16", 0))
    np.testing.assert_array_equal(decode_chunk(info, encoded, "chunk"), values)
    with pytest.raises(StoreError, match="truncated or damaged"):
        decode_chunk(info, encoded[: int(len(encoded) * keep)], "chunk")


def test_truncated_blosc_chunks_in_a_store_never_read_as_values(tmp_path):
    build(tmp_path / "s", Layout(codec="blosc", consolidated=False))
    base = tmp_path / "s" / "0" / "data" / "c"
    chunks = sorted(p for p in base.rglob("*") if p.is_file())
    for chunk in chunks:
        chunk.write_bytes(chunk.read_bytes()[: chunk.stat().st_size // 2])
    with chronozarr.open_dataset(tmp_path / "s") as store:
        for chunk in chunks:
            t, _, row, col = (int(part) for part in chunk.relative_to(base).parts)
            with pytest.raises(StoreError, match="blosc"):
                store.read_cell(t, row, col)


@pytest.mark.parametrize(
    ("dtype", "fill", "expected"),
    [
        ("uint16", 7, np.uint16(7)),
        ("uint16", 7.0, np.uint16(7)),
        ("float32", "NaN", np.float32("nan")),
        ("float32", "-Infinity", np.float32("-inf")),
        ("float32", "0x3fc00000", np.float32(1.5)),
        ("float32", -9999, np.float32(-9999)),
    ],
)
def test_fill_values_in_every_zarr_v3_form(dtype, fill, expected):
    info = ArrayDocument.from_json("0/data", _document(dtype, fill, {"name": "zstd", "configuration": {"level": 3}}))
    np.testing.assert_array_equal(np.asarray(info.fill), np.asarray(expected))
    assert np.asarray(info.fill).dtype == np.dtype(dtype)


@pytest.mark.parametrize(("dtype", "fill"), [("uint16", "zero"), ("uint16", None), ("uint16", 70000), ("uint8", -1), ("uint16", 1.5), ("float32", "0x12")])
def test_a_fill_value_the_dtype_cannot_hold_is_refused_when_opened(dtype, fill):
    with pytest.raises(StoreError, match=rf"0/data: fill_value .* is not a {dtype} value"):
        ArrayDocument.from_json("0/data", _document(dtype, fill, {"name": "zstd", "configuration": {"level": 3}}))


def test_a_missing_chunk_of_a_nan_filled_array_reads_as_nan(tmp_path):
    build(tmp_path / "s", Layout(dtype="float32", nodata=None, consolidated=False))
    doc_path = tmp_path / "s" / "0" / "data" / "zarr.json"
    doc = json.loads(doc_path.read_text())
    doc["fill_value"] = "NaN"  # another writer's choice for a float store; the validator flags it (spec 2.3)
    doc_path.write_text(json.dumps(doc))
    (tmp_path / "s" / "0" / "data" / "c" / "1" / "0" / "0" / "0").unlink()
    with chronozarr.open_dataset(tmp_path / "s") as store:
        assert np.isnan(store.read(1)[:, :16, :16]).all()


ZSTD = {"name": "zstd", "configuration": {"level": 5, "checksum": False}}


def _streamed_zstd_frame(raw: bytes) -> bytes:
    """A zstd frame whose header declares no content size, built by hand from RFC 8878:
    descriptor 0 (no size, not single segment), a 1 KiB window, one raw last block."""
    assert len(raw) <= 1024
    block_header = (1 | (0 << 1) | (len(raw) << 3)).to_bytes(3, "little")  # last, raw, size
    return b"\x28\xb5\x2f\xfd" + bytes([0x00, 0x00]) + block_header + raw


def test_a_zstd_frame_without_a_declared_size_decodes_to_its_values():
    values = np.random.default_rng(2).integers(0, 60000, size=(1, 1, 8, 8), dtype="<u2")
    info = ArrayDocument.from_json("0/data", _document("uint16", 0, ZSTD))
    np.testing.assert_array_equal(decode_chunk(info, _streamed_zstd_frame(values.tobytes()), "chunk"), values)


def test_a_zstd_frame_without_a_declared_size_and_too_few_bytes_is_refused():
    values = np.arange(32, dtype="<u2")
    info = ArrayDocument.from_json("0/data", _document("uint16", 0, ZSTD))
    with pytest.raises(StoreError, match="expected 128"):
        decode_chunk(info, _streamed_zstd_frame(values.tobytes()), "chunk")


def test_a_zstd_frame_declaring_fewer_bytes_than_the_chunk_is_refused():
    short = numcodecs.Zstd(level=5).encode(np.arange(32, dtype="<u2").tobytes())
    info = ArrayDocument.from_json("0/data", _document("uint16", 0, ZSTD))
    with pytest.raises(StoreError, match="holds 64 bytes, expected 128"):
        decode_chunk(info, short, "chunk")


def test_bytes_that_are_not_a_zstd_frame_are_refused():
    info = ArrayDocument.from_json("0/data", _document("uint16", 0, ZSTD))
    with pytest.raises(StoreError, match="not a zstd frame"):
        decode_chunk(info, b"\x00" * 40, "chunk")


def _band_array():  # type: ignore[no-untyped-def]
    doc = {
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "string",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "codecs": [{"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 3}}], "fill_value": "",
    }
    return ArrayDocument.from_json("0/band", doc)


def test_a_string_chunk_whose_header_counts_more_strings_than_it_holds_is_refused_before_allocating():
    """Found by the fuzz run: numcodecs allocates one object per counted string before reading
    them, so a 10-byte chunk counting 1.58e9 strings took 12 GB. It is our error, in a child whose
    peak memory is measured."""
    setup = (
        "    import numcodecs\n"
        "    from chronozarr.format.array_doc import ArrayDocument\n"
        "    from chronozarr.read.decode import decode_strings\n"
        "    doc = {'zarr_format': 3, 'node_type': 'array', 'shape': [4], 'data_type': 'string',\n"
        "           'chunk_grid': {'name': 'regular', 'configuration': {'chunk_shape': [4]}},\n"
        "           'codecs': [{'name': 'vlen-utf8'}, {'name': 'zstd', 'configuration': {'level': 3}}], 'fill_value': ''}\n"
        "    info = ArrayDocument.from_json('0/band', doc)\n"
        "    data = bytes(numcodecs.Zstd().encode(b'\\x01\\x00\\x00^\\xa7\\x00\\x00\\x00B0'))\n"
    )
    ending = run_bounded(setup, "    decode_strings(info, data, '0/band/c/0')\n", timeout=60)
    assert ending.outcome == "error" and ending.ours, ending
    assert "0/band/c/0" in ending.message and "counts 1577058305 strings" in ending.message
    assert ending.growth is not None and ending.growth < 64 * 2**20


def test_a_string_chunk_as_numcodecs_writes_it_still_decodes():
    info = _band_array()
    raw = numcodecs.VLenUTF8().encode(np.array(["B02", "B03", "B04", "B08"], dtype=object))
    data = bytes(numcodecs.Zstd(level=3).encode(raw))
    assert list(decode_strings(info, data, "0/band/c/0")) == ["B02", "B03", "B04", "B08"]
