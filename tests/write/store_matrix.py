"""A fixed set of stores whose every object is hashed: the writer's bytes, pinned.

The list in `store_hashes.json` was produced by the writer before it walked timesteps in spatial
blocks, so a test comparing against it proves that the block walk, the cluster path and resume
write the same bytes as the whole-timestep writer did, for every layout, codec and dtype. The gzip
cases and the blosc settings added after them were pinned later, from the block writer of c8ec07f,
once test_store_matrix_codecs.py had read those stores back to their input with zarr-python alone.

    python tests/write/store_matrix.py [CASE ...]   # rewrite those cases' hashes, every case when
                                                    # none is named (only when bytes change on purpose)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

HASHES = Path(__file__).with_name("store_hashes.json")
HEIGHT, WIDTH = 150, 131  # odd width: edge replication at several levels; chunk 16 gives 5 levels


def series(case: dict[str, Any]) -> tuple[xr.DataArray, dict[str, Any]]:
    """The input of one case: a temporally smooth field (so star-delta pays) with nodata holes."""
    n_time, n_band = case.get("n_time", 8), case.get("n_band", 3)
    dtype = np.dtype(case.get("dtype", "uint16"))
    rng = np.random.default_rng(case.get("seed", 1))
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    base = 800 + 300 * np.sin(y / 9.0) * np.cos(x / 13.0)
    values = np.empty((n_time, n_band, HEIGHT, WIDTH), dtype=np.float64)
    for t in range(n_time):
        for b in range(n_band):
            values[t, b] = base * (1 + 0.1 * b) + 15 * t + rng.normal(0, 4, (HEIGHT, WIDTH))
    if dtype.kind == "u":
        values = np.clip(values * (0.2 if dtype.itemsize == 1 else 1), 1, np.iinfo(dtype).max)
    elif dtype.kind == "i":
        values -= 1000
    data = values.astype(dtype)
    extra: dict[str, Any] = {}
    if case.get("holes"):
        hole = rng.random((n_time, HEIGHT, WIDTH)) < 0.07
        hole[:, :40, :35] = True  # cells with no valid pixel at level 0 and partly valid above
        fill = case.get("nodata", 0)
        if dtype.kind == "f":
            fill = np.nan
        data[np.broadcast_to(hole[:, None], data.shape)] = fill
    if case.get("mask"):
        extra["mask"] = (rng.random((n_time, HEIGHT, WIDTH)) > 0.2).astype(np.uint8)
        extra["mask"][:, 60:100, 20:70] = 0
    if case.get("coverage"):
        extra["coverage"] = rng.integers(0, 300, (n_time, HEIGHT, WIDTH)).astype(np.uint16)
    times = np.array([np.datetime64("2021-01-01", "D") + np.timedelta64(16 * i, "D") for i in range(n_time)], dtype="datetime64[ns]")
    da = xr.DataArray(
        data,
        dims=("time", "band", "y", "x"),
        coords={
            "time": times,
            "band": [f"B{i + 2:02d}" for i in range(n_band)],
            "y": 6_000_000 - (np.arange(HEIGHT) + 0.5) * 20.0,
            "x": 300_000 + (np.arange(WIDTH) + 0.5) * 20.0,
        },
    )
    return da, extra


CASES: dict[str, dict[str, Any]] = {
    "none-unsharded": {"holes": True, "options": {"encoding": "none"}},
    "auto-unsharded": {"holes": True, "options": {}},
    "delta-unsharded": {"holes": True, "options": {"encoding": "star-delta", "anchor_interval": 3}},
    "delta-sharded": {"holes": True, "options": {"encoding": "star-delta", "anchor_interval": 3, "shard": True, "shard_time": 3}},
    "delta-sharded-whole-axis": {"options": {"encoding": "star-delta", "anchor_interval": 4, "shard": True}},
    "none-sharded": {"holes": True, "options": {"encoding": "none", "shard": True, "shard_time": 5}},
    "uint8-mask-coverage-delta": {
        "dtype": "uint8", "mask": True, "coverage": True, "n_time": 7,
        "options": {"encoding": "star-delta", "anchor_interval": 2, "shard": True, "shard_time": 4},
    },
    "uint16-mask-coverage-none": {"mask": True, "coverage": True, "options": {"encoding": "none"}},
    "float32-nan": {"dtype": "float32", "holes": True, "n_band": 2, "options": {}},
    "int16-nodata": {"dtype": "int16", "holes": True, "nodata": -9999, "options": {"nodata": -9999}},
    "blosc-lz4-shuffle": {"holes": True, "options": {"codec": "blosc", "blosc_cname": "lz4", "blosc_shuffle": "shuffle"}},
    "blosc-zstd-delta": {"options": {"codec": "blosc", "encoding": "star-delta", "shard": True, "shard_time": 4}},
    "zstd-1-one-band": {"n_band": 1, "n_time": 3, "options": {"codec": "zstd", "level": 1}},
    "one-timestep": {"n_time": 1, "holes": True, "options": {}},
    "max-levels-2": {"options": {"max_levels": 2, "encoding": "none"}},
    # gzip at its default level and at both ends (1 and 9 set the header's extra-flags byte),
    # and the blosc settings the cases above leave out, so every codec setting of spec 8 is pinned.
    "gzip-delta-sharded": {
        "holes": True, "options": {"codec": "gzip", "encoding": "star-delta", "anchor_interval": 3, "shard": True, "shard_time": 3},
    },
    "gzip-1-uint8-mask-coverage": {
        "dtype": "uint8", "mask": True, "coverage": True, "n_time": 5, "options": {"codec": "gzip", "level": 1},
    },
    "gzip-9-float32": {"dtype": "float32", "holes": True, "n_band": 2, "n_time": 4, "options": {"codec": "gzip", "level": 9}},
    "blosc-lz4-noshuffle-delta": {
        "dtype": "uint8", "n_time": 5, "options": {"codec": "blosc", "blosc_cname": "lz4", "encoding": "star-delta", "anchor_interval": 2},
    },
    "blosc-zstd-shuffle-int16": {
        "dtype": "int16", "holes": True, "nodata": -9999, "n_time": 4,
        "options": {"codec": "blosc", "blosc_shuffle": "shuffle", "level": 9, "nodata": -9999},
    },
}


def encode_case(name: str, out: Path, **overrides: Any) -> Path:
    """Encode one case at chunk size 16 into `out` (overrides go to encode, e.g. block options)."""
    import chronozarr

    case = CASES[name]
    da, extra = series(case)
    options = {"crs": "EPSG:32633", "chunk_size": 16, "progress": False, **case["options"], **extra, **overrides}
    chronozarr.encode(da, out, **options)
    return out


def object_hashes(root: Path) -> dict[str, str]:
    """One digest per array or group (its level and name, e.g. "0/data"), over the key and sha256 of
    every object below it, with the object count: small to commit, and a mismatch names the array."""
    digests: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".chronozarr")]
        for name in sorted(names):
            path = Path(dirpath) / name
            key = path.relative_to(root).as_posix()
            node = "/".join(key.split("/")[:2]) if key.count("/") >= 2 else key.split("/")[0]
            line = f"{key}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n"
            digests.setdefault(node, []).append(line)
            counts[node] = counts.get(node, 0) + 1
    return {
        node: f"{counts[node]}:" + hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()[:32]
        for node, lines in sorted(digests.items())
    }


def main(names: list[str]) -> None:
    """Rewrite the hashes of the named cases (every case when none is named), keeping the others."""
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; the cases are {sorted(CASES)}")
    result = json.loads(HASHES.read_text()) if names and HASHES.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or CASES:
            result[name] = object_hashes(encode_case(name, Path(tmp) / name))
    HASHES.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {HASHES}: {len(names or CASES)} of {len(result)} stores")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    main(sys.argv[1:])
