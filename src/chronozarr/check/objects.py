"""Rules on stored objects: no unexpected objects (2, 9), shard indexes (7.2) and shard_bytes
(7.3). A store that can be listed (a directory, a bucket, memory) is listed through the store
interface; over HTTP only the keys metadata names are probed."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from ..errors import StoreError
from ..format.array_doc import ArrayDocument, object_key
from ..format.geometry import cell_indices, is_decimal_index, key_indices, parse_shard_id
from ..format.metadata import GRID_MAPPING
from ..format.shard_index import EMPTY
from ..read.decode import parse_shard_index
from ..store import ObjectStore
from .context import ArrayFacts, Context

IGNORED_PREFIX = ".chronozarr"
ZARR_V2 = (".zarray", ".zattrs", ".zgroup", ".zmetadata")
MAX_PROBES = 4096


def store_objects(store: ObjectStore, special: Callable[[str], None] | None = None) -> Iterator[tuple[str, int]]:
    """(key, size) of every object of a listable store, skipping the `.chronozarr*` sidecars; an
    entry listed without a size (on a directory: a FIFO, a device, a link to one) is passed to
    `special`, since no reader can use it as an object."""
    for key, size in store.list():
        if key.split("/", 1)[0].startswith(IGNORED_PREFIX):
            continue
        if size is not None:
            yield key, size
        elif special is not None:
            special(key)


LEVEL_MEMBERS = ("mask", "coverage", "time", "band", "y", "x", GRID_MAPPING)


def check_objects(ctx: Context) -> None:
    """Classify every object of a listable store; collect the shard objects for the checks below."""
    existing: dict[str, int] | None = None
    if ctx.source.listable:
        existing = {}
        nodes = set(ctx.arrays) | ctx.groups | {""}
        files = list(store_objects(ctx.source, special=lambda key: ctx.report.fail(
            "2", key, "is not a regular file (a FIFO, socket or device, or a link to one): store objects must be regular files"
        )))
        extra = _extra_nodes(ctx, [key for key, _ in files])
        for key, size in files:
            if not any(key.startswith(f"{node}/") for node in extra):
                _classify(ctx, key, size, nodes, existing)
    if ctx.sharded:
        _check_shards(ctx, existing)
    elif "shard_bytes" in ctx.block:
        ctx.report.fail("7.3", "chronozarr.shard_bytes", "is present but the store is unsharded; it is for sharded stores only")


def _extra_nodes(ctx: Context, keys: list[str]) -> list[str]:
    """Zarr nodes outside the chronozarr layout, each reported once as a warning.

    The spec defines the nodes a store has, not a ban on others: another convention's arrays
    (thumbnails, statistics) may sit beside them, and readers ignore them.
    """
    layout = {"", ctx.volatility_path, *ctx.arrays}  # arrays: the levels' and a declared history array
    for path in ctx.level_paths:
        layout |= {path, f"{path}/{ctx.variable}", *(f"{path}/{m}" for m in LEVEL_MEMBERS)}
    extra = []
    for key in keys:
        if key.rpartition("/")[2] != "zarr.json":
            continue
        node = key.rpartition("/")[0]
        if node in layout or any(n.startswith(f"{node}/") for n in layout):
            continue
        ctx.report.warn("2", key, f"node {node!r} is not part of the chronozarr layout; chronozarr readers ignore it")
        extra.append(node)
    return extra


def _classify(ctx: Context, key: str, size: int, nodes: set[str], existing: dict[str, int]) -> None:
    parts = key.split("/")
    if parts[-1] in ZARR_V2:
        ctx.report.fail("9", key, "Zarr v2 metadata files must not exist in a chronozarr store")
        return
    if parts[-1] == "zarr.json":
        node = "/".join(parts[:-1])
        if node not in nodes:
            ctx.report.fail("2", key, f"node {node!r} is not part of the chronozarr layout")
        return
    if "c" in parts:
        i = parts.index("c")
        node = "/".join(parts[:i])
        facts = ctx.arrays.get(node)
        if facts is not None:
            indices = parts[i + 1 :]
            if _inside(indices, facts.grid):
                if facts.inner is not None:
                    existing[key] = size
                return
            ctx.report.fail("2", key, f"is not a chunk key inside {node}'s chunk grid {list(facts.grid)}")
            return
    ctx.report.fail("2", key, "unexpected object: not a zarr.json of a node nor a chunk of an array")


def _inside(indices: list[str], grid: tuple[int, ...]) -> bool:
    if len(indices) != len(grid) or not all(is_decimal_index(p) for p in indices):
        return False
    return all(int(p) < g for p, g in zip(indices, grid, strict=False))


def _shard_keys(facts: ArrayFacts) -> Iterator[str]:
    for idx in np.ndindex(*facts.grid):
        yield object_key(facts.node, idx)


def _check_shards(ctx: Context, existing: dict[str, int] | None) -> None:
    data_nodes = {f"{level.path}/{ctx.variable}": level.path for level in ctx.levels}
    listed = _listed(ctx, data_nodes)
    sharded = [f for f in ctx.arrays.values() if f.inner is not None and f.node.split("/")[-1] in (ctx.variable, "mask", "coverage")]
    sizes: dict[str, int] = {}
    if existing is not None:
        sizes = dict(existing)
    else:
        data_shards = [f for f in sharded if f.node in data_nodes]
        possible = sum(math.prod(f.grid) for f in data_shards) if listed is not None else 0
        if possible > MAX_PROBES:  # counted first: a damaged shape can name more shards than there are atoms
            ctx.report.info("7.3", "chronozarr.shard_bytes", f"{possible} possible shards: only the listed ones were checked")
            probes = list(listed or {})
        else:
            probes = [k for f in data_shards for k in _shard_keys(f)]
        for key in probes:
            size = ctx.source.size(key)
            if size is not None:
                sizes[key] = size
    if listed is not None:
        for key, length in listed.items():
            true = sizes.get(key) if key in sizes or existing is not None else ctx.source.size(key)
            if true is None:
                ctx.report.fail("7.3", key, f"is listed in shard_bytes with {length} bytes but does not exist")
            elif true != length:
                ctx.report.fail("7.3", key, f"shard_bytes lists {length} bytes, the object has {true}")
        for key in sorted(k for k in sizes if _node(k) in data_nodes and k not in listed):
            ctx.report.fail("7.3", key, "exists but is not listed in shard_bytes (it must list exactly the existing data shards)")
    for facts in sharded:
        array = facts.parsed
        if array is None:
            continue
        keys = [k for k in sizes if _node(k) == facts.node]
        if existing is None and listed is not None and facts.node in data_nodes:
            keys = [k for k in listed if k in sizes and _node(k) == facts.node]
        for key in sorted(keys):
            _check_index(ctx, array, key, sizes[key])


def _listed(ctx: Context, data_nodes: dict[str, str]) -> dict[str, int] | None:
    """shard_bytes as {object key: length}; None when absent or malformed (already reported)."""
    sb = ctx.block.get("shard_bytes")
    if not isinstance(sb, Mapping):
        return None
    by_path = {path: node for node, path in data_nodes.items()}
    out: dict[str, int] = {}
    for level, entries in sb.items():
        if level not in by_path:
            ctx.report.fail("7.3", f"chronozarr.shard_bytes[{level!r}]", "is not a level of the store")
            continue
        if not isinstance(entries, Mapping):
            continue
        facts = ctx.arrays.get(by_path[level])
        for name, length in entries.items():
            cell = parse_shard_id(str(name))
            indices = cell_indices(*cell, has_band=True) if cell is not None else None
            if facts is None or indices is None or not _inside([str(i) for i in indices], facts.grid):
                ctx.report.fail("7.3", f"chronozarr.shard_bytes[{level!r}][{name!r}]", "is not '<t_shard>/<row>/<col>' inside the shard grid")
                continue
            out[object_key(by_path[level], indices)] = length
    return out


def _node(key: str) -> str:
    """The array a chunk or shard key belongs to (the key itself when it is not one)."""
    found = key_indices(key)
    return found[0] if found is not None else key


def _check_index(ctx: Context, array: ArrayDocument, key: str, length: int) -> None:
    """The shard index passes crc32c and bounds; entries past n_time are empty (7.2)."""
    n = array.index_nbytes
    if length < n:
        ctx.report.fail("7.2", key, f"is {length} bytes, shorter than its {n}-byte index")
        return
    try:
        raw = ctx.source.get_range(key, length - n if array.index_at_end else 0, n)
        if raw is None:
            return
        index = parse_shard_index(array, raw, length, ctx.source.describe(key))
    except StoreError as exc:
        ctx.report.fail("7.2", key, str(exc))
        return
    if ctx.n_time is None or array.shard_shape is None:
        return
    shard_time = array.shard_shape[0]
    found = key_indices(key)
    ts = int(found[1][0]) if found is not None else 0
    per_t = math.prod(s // c for s, c in zip(array.shard_shape[1:], array.chunk_shape[1:], strict=False))
    for position in range(shard_time):
        if ts * shard_time + position >= ctx.n_time:
            rows = index[position * per_t : (position + 1) * per_t]
            if not np.all(rows == EMPTY):
                ctx.report.fail("7.2", key, f"index entry for timestep {ts * shard_time + position} >= n_time is not empty")
                return
