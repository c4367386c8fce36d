"""What every fuzz target on stores does with a variant: open it, read through it and validate it.
Allowed outcomes: values, or our own error; the validator never raises."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hostile_stores import build_base

import chronozarr
from chronozarr.errors import ChronozarrError
from chronozarr.read.dataset import ChronoDataset
from chronozarr.store import MemoryStore, ObjectStore


def _base(name: str) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        build_base(Path(tmp) / "s", name)
        return MemoryStore.of_directory(Path(tmp) / "s").objects


BASES = {name: _base(name) for name in ("star", "sharded")}


def read_everything(objects: dict[str, bytes] | ObjectStore | Path) -> None:
    """Open, read the first and last timestep of every level's first cell, a mask and a pixel
    history where there is one, and validate; any exception that is not ours fails the target."""
    source = (lambda: MemoryStore(objects)) if isinstance(objects, dict) else (lambda: objects)
    try:
        with ChronoDataset(source(), concurrency=2) as store:
            n = len(store.times)
            for level in store.levels[:3]:
                if 0 in level.grid:
                    continue  # a level with no cells has none to read (IndexError names the grid)
                for t in sorted({0, n - 1}) if n else []:
                    cell = store.read_cell(t, 0, 0, lod=level.index)
                    assert isinstance(cell, np.ndarray)
                    store.read_mask(t, lod=level.index, window=(0, 1, 0, 1))
            if n and 0 not in store.levels[0].grid:
                store.read_point(0, 0)
    except ChronozarrError:
        pass
    report = chronozarr.validate(source(), sample_pyramid=True)
    assert report is not None
