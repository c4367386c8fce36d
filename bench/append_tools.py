"""The pieces of bench/append.py that are not its command line: layout and encoding choices as
encode options, one operation in its own process, what re-referencing would rewrite, and the read
cost of a view.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import chronozarr
from chronozarr.format.geometry import cell_key, time_shard
from chronozarr.format.temporal import nearest_anchor

BENCH = Path(__file__).resolve().parent
CRS = "EPSG:32631"
ENCODINGS = ("auto", "none", "star-delta")
VIEW_CELLS = 3  # a view is the first VIEW_CELLS x VIEW_CELLS level-0 cells (fewer on a small store)


def layout_options(name: str) -> dict[str, Any]:
    """encode() options of a layout: `unsharded`, `whole-axis` (one shard for the axis the store is
    created with) or `shard-time-N` (N timesteps per shard)."""
    if name == "unsharded":
        return {}
    if name == "whole-axis":
        return {"shard": True}
    found = re.fullmatch(r"shard-time-([1-9][0-9]*)", name)
    if found:
        return {"shard": True, "shard_time": int(found.group(1))}
    raise SystemExit(f"--layouts: {name!r} is not whole-axis, shard-time-N (N >= 1) or unsharded")


def encoding_options(name: str, anchor_interval: int) -> dict[str, Any]:
    if name not in ENCODINGS:
        raise SystemExit(f"--encodings: {name!r} is not one of {', '.join(ENCODINGS)}")
    return {"encoding": name, "anchor_interval": anchor_interval}


CHILD = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import xarray as xr
import chronozarr, _common
op, first, last = {op!r}, {first!r}, {last!r}
da = xr.open_zarr({source!r}, consolidated=False)["data"].isel(time=slice(first, last))
started = time.perf_counter()
out = {{}}
if op == "encode":
    s = chronozarr.encode(da, {store!r}, crs={crs!r}, progress=False, **{options!r})
    out.update(objects=s.objects, new=s.objects, rewritten=0, metadata=0, mb=s.nbytes / 1e6, encoding=s.encoding)
else:
    s = chronozarr.append({store!r}, da, progress=False)
    out.update(objects=len(s.objects), new=s.objects_new, rewritten=s.objects_rewritten,
               metadata=s.objects_metadata, mb=s.nbytes / 1e6)
out["seconds"] = time.perf_counter() - started
out["peak_rss_mb"] = _common.peak_rss_bytes() / 1e6
print(json.dumps(out))
"""


def run(op: str, source: Path, store: Path, first: int, last: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Encode (`op` "encode") or append timesteps [first, last) of the source in a child process,
    so its peak RSS is its own."""
    os.sync()
    code = CHILD.format(bench=str(BENCH), op=op, source=str(source), store=str(store), first=first, last=last, options=options or {}, crs=CRS)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{op} of timesteps {first}..{last - 1} into {store} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def anchors_of(store: Path) -> list[int]:
    """The store's anchors (none for a `none` store)."""
    return list(chronozarr.open_dataset(str(store)).anchor_indices)


def rereference_cost(store: Path, anchors_before: list[int], n_before: int) -> dict[str, Any]:
    """What the nearest-anchor rule would have rewritten had it been applied again after an append
    (spec 4.2 freezes recorded references instead): the timesteps published before the append whose
    nearest anchor is now a new one, and the data objects holding them at every level (each chunk
    of an unsharded store, each time shard of a sharded one), with their bytes after the append."""
    opened = chronozarr.open_dataset(str(store))
    anchors = list(opened.anchor_indices)
    if not anchors_before or anchors == anchors_before:
        return {"timesteps": [], "objects": 0, "bytes": 0}
    before = set(anchors_before)
    moved = [t for t in range(n_before) if t not in before and nearest_anchor(t, anchors) != nearest_anchor(t, anchors_before)]
    keys: set[str] = set()
    for level in opened.levels:
        doc = level.data_array
        path = f"{level.path}/{opened.meta.variable}"
        for t in moved:
            index = time_shard(t, doc.grid_shape[0])[0] if level.sharded else t
            keys.update(cell_key(path, index, row, col, True) for row, col in level.cells())
    present = [store / key for key in keys if (store / key).is_file()]
    return {"timesteps": moved, "objects": len(present), "bytes": sum(p.stat().st_size for p in present)}


def view_cost(store: Path, t: int) -> dict[str, Any]:
    """Read one timestep of a view (the first VIEW_CELLS x VIEW_CELLS level-0 cells) from a freshly
    opened store, as a cold client would: requests, bytes and wall time."""
    opened = chronozarr.open_dataset(str(store))
    level = opened.levels[0]
    cells = [(r, c) for r in range(min(VIEW_CELLS, level.grid_rows)) for c in range(min(VIEW_CELLS, level.grid_cols))]
    before = opened.stats()
    started = time.perf_counter()
    for row, col in cells:
        opened.read_cell(t, row, col, lod=0)
    seconds = time.perf_counter() - started
    after = opened.stats()
    reference = opened.reference_of(t)
    return {"t": t, "cells": len(cells), "reference": reference, "requests": after["requests"] - before["requests"],
            "bytes": after["bytes"] - before["bytes"], "seconds": seconds}
