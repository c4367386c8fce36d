"""Stores a stranger could hand a reader, one flaw each, built from small honest stores.

Both readers are tested on the same cases: the Python tests call `build_case`, and
js/test/hostile.py writes every case for the JS tests. Each case names the cell a read must fail
on and a fragment its error message must hold; no case may read as values, crash with an exception
that is not the reader's own, hang, or allocate past what the metadata implies.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

import chronozarr

N_TIME, HEIGHT, WIDTH, CS = 5, 32, 32, 16
CHUNK_KEY = "0/data/c/1/0/0/0"  # timestep 1 (a delta under star-delta), band block 0, cell (0, 0)
BOMB_BYTES = 512 * 2**20  # what the streamed zstd frame decompresses to; its chunk holds 2 KiB


def series() -> xr.DataArray:
    rng = np.random.default_rng(15)
    values = rng.integers(1000, 1016, size=(N_TIME, 1, HEIGHT, WIDTH), dtype=np.uint16)  # compressible: blosc really compresses it
    times = np.datetime64("2024-01-01", "ns") + np.arange(N_TIME) * np.timedelta64(31, "D")
    return xr.DataArray(
        values,
        dims=("time", "band", "y", "x"),
        coords={"time": times, "band": ["B0"], "y": 5e6 - (np.arange(HEIGHT) + 0.5) * 10, "x": 5e5 + (np.arange(WIDTH) + 0.5) * 10},
    )


BASES: dict[str, dict[str, Any]] = {
    "star": dict(encoding="star-delta", anchor_interval=2),
    "sharded": dict(encoding="none", shard=True),
    "blosc": dict(encoding="none", codec="blosc", blosc_cname="lz4", blosc_shuffle="shuffle"),
}


def build_base(path: Path, name: str) -> None:
    chronozarr.encode(series(), path, crs="EPSG:32631", chunk_size=CS, progress=False, **BASES[name])


# -- edits ----------------------------------------------------------------------------------


def _root(store: Path) -> dict[str, Any]:
    return json.loads((store / "zarr.json").read_text())


def _write_root(store: Path, root: dict[str, Any]) -> None:
    (store / "zarr.json").write_text(json.dumps(root))


def edit_block(store: Path, change: Callable[[dict[str, Any]], None]) -> None:
    root = _root(store)
    change(root["attributes"]["chronozarr"])
    _write_root(store, root)


def edit_array_docs(store: Path, change: Callable[[dict[str, Any], int], None]) -> None:
    """Every data array document, in the node's zarr.json and in the consolidated copy; `change`
    is given the document and its level."""
    root = _root(store)
    variable = root["attributes"]["chronozarr"].get("variable", "data")
    for key, doc in root.get("consolidated_metadata", {}).get("metadata", {}).items():
        if key.endswith(f"/{variable}"):
            change(doc, int(key.split("/")[0]))
    _write_root(store, root)
    for path in store.glob(f"*/{variable}/zarr.json"):
        doc = json.loads(path.read_text())
        change(doc, int(path.parent.parent.name))
        path.write_text(json.dumps(doc))


def streamed_zstd_bomb(total: int) -> bytes:
    """A zstd frame that declares no content size and inflates to `total` bytes of 7: RLE blocks of
    128 KiB each, 4 bytes apiece, after a header with no size field (RFC 8878 3.1.1)."""
    block = 1 << 17
    count = total // block
    out = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")  # magic; descriptor: no size, not single segment; 128 KiB window
    for i in range(count):
        header = (1 if i == count - 1 else 0) | (1 << 1) | (block << 3)  # last flag, RLE, size
        out += header.to_bytes(3, "little") + b"\x07"
    return bytes(out)


def zstd_first_block(frame: bytes) -> tuple[int, int]:
    """(start, end) of the first block of a zstd frame, its 3-byte header included: after the
    magic, the descriptor, the window (absent in a single-segment frame), the dictionary id and
    the content size (RFC 8878 3.1.1)."""
    descriptor = frame[4]
    single = bool(descriptor & 0x20)
    start = 5 + (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3] + (1 if single else 0, 2, 4, 8)[descriptor >> 6]
    header = int.from_bytes(frame[start : start + 3], "little")
    return start, start + 3 + (1 if (header >> 1) & 3 == 1 else header >> 3)


def _replace(store: Path, key: str, make: Callable[[Path], None]) -> None:
    path = store / key
    path.unlink()
    make(path)


def _directory_of_objects(path: Path) -> None:
    """A directory where the chunk was, holding a file: what a copy or sync gone wrong leaves."""
    path.mkdir()
    (path / "0").write_bytes(b"\x00" * 8)


def _directory_as_file(store: Path) -> None:
    """The directory holding the chunk replaced by a file: the chunks under it are gone."""
    directory = (store / CHUNK_KEY).parent
    shutil.rmtree(directory)
    directory.write_bytes(b"\x00" * 8)


def _bind_socket(path: Path) -> None:
    """A Unix socket file at `path` (it stays after the socket is closed)."""
    import socket

    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))


def _shard_key(store: Path) -> Path:
    return store / "0" / "data" / "c" / "0" / "0" / "0" / "0"


def rewrite_index(store: Path, change: Callable[[np.ndarray], None]) -> None:
    """Edit the end index of shard (0, 0) of level 0 and write it back with a valid crc32c."""
    from chronozarr.format.shard_index import encode_index, index_nbytes

    path = _shard_key(store)
    raw = path.read_bytes()
    n = index_nbytes(N_TIME)
    entries = np.frombuffer(raw[-n:-4], dtype="<u8").reshape(N_TIME, 2).copy()
    change(entries)
    path.write_bytes(raw[:-n] + encode_index(entries))


def _repeat_entry(entries: np.ndarray) -> None:
    entries[1] = entries[0]


def _overlap_entry(entries: np.ndarray) -> None:
    entries[1, 0] = entries[0, 0] + entries[0, 1] // 2


def _huge(side: int) -> Callable[[Path], None]:
    """Level k of side / 2^k pixels a side, in the array documents and the levels mirror: a store
    that agrees with itself, only far larger than its objects."""

    def extent(level: int) -> int:
        return -(-side // 2**level)

    def array(doc: dict[str, Any], level: int) -> None:
        doc["shape"][2:] = [extent(level)] * 2

    def mirror(block: dict[str, Any]) -> None:
        for k, level in enumerate(block.get("levels", [])):
            level["shape"][2:] = [extent(k)] * 2
            level["grid"] = [-(-extent(k) // CS)] * 2

    return lambda store: (edit_array_docs(store, array), edit_block(store, mirror))


def _level0_height(height: int, in_mirror: bool) -> Callable[[Path], None]:
    """Level 0's height in its array documents (node and consolidated copy), and in the levels
    mirror when `in_mirror`."""

    def array(doc: dict[str, Any], level: int) -> None:
        if level == 0:
            doc["shape"][2] = height

    def mirror(block: dict[str, Any]) -> None:
        block["levels"][0]["shape"][2] = height
        block["levels"][0]["grid"][0] = -(-height // CS)

    return lambda store: (edit_array_docs(store, array), in_mirror and edit_block(store, mirror))


def _infinite_shape(block: dict[str, Any]) -> None:
    block["levels"][0]["shape"][2] = float("inf")


def _deep_json(store: Path) -> None:
    text = (store / "zarr.json").read_text()
    depth = 100_000
    (store / "zarr.json").write_text(text[:-1] + ', "deep": ' + "[" * depth + "]" * depth + "}")


def _flip_blosc_shuffle(store: Path) -> None:
    path = store / CHUNK_KEY
    raw = bytearray(path.read_bytes())
    raw[2] ^= 0x01  # the chunk was shuffled; its header now says it was not
    path.write_bytes(bytes(raw))


def _anchors_off_schedule(block: dict[str, Any]) -> None:
    temporal = block["temporal"]
    temporal["anchor_indices"] = [0, 1, 2, 4]  # timestep 1 holds residuals, not values
    temporal["delta_reference"].pop("1")


def _reference_too_far(block: dict[str, Any]) -> None:
    block["temporal"]["delta_reference"]["1"] = 4  # an anchor, at distance 3 >= anchor_interval 2


def _reference_to_non_anchor(block: dict[str, Any]) -> None:
    block["temporal"]["delta_reference"]["1"] = 3


@dataclass(frozen=True)
class Case:
    """One flaw: the base store it is made from, how, the read that must fail and the error."""

    base: str
    make: Callable[[Path], None]
    message: str  # a fragment of the error, case-sensitive, as both readers word it
    t: int = 1
    read: str = "read_cell({t}, 0, 0)"  # the ChronoDataset call that must fail
    js: bool = True  # False: the JS reader cannot meet this store (Python-only JSON, say)
    layout_valid: bool = False  # True: only decoding the chunk finds it, which validate does not do for every chunk
    phase: str = "read"  # "open": the store must not open at all


CASES: dict[str, Case] = {
    "zstd_streamed_bomb": Case("star", lambda s: (s / CHUNK_KEY).write_bytes(streamed_zstd_bomb(BOMB_BYTES)), "zstd"),
    "chunk_is_dev_zero": Case("star", lambda s: _replace(s, CHUNK_KEY, lambda p: p.symlink_to("/dev/zero")), "not a regular file"),
    "chunk_is_a_fifo": Case("star", lambda s: _replace(s, CHUNK_KEY, lambda p: os.mkfifo(p)), "not a regular file"),
    "chunk_is_a_socket": Case("star", lambda s: _replace(s, CHUNK_KEY, _bind_socket), "not a regular file"),
    "chunk_is_a_directory": Case("star", lambda s: _replace(s, CHUNK_KEY, _directory_of_objects), "is a directory"),
    "chunk_directory_is_a_file": Case("star", _directory_as_file, "a directory above it is a file"),
    "deep_json": Case("star", _deep_json, "nested", phase="open"),
    # json.dumps writes float("inf") as Infinity, which Python's json reads back and JSON.parse refuses
    "infinite_level_shape": Case("star", lambda s: edit_block(s, _infinite_shape), "shape", js=False, phase="open"),
    # 2^31 x 2^31: more bytes than any reader can address, refused when opened; 2^29 x 2^29 opens,
    # but a whole frame of it cannot be allocated
    "huge_sharded_shape": Case("sharded", _huge(2**31), "cannot", t=0, phase="open"),
    # (the JS reader reads cells, never a whole frame: its cells of this store are right)
    "huge_sharded_frame": Case("sharded", _huge(2**29), "cannot", t=0, read="read({t})", js=False),
    "level_disagrees_with_mirror": Case("star", _level0_height(2**20, in_mirror=False), "disagrees with chronozarr.levels", phase="open"),
    "level_not_halved": Case("star", _level0_height(2**20, in_mirror=True), "ceil(H/2)", phase="open"),
    "level_shape_zero": Case("star", _level0_height(0, in_mirror=True), "holds no pixels", phase="open"),
    "shard_entry_repeats": Case("sharded", lambda s: rewrite_index(s, _repeat_entry), "repeat", t=0),
    "shard_entry_overlaps": Case("sharded", lambda s: rewrite_index(s, _overlap_entry), "overlap", t=0),
    "anchors_off_schedule": Case("star", lambda s: edit_block(s, _anchors_off_schedule), "anchor_indices", phase="open"),
    "reference_too_far": Case("star", lambda s: edit_block(s, _reference_too_far), "delta_reference", phase="open"),
    "reference_to_non_anchor": Case("star", lambda s: edit_block(s, _reference_to_non_anchor), "delta_reference", phase="open"),
    "anchor_given_a_reference": Case("star", lambda s: edit_block(s, lambda b: b["temporal"]["delta_reference"].__setitem__("2", 1)), "delta_reference", phase="open"),
    "mask_variable_zero": Case("star", lambda s: edit_block(s, lambda b: b.update(mask_variable=0)), "mask_variable", phase="open"),
    "mask_variable_object": Case("star", lambda s: edit_block(s, lambda b: b.update(mask_variable={})), "mask_variable", phase="open"),
    "coverage_variable_list": Case("star", lambda s: edit_block(s, lambda b: b.update(coverage_variable=["coverage"])), "coverage_variable", phase="open"),
    "blosc_flags_disagree": Case("blosc", _flip_blosc_shuffle, "blosc flags", layout_valid=True),
    "year_99999": Case("star", lambda s: edit_block(s, lambda b: b["times"].__setitem__(1, "99999-01-01T00:00:00Z")), "chronozarr.times", phase="open", read="to_xarray()"),
    # a valid timestamp JS dates hold, outside what xarray's datetime64[ns] axis holds
    "year_2300": Case("star", lambda s: edit_block(s, lambda b: b["times"].__setitem__(4, "2300-01-01T00:00:00Z")), "chronozarr.times[4]", read="to_xarray()", js=False),
}


def build_case(directory: Path, name: str, bases: dict[str, Path] | None = None) -> Path:
    """The store of case `name` under `directory`, copied from its base (built once when `bases`
    caches them) and damaged."""
    case = CASES[name]
    store = directory / name
    if bases is not None and case.base in bases:
        shutil.copytree(bases[case.base], store, symlinks=True)
    else:
        build_base(store, case.base)
    case.make(store)
    return store


# What each case is, in words, for docs/reliability.md.
ABOUT: dict[str, str] = {
    "zstd_streamed_bomb": "a 2 KiB chunk that is a zstd frame declaring no size and inflating to 512 MiB",
    "chunk_is_dev_zero": "a chunk that is a symlink to /dev/zero",
    "chunk_is_a_fifo": "a chunk that is a FIFO nobody writes to",
    "chunk_is_a_socket": "a chunk that is a Unix socket",
    "chunk_is_a_directory": "a chunk key that is a directory holding a file (a copy gone wrong)",
    "chunk_directory_is_a_file": "the directory above a chunk is a file (a copy gone wrong): its chunks are lost, not fill",
    "deep_json": "a root zarr.json with a list nested 100,000 deep",
    "infinite_level_shape": "Infinity in chronozarr.levels[0].shape",
    "huge_sharded_shape": "a sharded level of 2^31 x 2^31 pixels (more bytes than an address space)",
    "huge_sharded_frame": "a sharded level of 2^29 x 2^29 pixels, read as a whole frame",
    "level_disagrees_with_mirror": "level 0's height 2^20 in its array documents, 32 in chronozarr.levels",
    "level_not_halved": "level 0's height 2^20 in its array documents and chronozarr.levels, level 1's 16",
    "level_shape_zero": "level 0's height 0 in its array documents and chronozarr.levels",
    "shard_entry_repeats": "a shard index whose entry 1 repeats entry 0, with a valid crc32c",
    "shard_entry_overlaps": "a shard index whose entry 1 starts inside entry 0, with a valid crc32c",
    "anchors_off_schedule": "anchor_indices that list a delta timestep as an anchor",
    "reference_too_far": "a delta_reference to an anchor at distance >= anchor_interval",
    "reference_to_non_anchor": "a delta_reference to a timestep that is not an anchor",
    "anchor_given_a_reference": "a delta_reference entry for anchor 2, pointing at delta 1",
    "mask_variable_zero": "mask_variable: 0",
    "mask_variable_object": "mask_variable: {}",
    "coverage_variable_list": 'coverage_variable: ["coverage"]',
    "blosc_flags_disagree": "a blosc chunk whose flags byte says unshuffled when it was shuffled",
    "year_99999": "a timestamp in the year 99999",
    "year_2300": "a timestamp in 2300, outside datetime64[ns], read into xarray",
}
assert ABOUT.keys() == CASES.keys()
