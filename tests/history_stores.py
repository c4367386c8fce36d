"""Stores of earlier history versions, made from a 1.3 store by hand (no chronozarr code): a 1.2
store is the same store with level 0's history only, as a 1.2 writer left it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def as_version_1_2(store: Path) -> None:
    """Drop every coarser level's history arrays and the `levels` field; declare version 1.2."""
    root = json.loads((store / "zarr.json").read_text())
    declared = root["attributes"]["chronozarr"]["history"]
    for entry in declared.pop("levels").values():
        for key in ("path", "mask_path"):
            if key in entry:
                shutil.rmtree(store / entry[key])
                root["consolidated_metadata"]["metadata"].pop(entry[key])
    declared["version"] = "1.2"
    (store / "zarr.json").write_text(json.dumps(root))


def damage_shards(store: Path, path: str) -> int:
    """Overwrite every shard object of the array at `path` with zeros of its length; how many."""
    shards = [f for f in (store / path / "c").rglob("*") if f.is_file()]
    for shard in shards:
        shard.write_bytes(bytes(shard.stat().st_size))
    return len(shards)
