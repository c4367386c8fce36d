"""Shared pieces of the append tests: file hashes and the spec 14 list of objects an append writes."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np

import chronozarr


def file_hashes(root: Path, *, sidecars: bool = True) -> dict[str, str]:
    """sha256 of every file below root by key; `sidecars=False` skips `.chronozarr*` entries."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            key = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if not sidecars and key.startswith(".chronozarr"):
                continue
            out[key] = hashlib.sha256(Path(dirpath, name).read_bytes()).hexdigest()
    return out


def section14_objects(store: Path, old_n: int, new_n: int) -> tuple[set[str], set[str]]:
    """(objects that must be written, objects that may be written) by spec 14, from the store's
    own documents: chunks or shards gaining timesteps, array zarr.json, time/c/0, the root; the
    volatility chunk only when its values change."""
    with chronozarr.open_dataset(store) as s:
        meta = s.meta
        variables = [meta.variable] + [v for v in (meta.mask_variable, meta.coverage_variable) if v]
        required = {"zarr.json"}
        for level in meta.levels:
            rows, cols = level.grid
            shard = level.data.shard_shape[0] if level.data.sharded else None
            indices = {t // shard for t in range(old_n, new_n)} if shard else set(range(old_n, new_n))
            for name in variables:
                required.add(f"{level.path}/{name}/zarr.json")
                for i in indices:
                    for r in range(rows):
                        for c in range(cols):
                            band = "0/" if name == meta.variable else ""
                            required.add(f"{level.path}/{name}/c/{i}/{band}{r}/{c}")
            required |= {f"{level.path}/time/zarr.json", f"{level.path}/time/c/0"}
    return required, {"volatility/c/0/0"}


def assert_matches_fresh(store: Path, full, n: int, fresh_dir: Path, **options) -> None:
    """Every timestep equals its source at level 0 and a fresh encode's values at every level."""
    shutil.rmtree(fresh_dir, ignore_errors=True)
    chronozarr.encode(full[:n], fresh_dir, **options)
    with chronozarr.open_dataset(store) as a, chronozarr.open_dataset(fresh_dir) as b:
        assert len(a.times) == n and list(a.times) == list(b.times)
        for t in range(n):
            np.testing.assert_array_equal(a.read(t, 0), full[t].values)
            for level in range(len(b.levels)):
                np.testing.assert_array_equal(a.read(t, level), b.read(t, level), err_msg=f"t={t} level={level}")
                if b.has_mask:
                    np.testing.assert_array_equal(a.read_mask(t, level), b.read_mask(t, level))
                if b.has_coverage:
                    np.testing.assert_array_equal(a.read_coverage(t, level), b.read_coverage(t, level))
