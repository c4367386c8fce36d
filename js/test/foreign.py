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

from foreign_stores import LAYOUTS as SHARED_LAYOUTS, REWRITES as SHARED_REWRITES, Layout, build, rewrite_documents  # noqa: E402

# The shared layouts, named with dashes as the JS tests refer to them.
LAYOUTS = {name.replace("_", "-"): layout for name, layout in SHARED_LAYOUTS.items()}
REWRITES = {name.replace("_", "-"): change for name, change in SHARED_REWRITES.items()}


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
