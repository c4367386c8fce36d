"""The codec cases of the hash matrix hold the right values before their hashes are trusted.

The gzip and extra blosc cases were pinned in store_hashes.json after the whole-timestep writer
was gone, so their hashes are only as good as the stores they came from. This test reads each of
those stores with zarr-python alone (no chronozarr code) and compares it with the input: level 0
bit for bit (NaN replaced as docs/encoding.md says), every coarser level, mask and coverage against the block means of tests/expected.py,
the codec chain as spec 8 writes it, and gzip members with the fixed header (mtime 0).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zarr
from expected import chronozarr_attrs, level_count, pyramid, true_values
from store_matrix import CASES, encode_case, series

CODEC_CASES = sorted(name for name, case in CASES.items() if case["options"].get("codec") in ("gzip", "blosc"))
CHUNK_SIZE = 16  # encode_case's chunk size


def _expected_codec(options: dict[str, Any], dtype: np.dtype) -> dict[str, Any]:
    """The compressor entry spec 8 and the encode options call for."""
    level = options.get("level", 5)
    if options["codec"] == "gzip":
        return {"name": "gzip", "configuration": {"level": level}}
    return {
        "name": "blosc",
        "configuration": {
            "cname": options.get("blosc_cname", "zstd"),
            "clevel": level,
            "shuffle": options.get("blosc_shuffle", "noshuffle"),
            "typesize": dtype.itemsize,
            "blocksize": 0,
        },
    }


def _declared_nodata(case: dict[str, Any], dtype: np.dtype) -> float | None:
    """Spec 2.3's writer default (0 for uint8 and uint16, none otherwise) unless the case sets one."""
    return case["options"].get("nodata", 0 if dtype.name in ("uint8", "uint16") else None)


def _same_bits(actual: np.ndarray, expected: np.ndarray) -> bool:
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    unsigned = np.dtype(f"u{expected.dtype.itemsize}")
    return bool(np.array_equal(actual.view(unsigned), expected.view(unsigned)))


def _compressor_chain(array_doc: dict[str, Any]) -> list[dict[str, Any]]:
    codecs = array_doc["codecs"]
    if codecs[0]["name"] == "sharding_indexed":
        return codecs[0]["configuration"]["codecs"]
    return codecs


@pytest.mark.parametrize("name", CODEC_CASES)
def test_codec_case_reads_back_to_its_input_at_every_level(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    da, extra = series(case)
    data = da.values
    store = encode_case(name, tmp_path / name)
    nodata = _declared_nodata(case, data.dtype)
    assert chronozarr_attrs(store)["nodata"] == nodata

    n_levels = level_count(*data.shape[-2:], CHUNK_SIZE)
    mask, coverage = extra.get("mask"), extra.get("coverage")
    if data.dtype.kind == "f" and mask is None and nodata is None:
        # NaN is never stored: with neither mask nor nodata the writer derives a mask (invalid
        # where any band is NaN) and stores the fill value 0 there (docs/encoding.md, spec 2.3).
        nan = np.isnan(data)
        mask = (~nan.any(axis=1)).astype(np.uint8)
        data = np.where(nan, np.float32(0), data)
    if coverage is not None:  # a count of observations, saturating at 255 (spec 2.5)
        coverage = np.minimum(coverage, 255).astype(np.uint8)
    expected = pyramid(data, mask, coverage, nodata, n_levels)
    assert (store / str(n_levels - 1)).is_dir() and not (store / str(n_levels)).exists()
    assert _same_bits(true_values(store, 0), data), "level 0 must read back bit for bit"
    group = zarr.open_group(store, mode="r")
    for k, (level_data, level_mask, level_coverage) in enumerate(expected):
        assert _same_bits(true_values(store, k), level_data), f"level {k}"
        if level_mask is not None:  # mask and coverage are never star-delta encoded (spec 2.4, 2.5)
            assert _same_bits(group[f"{k}/mask"][:], level_mask), f"mask level {k}"
        if level_coverage is not None:
            assert _same_bits(group[f"{k}/coverage"][:], level_coverage), f"coverage level {k}"

    for k in range(n_levels):
        doc = json.loads((store / str(k) / "data" / "zarr.json").read_text())
        chain = _compressor_chain(doc)
        assert chain[0]["name"] == "bytes"
        assert chain[1:] == [_expected_codec(case["options"], data.dtype)], f"level {k} codecs"


UNSHARDED_GZIP = [n for n in CODEC_CASES if CASES[n]["options"]["codec"] == "gzip" and not CASES[n]["options"].get("shard")]


@pytest.mark.parametrize("name", UNSHARDED_GZIP)
def test_gzip_chunks_are_plain_gzip_members_without_a_timestamp(tmp_path: Path, name: str) -> None:
    """Each unsharded chunk inflates with the standard library and carries mtime 0, no name and
    OS 255 (RFC 1952), so two encodes of one input give the same bytes. (A sharded store's chunks
    sit inside shard objects; zarr-python decoded them in the test above.)"""
    case = CASES[name]
    store = encode_case(name, tmp_path / name)
    level = case["options"].get("level", 5)
    chunks = sorted(p for p in (store / "0" / "data" / "c").rglob("*") if p.is_file())
    assert chunks
    cs, n_band = CHUNK_SIZE, case.get("n_band", 3)
    itemsize = np.dtype(case.get("dtype", "uint16")).itemsize
    for chunk in chunks:
        raw = chunk.read_bytes()
        assert raw[:4] == b"\x1f\x8b\x08\x00", chunk  # magic, deflate, no flags (so no name)
        assert raw[4:8] == b"\0\0\0\0", chunk
        assert raw[8] == {1: 4, 9: 2}.get(level, 0) and raw[9] == 255, chunk
        assert len(gzip.decompress(raw)) == n_band * cs * cs * itemsize, chunk
