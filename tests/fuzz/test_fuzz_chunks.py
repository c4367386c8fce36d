"""Fuzz targets: chunk bytes for every codec, and shard indexes. A chunk decodes to exactly its
shape or is our error; a damaged index is refused exactly when an independent check of its
entries finds one that breaks spec 7.2, and a read through it gives the stored values or our error."""

from __future__ import annotations

import numcodecs
import numpy as np
from budget import fuzz
from hostile_stores import CS, N_TIME, series, streamed_zstd_bomb
from hypothesis import strategies as st
from mutations import mutated_bytes
from test_fuzz_documents import BASES

from chronozarr.errors import ChronozarrError, StoreError
from chronozarr.format.array_doc import ArrayDocument
from chronozarr.format.codecs import CodecSpec
from chronozarr.format.shard_index import EMPTY, data_span, encode_index, index_nbytes, parse_index
from chronozarr.read.dataset import ChronoDataset
from chronozarr.read.decode import decode_chunk
from chronozarr.store import MemoryStore

SPECS = {
    "zstd": CodecSpec("zstd", 3),
    "gzip": CodecSpec("gzip", 5),
    "blosc-lz4-shuffle": CodecSpec("blosc", 5, "lz4", "shuffle"),
    "blosc-zstd-noshuffle": CodecSpec("blosc", 5, "zstd", "noshuffle"),
}
SHAPE = (1, 2, 16, 16)
VALUES = np.random.default_rng(8).integers(1000, 1030, SHAPE).astype("<u2")


def _info(spec: CodecSpec):  # type: ignore[no-untyped-def]
    doc = {
        "zarr_format": 3, "node_type": "array", "shape": list(SHAPE), "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(SHAPE)}},
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, spec.to_json(np.dtype("<u2"))], "fill_value": 0,
    }
    return ArrayDocument.from_json("0/data", doc)


INFOS = {name: _info(spec) for name, spec in SPECS.items()}
ENCODED = {name: bytes(spec.compressor(np.dtype("<u2")).encode(VALUES)) for name, spec in SPECS.items()}
STREAMED = st.builds(lambda blocks: streamed_zstd_bomb(blocks << 17), st.integers(1, 64))
CHUNKS = st.sampled_from(sorted(SPECS)).flatmap(
    lambda name: st.tuples(st.just(name), st.one_of(mutated_bytes(ENCODED[name]), STREAMED if name == "zstd" else mutated_bytes(ENCODED[name])))
)


@fuzz("chunk_bytes", CHUNKS, slice_examples=80)
def check_chunk(case: tuple[str, bytes]) -> None:
    """Stored chunks of every codec with bytes flipped, cut or inserted, noise, and streamed zstd
    frames of up to 8 MiB: the result has the chunk's shape, or the error names the chunk."""
    name, data = case
    try:
        out = decode_chunk(INFOS[name], data, "0/data/c/0/0/0/0")
    except StoreError as exc:
        assert "0/data/c/0/0/0/0" in str(exc)
        return
    assert out.shape == SHAPE and out.dtype == np.dtype("<u2")


ENTRY = st.one_of(st.just((EMPTY, EMPTY)), st.tuples(st.integers(0, 400), st.integers(0, 200)), st.tuples(st.sampled_from([0, EMPTY, 2**63, 2**64 - 2]), st.integers(0, 2**64 - 1)))
INDEXES = st.tuples(st.lists(ENTRY, min_size=N_TIME, max_size=N_TIME), st.booleans(), st.one_of(st.none(), st.integers(0, 600)))


def _oracle(entries: list[tuple[int, int]], first: int, end: int | None) -> bool:
    """Spec 7.2 checked pair by pair with Python integers: no code shared with format/."""
    stored = []
    for offset, length in entries:
        if (offset == EMPTY) != (length == EMPTY):
            return False
        if offset == EMPTY:
            continue
        if length == 0 or offset < first or (end is not None and offset + length > end) or offset + length > 2**64 - 1:
            return False
        stored.append((offset, offset + length))
    return all(a_end <= b_start or b_end <= a_start for i, (a_start, a_end) in enumerate(stored) for b_start, b_end in stored[i + 1 :])


@fuzz("shard_indexes", INDEXES, slice_examples=150)
def check_index(case: tuple[list[tuple[int, int]], bool, int | None]) -> None:
    """Indexes of adversarial entries: refused exactly when an entry breaks spec 7.2."""
    entries, at_end, length = case
    raw = encode_index(np.array(entries, dtype=np.uint64))
    first, end = data_span(N_TIME, at_end, length)
    try:
        parse_index(raw, N_TIME, (first, end))
    except ValueError:
        assert not _oracle(entries, first, end), f"a valid index was refused: {entries}"
        return
    assert _oracle(entries, first, end), f"an index breaking spec 7.2 was accepted: {entries}"


SHARD = "0/data/c/0/0/0/0"
CELL_00 = series().values[:, :, :CS, :CS]  # what cell (0, 0) of the sharded base was written from
_HONEST = np.frombuffer(BASES["sharded"][SHARD][-index_nbytes(N_TIME) : -4], dtype="<u8").reshape(N_TIME, 2)
# Each timestep's entry is the honest one or an adversarial one, so both kinds of read are checked.
SHARD_ENTRIES = st.tuples(*[st.one_of(st.just((int(o), int(n))), ENTRY) for o, n in _HONEST]).map(list)


@fuzz("shard_reads", SHARD_ENTRIES, slice_examples=60)
def check_shard_read(entries: list[tuple[int, int]]) -> None:
    """A sharded store whose index of cell (0, 0) is replaced (with a valid crc32c): every
    timestep whose entry is the honest one reads as the source values, an empty entry as fill,
    and any other gives the stored values or our error."""
    honest = BASES["sharded"]
    raw = honest[SHARD]
    n = index_nbytes(N_TIME)
    objects = {**honest, SHARD: raw[:-n] + encode_index(np.array(entries, dtype=np.uint64))}
    with ChronoDataset(MemoryStore(objects), concurrency=1) as store:
        for t in range(N_TIME):
            try:
                got = store.read_cell(t, 0, 0)
            except ChronozarrError:
                continue
            expected = CELL_00[t] if entries[t] != (EMPTY, EMPTY) else np.zeros_like(got)
            original = np.frombuffer(raw[-n:-4], dtype="<u8").reshape(N_TIME, 2)
            if tuple(int(v) for v in original[t]) == tuple(entries[t]) or entries[t] == (EMPTY, EMPTY):
                np.testing.assert_array_equal(got, expected)


test_fuzz_chunk_bytes = check_chunk
test_fuzz_shard_indexes = check_index
test_fuzz_shard_reads = check_shard_read
