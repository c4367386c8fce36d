"""Write stores as another implementation would (tests/foreign_stores.py: zarr-python from the spec
text, no chronozarr) and dump their true values from plain numpy, for the JS reader's tests.

Usage: python foreign.py OUT_DIR

OUT_DIR/stores/NAME is each store; OUT_DIR/expected/NAME.bin holds every level's data, mask and
coverage (little-endian, concatenated) and OUT_DIR/index.json the offset, dtype and shape of each.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from foreign_stores import Layout, build, integral_floats_as_ints, reversed_keys, rewrite_documents  # noqa: E402

LAYOUTS = {
    "zstd-consolidated": Layout(),
    "not-consolidated": Layout(consolidated=False),
    "blosc-lz4-shuffle": Layout(codec="blosc"),
    "gzip": Layout(codec="gzip"),
    "chunk-256": Layout(cs=256, height=300, width=280, n_time=3),
    "shard-time-not-dividing": Layout(shard_time=2),
    "shard-time-without-shard-bytes": Layout(shard_time=2, shard_bytes=False),
    "shard-time-above-n-time": Layout(shard_time=7, codec="blosc"),
    "index-at-start": Layout(shard_time=2, index_location="start", shard_bytes=False),
    "star-delta-3": Layout(anchor_interval=3, n_time=7),
    "star-delta-3-sharded": Layout(anchor_interval=3, n_time=7, shard_time=2, codec="gzip"),
    "mask-without-coverage": Layout(mask=True),
    "mask-and-coverage-sharded": Layout(mask=True, coverage=True, shard_time=3),
    "unknown-attributes-and-array": Layout(extras=True),
    "pixels-per-tile": Layout(pixels_per_tile=True),
    "uint8-star-delta": Layout(dtype="uint8", anchor_interval=2),
    "int16-blosc": Layout(dtype="int16", nodata=None, codec="blosc"),
    "float32-no-nodata": Layout(dtype="float32", nodata=None),
}
REWRITES = {"reversed-keys": reversed_keys, "integral-floats-as-ints": integral_floats_as_ints}


def v01_root(path: Path) -> None:
    """The root as a v0.1 store had it: no mirrors, bands as strings, nothing consolidated."""
    doc = json.loads((path / "zarr.json").read_text())
    block = doc["attributes"]["chronozarr"]
    block["spec_version"] = "0.1.0"
    block["bands"] = list(block.pop("band_names"))
    for key in ("levels", "times", "shard_bytes", "mask_variable", "coverage_variable"):
        block.pop(key, None)
    doc.pop("consolidated_metadata", None)
    (path / "zarr.json").write_text(json.dumps(doc))


def main(out_dir: str) -> None:
    out = Path(out_dir)
    stores, expected = out / "stores", out / "expected"
    for d in (stores, expected):
        d.mkdir(parents=True, exist_ok=True)
    truth = {name: build(stores / name, layout, seed=i) for i, (name, layout) in enumerate(LAYOUTS.items())}
    for name, change in REWRITES.items():
        truth[name] = build(stores / name, Layout(anchor_interval=2, mask=True))
        rewrite_documents(stores / name, change)
    truth["v01-root"] = build(stores / "v01-root", Layout(anchor_interval=3, n_time=7, shard_time=7, consolidated=False))
    v01_root(stores / "v01-root")
    index = {}
    for name, levels in truth.items():
        pieces, offset, entries = [], 0, []
        for values in levels:
            entry = {}
            for kind, array in zip(("data", "mask", "coverage"), values):
                if array is None:
                    continue
                raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
                entry[kind] = {"offset": offset, "dtype": str(array.dtype), "shape": list(array.shape)}
                pieces.append(raw)
                offset += len(raw)
            entries.append(entry)
        (expected / f"{name}.bin").write_bytes(b"".join(pieces))
        index[name] = entries
    (out / "index.json").write_text(json.dumps(index))


if __name__ == "__main__":
    main(sys.argv[1])
