"""The mutated stores of the hostile corpus (tests/fuzz/corpus.py): one honest store changed by
one mutation of every kind the other tests have, drawn by hypothesis.

A case is a recipe: the base store, what is put at which keys (bytes, or a directory, a FIFO, a
socket, a link to /dev/zero; None removes the key), and what kind of damage it is. `single_chunk`
marks damage to the bytes of one chunk and nothing else, which a `--checksum` store must refuse.
`valid_store` marks mutations whose result is a valid store holding other values (a chunk copied
from another key, shard-index entries swapped, a chunk removed, which reads as the fill value):
no reader can tell those from the truth, with or without checksums.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from hostile_stores import BASES as HOSTILE_BASES
from hostile_stores import CASES as HOSTILE_CASES
from hostile_stores import N_TIME, series, streamed_zstd_bomb
from hypothesis import strategies as st
from mutations import encode_json, mutated_bytes, mutated_document

import chronozarr
from chronozarr.format.shard_index import EMPTY, encode_index, index_nbytes
from chronozarr.store import MemoryStore

# The honest stores: the three of tests/hostile_stores.py, and two written with --checksum.
BASE_OPTIONS: dict[str, dict[str, Any]] = {
    **HOSTILE_BASES,
    "star-checksum": {**HOSTILE_BASES["star"], "checksum": True},
    "sharded-checksum": {**HOSTILE_BASES["sharded"], "checksum": True},
}
SPECIAL = ("directory", "parent-file", "fifo", "socket", "dev-zero")  # what an edit may put instead of bytes


@dataclass
class Case:
    base: str
    kind: str
    edits: dict[str, bytes | str | None] = field(default_factory=dict)  # key -> bytes, a SPECIAL, None (remove)
    hostile: str | None = None  # a tests/hostile_stores.py case, built by its own function
    single_chunk: bool = False
    valid_store: bool = False
    chunk: bytes | None = None  # the damaged chunk's new bytes, for the decode check of corpus.py

    @property
    def checksum(self) -> bool:
        return self.base.endswith("-checksum")


def build_base(path: Path, name: str) -> None:
    chronozarr.encode(series(), path, crs="EPSG:32631", chunk_size=16, progress=False, **BASE_OPTIONS[name])


def _objects(name: str) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        build_base(Path(tmp) / "s", name)
        return MemoryStore.of_directory(Path(tmp) / "s").objects


OBJECTS = {name: _objects(name) for name in BASE_OPTIONS}


def _data_chunks(base: str) -> list[str]:
    return sorted(k for k in OBJECTS[base] if "/data/c/" in k)


def _sharded(base: str) -> bool:
    return base.startswith("sharded")


def _entries(raw: bytes) -> np.ndarray:
    n = index_nbytes(N_TIME)
    return np.frombuffer(raw[-n:-4], dtype="<u8").reshape(N_TIME, 2).copy()


def _pieces(raw: bytes) -> list[bytes | None]:
    """The inner chunks of a shard, by timestep (None when not stored)."""
    return [None if int(o) == EMPTY else raw[int(o) : int(o) + int(n)] for o, n in _entries(raw)]


def _shard(pieces: list[bytes | None]) -> bytes:
    """A shard of these inner chunks, in order, with its index and a valid crc32c."""
    body, entries = b"", np.full((len(pieces), 2), EMPTY, dtype=np.uint64)
    for i, piece in enumerate(pieces):
        if piece is not None:
            entries[i] = (len(body), len(piece))
            body += piece
    return body + encode_index(entries)


BASES = st.sampled_from(sorted(BASE_OPTIONS))


@st.composite
def chunk_bytes(draw: st.DrawFn) -> Case:
    """One chunk's bytes flipped, cut, extended or replaced (inside its shard, which stays consistent)."""
    base = draw(BASES)
    key = draw(st.sampled_from(_data_chunks(base)))
    raw = OBJECTS[base][key]
    if not _sharded(base):
        new = draw(mutated_bytes(raw))
        return Case(base, "chunk_bytes", {key: new}, single_chunk=new != raw, chunk=new)
    pieces = _pieces(raw)
    t = draw(st.sampled_from([i for i, p in enumerate(pieces) if p is not None]))
    piece = pieces[t]
    assert piece is not None
    new = draw(mutated_bytes(piece).filter(bool))  # an empty inner chunk cannot be stored
    pieces[t] = new
    return Case(base, "chunk_bytes", {key: _shard(pieces)}, single_chunk=new != piece, chunk=new)


@st.composite
def chunk_elsewhere(draw: st.DrawFn) -> Case:
    """A chunk replaced by another chunk of the store, intact (checksum included), or removed."""
    base = draw(BASES)
    keys = _data_chunks(base)
    key = draw(st.sampled_from(keys))
    if draw(st.booleans()):
        return Case(base, "chunk_removed", {key: None}, valid_store=True)
    if not _sharded(base):
        other = draw(st.sampled_from([k for k in keys if k != key and k.split("/")[0] == key.split("/")[0]] or keys))
        return Case(base, "chunk_copied", {key: OBJECTS[base][other]}, valid_store=other != key)
    pieces = _pieces(OBJECTS[base][key])
    a, b = draw(st.lists(st.sampled_from([i for i, p in enumerate(pieces) if p is not None]), min_size=2, max_size=2, unique=True))
    pieces[a] = pieces[b]
    return Case(base, "chunk_copied", {key: _shard(pieces)}, valid_store=True)


def _one_piece_changed(raw: bytes, new: bytes) -> bytes | None:
    """The damaged inner chunk when `new` differs from the shard `raw` only inside one stored inner
    chunk (same length, index intact): that is damage to one chunk's bytes, as `chunk_bytes` makes."""
    if len(new) != len(raw) or new == raw:
        return None
    changed = np.flatnonzero(np.frombuffer(raw, np.uint8) != np.frombuffer(new, np.uint8))
    for offset, length in (tuple(int(v) for v in entry) for entry in _entries(raw)):
        if offset != EMPTY and offset <= changed[0] and changed[-1] < offset + length:
            return new[offset : offset + length]
    return None


ENTRY = st.one_of(
    st.just((EMPTY, EMPTY)), st.tuples(st.integers(0, 400), st.integers(0, 200)),
    st.tuples(st.sampled_from([0, EMPTY, 2**63, 2**64 - 2]), st.integers(0, 2**64 - 1)),
)


@st.composite
def shard_index(draw: st.DrawFn) -> Case:
    """A shard index with entries swapped, or replaced by adversarial ones, with a valid crc32c;
    or the shard's bytes damaged anywhere, index included."""
    base = draw(st.sampled_from([b for b in BASE_OPTIONS if _sharded(b)]))
    key = draw(st.sampled_from(_data_chunks(base)))
    raw = OBJECTS[base][key]
    n = index_nbytes(N_TIME)
    action = draw(st.sampled_from(["swap", "entries", "bytes"]))
    if action == "bytes":
        new = draw(mutated_bytes(raw))
        piece = _one_piece_changed(raw, new)
        return Case(base, "shard_bytes", {key: new}, single_chunk=piece is not None, chunk=piece)
    entries = _entries(raw)
    if action == "swap":
        a, b = draw(st.lists(st.integers(0, N_TIME - 1), min_size=2, max_size=2, unique=True))
        entries[[a, b]] = entries[[b, a]]
        return Case(base, "index_swapped", {key: raw[:-n] + encode_index(entries)}, valid_store=True)
    drawn = draw(st.lists(ENTRY, min_size=N_TIME, max_size=N_TIME))
    # entries that are empty (the fill value) or name a stored chunk, each once, make a valid store
    stored = [e for e in drawn if e != (EMPTY, EMPTY)]
    valid = len(set(stored)) == len(stored) and set(stored) <= {(int(o), int(m)) for o, m in entries}
    return Case(base, "index_entries", {key: raw[:-n] + encode_index(np.array(drawn, dtype=np.uint64))}, valid_store=valid)


@st.composite
def bomb(draw: st.DrawFn) -> Case:
    """A data chunk that is a zstd frame declaring no size and inflating to up to 2 GiB."""
    base = draw(st.sampled_from([b for b in BASE_OPTIONS if not _sharded(b)]))
    key = draw(st.sampled_from(_data_chunks(base)))
    return Case(base, "zstd_bomb", {key: streamed_zstd_bomb(draw(st.integers(1, 2**14)) << 17)})


def _consolidated(base: str) -> dict[str, Any]:
    return json.loads(OBJECTS[base]["zarr.json"])


@st.composite
def documents(draw: st.DrawFn) -> Case:
    """The root document, or one array document (in both copies), with parts replaced, removed or
    nested deep; or a document's text damaged."""
    base = draw(BASES)
    root = _consolidated(base)
    node = draw(st.sampled_from([None, *sorted(root["consolidated_metadata"]["metadata"])]))
    if node is None:
        text = OBJECTS[base]["zarr.json"]
        new = draw(st.one_of(mutated_document(root).map(encode_json), mutated_bytes(text)))
        return Case(base, "root_document", {"zarr.json": new})
    doc = root["consolidated_metadata"]["metadata"][node]
    new_doc = draw(mutated_document(doc))
    root["consolidated_metadata"]["metadata"][node] = new_doc
    kind = "array_document" if node.endswith("/data") else "small_array_document"
    return Case(base, kind, {"zarr.json": encode_json(root), f"{node}/zarr.json": encode_json(new_doc)})


SMALL = ("0/band", "0/time", "0/x", "0/y", "1/x", "1/band", "volatility")


@st.composite
def small_arrays(draw: st.DrawFn) -> Case:
    """A coordinate, time, band or volatility chunk damaged, or a 1 GiB streamed zstd frame."""
    base = draw(BASES)
    node = draw(st.sampled_from([n for n in SMALL if any(k.startswith(f"{n}/c/") for k in OBJECTS[base])]))
    key = next(k for k in sorted(OBJECTS[base]) if k.startswith(f"{node}/c/"))
    new = draw(st.one_of(mutated_bytes(OBJECTS[base][key]), st.just(streamed_zstd_bomb(2**30))))
    return Case(base, "small_array_chunk", {key: new})


EXTENTS = st.one_of(st.sampled_from([0, 1, 15, 16, 17, 2**20, 2**31, 2**53]), st.integers(0, 2**40))


@st.composite
def level_shapes(draw: st.DrawFn) -> Case:
    """One extent of one level changed in its array documents, and in chronozarr.levels when drawn."""
    base = draw(BASES)
    root = _consolidated(base)
    block = root["attributes"]["chronozarr"]
    level = draw(st.integers(0, len(block["levels"]) - 1))
    dim = draw(st.integers(0, 3))
    extent = draw(EXTENTS)
    doc = root["consolidated_metadata"]["metadata"][f"{level}/data"]
    doc["shape"][dim] = extent
    if draw(st.booleans()):
        block["levels"][level]["shape"][dim] = extent
    return Case(base, "level_shape", {"zarr.json": encode_json(root), f"{level}/data/zarr.json": encode_json(doc)})


@st.composite
def odd_objects(draw: st.DrawFn) -> Case:
    """An object that is a directory, a FIFO, a socket or a link to /dev/zero; or a directory
    above objects that is a file."""
    base = draw(BASES)
    keys = [k for k in sorted(OBJECTS[base]) if "/c/" in k]
    return Case(base, "odd_object", {draw(st.sampled_from(keys)): draw(st.sampled_from(SPECIAL))})


HOSTILE = st.sampled_from(sorted(HOSTILE_CASES)).map(lambda name: Case(HOSTILE_CASES[name].base, "hostile_case", hostile=name))

# Weighted towards the kinds with the most room for variation.
CASES = st.one_of(
    chunk_bytes(), chunk_bytes(), chunk_bytes(), chunk_elsewhere(), shard_index(), shard_index(), bomb(), documents(), documents(),
    documents(), small_arrays(), level_shapes(), odd_objects(), HOSTILE,
)
