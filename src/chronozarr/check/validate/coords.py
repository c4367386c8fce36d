"""Rules that read small arrays: coordinates and the times/band_names mirrors (2.2), the
volatility array (5); and consolidated metadata against each node's own zarr.json (3.1)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import StoreError
from ...format.array_doc import ArrayDocument, object_key
from ...format.geometry import pixel_centres
from ...format.times import TIME_CALENDAR, TIME_UNITS, iso
from ...read.decode import decode_chunk, decode_strings
from ..context import Context, LevelFacts, canonical, doc_key
from .arraydocs import attributes, check_codecs, check_node, layout

VOLATILITY_DIMS = ["row", "col"]  # the example of spec 3.9; spec 5 names no dimensions
COORDS = (("time", ("int64",)), ("band", ("string", "int32")), ("y", ("float64",)), ("x", ("float64",)))


def read_vector(ctx: Context, node: str, doc: Mapping[str, Any], section: str) -> np.ndarray | None:
    """Every element of a 1-D or 2-D array, chunk by chunk; missing chunks are fill."""
    key = doc_key(node)
    try:
        array = ArrayDocument.from_json(node, doc)
    except StoreError as exc:
        ctx.report.fail(section, key, str(exc))
        return None
    shape = array.shape
    grid = [math.ceil(s / c) for s, c in zip(shape, array.chunk_shape, strict=False)]
    if array.sharded or len(shape) not in (1, 2) or math.prod(grid) > 4096:
        return None
    strings = doc.get("data_type") == "string"
    out = np.full(shape, "" if strings else array.fill, dtype=object if strings else array.dtype)
    for idx in np.ndindex(*grid):
        chunk_key = object_key(node, idx)
        raw = ctx.source.get(chunk_key)
        if raw is None:
            continue
        try:
            chunk = decode_strings(array, raw, chunk_key) if strings else decode_chunk(array, raw, chunk_key)
        except StoreError as exc:
            ctx.report.fail("8", chunk_key, str(exc))
            return None
        if strings:
            if len(chunk) != math.prod(array.chunk_shape):
                ctx.report.fail(section, chunk_key, f"holds {len(chunk)} strings, expected {math.prod(array.chunk_shape)}")
                return None
            chunk = chunk.reshape(array.chunk_shape)
        target = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(idx, array.chunk_shape, shape, strict=False))
        out[target] = chunk[tuple(slice(0, t.stop - t.start) for t in target)]
    return out


def check_coordinates(ctx: Context) -> None:
    first: dict[str, np.ndarray] = {}
    for level in ctx.levels:
        for name, dtypes in COORDS:
            node = f"{level.path}/{name}"
            doc = ctx.doc(node, "2.2")
            if doc is None:
                if ctx.missing(node):
                    ctx.report.fail("2.2", doc_key(node), f"coordinate array {name} of level {level.path} is missing")
                continue
            values = _check_coordinate(ctx, level, name, dtypes, node, doc)
            if values is None or name not in ("time", "band"):
                continue
            if name not in first:
                first[name] = values
                (_check_time if name == "time" else _check_band)(ctx, node, values)
            elif values.shape != first[name].shape or not np.array_equal(values, first[name]):
                ctx.report.fail("2.2", f"{node}/c/0", f"{name} differs from level 0's; it must be identical at every level")


def _check_coordinate(ctx: Context, level: LevelFacts, name: str, dtypes: tuple[str, ...], node: str, doc: Any) -> np.ndarray | None:
    key = doc_key(node)
    if not check_node(ctx, node, doc, [name], "2.2"):
        return None
    dtype = doc.get("data_type")
    if dtype not in dtypes:
        ctx.report.fail("2.2", key, f"data_type is {dtype!r}, expected {' or '.join(dtypes)}")
        return None
    check_codecs(ctx, node, doc, dtype, coordinate=True)
    facts = layout(ctx, node, doc, "2.2")
    if facts is None:
        return None
    length = {"time": ctx.n_time, "band": ctx.n_band, "y": level.height, "x": level.width}[name]
    if length is not None and list(facts.shape) != [length]:
        ctx.report.fail("2.2", key, f"shape {list(facts.shape)} must be [{length}]")
        return None
    if facts.inner is not None or facts.outer != facts.shape:
        ctx.report.warn("2.2", key, "coordinate arrays SHOULD be a single chunk")
    if name == "time":
        attrs = attributes(doc)
        if attrs.get("units") != TIME_UNITS or attrs.get("calendar") != TIME_CALENDAR:
            ctx.report.warn("2.2", key, f"units/calendar should be {TIME_UNITS!r} and {TIME_CALENDAR!r}")
    values = read_vector(ctx, node, doc, "2.2")
    if values is None:
        return None
    if name in ("y", "x") and level.transform is not None:
        a, _, c, _, e, f = level.transform
        expected = pixel_centres(f, e, len(values)) if name == "y" else pixel_centres(c, a, len(values))
        step = abs(e if name == "y" else a)
        if not np.allclose(values.astype(np.float64), expected, rtol=0, atol=max(step * 1e-6, 1e-9)):
            ctx.report.fail("2.2", f"{node}/c/0", f"{name} values are not the pixel centres of the level transform")
    return values


def _check_time(ctx: Context, node: str, values: np.ndarray) -> None:
    ms = [int(v) for v in values]
    key = f"{node}/c/0"
    bad = [i for i in range(1, len(ms)) if ms[i] <= ms[i - 1]]
    if bad:
        i = bad[0]
        ctx.report.fail("2.2", key, f"time is not strictly increasing: time[{i}] = {iso(ms[i])} after time[{i - 1}] = {iso(ms[i - 1])}")
    mirror = ctx.times_ms
    if mirror is None:
        return
    texts = ctx.block.get("times") or []
    for i, (stored, mirrored) in enumerate(zip(ms, mirror, strict=False)):
        if stored != mirrored:
            ctx.report.fail("2.2", f"chronozarr.times[{i}]", f"is {texts[i]!r}, but time[{i}] is {iso(stored)}")
            break


def _check_band(ctx: Context, node: str, values: np.ndarray) -> None:
    key = f"{node}/c/0"
    names = ctx.band_names
    if values.dtype.kind == "O":
        got = [str(v) for v in values]
        if names is not None and got != list(names):
            ctx.report.fail("2.2", "chronozarr.band_names", f"is {list(names)}, but the band coordinate holds {got}")
    elif list(values) != list(range(len(values))):
        ctx.report.fail("2.2", key, f"an int32 band coordinate must hold 0..n_band-1, got {list(values)}")


def check_volatility(ctx: Context) -> None:
    node = ctx.volatility_path
    key = doc_key(node)
    doc = ctx.doc(node, "5")
    if doc is None:
        if ctx.missing(node):
            ctx.report.fail("5", key, f"the volatility array is missing at volatility_path {node!r}")
        return
    if not check_node(ctx, node, doc, None, "5"):
        return
    if doc.get("dimension_names") not in (None, VOLATILITY_DIMS):
        ctx.report.warn("5", key, f"dimension_names is {doc['dimension_names']}; the spec's example names them {VOLATILITY_DIMS}")
    if doc.get("data_type") != "float32":
        ctx.report.fail("5", key, f"data_type is {doc.get('data_type')!r}, expected float32")
        return
    check_codecs(ctx, node, doc, "float32", coordinate=True)
    facts = layout(ctx, node, doc, "5")
    if facts is None:
        return
    grid = ctx.levels[0].grid(ctx.chunk_size) if ctx.levels else None
    if grid is not None and list(facts.shape) != list(grid):
        ctx.report.fail("5", key, f"shape {list(facts.shape)} must be the level 0 cell grid {list(grid)}")
        return
    if facts.inner is not None or facts.outer != facts.shape:
        ctx.report.fail("5", key, f"must be a single chunk: chunk_shape {list(facts.outer)} for shape {list(facts.shape)}")
        return
    values = read_vector(ctx, node, doc, "5")
    if values is None:
        return
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad)[0])
        ctx.report.fail("5", f"{node}/c/0/0", f"volatility[{r}, {c}] = {values[r, c]!r} is outside [0, 1]")


def check_consolidated(ctx: Context) -> None:
    """Consolidated metadata, when present, equals every node's own zarr.json (3.1)."""
    meta = ctx.root.get("consolidated_metadata")
    key = "zarr.json:consolidated_metadata"
    if meta is None:
        ctx.report.warn("3.1", key, "absent; writers SHOULD consolidate metadata so one GET opens the store")
        return
    if not isinstance(meta, Mapping) or not isinstance(meta.get("metadata"), Mapping):
        ctx.report.fail("3.1", key, "must be an object with a 'metadata' object")
        return
    nodes = meta["metadata"]
    for node, copy in nodes.items():
        own = ctx.doc(str(node))
        if own is None:
            if ctx.missing(str(node)):
                ctx.report.fail("3.1", f"{key}[{node!r}]", f"lists node {node!r}, which has no zarr.json")
            continue
        copy, own = _comparable(copy), _comparable(own)
        if canonical(own) != canonical(copy):
            ctx.report.fail("3.1", f"{key}[{node!r}]", f"differs from {doc_key(str(node))}: {_difference(copy, own)}")
    known = set(ctx.arrays) | ctx.groups
    for node in sorted(known - set(nodes)):
        ctx.report.fail("3.1", key, f"omits node {node!r}")


# Members a node document may carry or omit with the same meaning (Zarr v3 defaults), and the
# nested consolidated_metadata that zarr-python's consolidate_metadata gives every group copy.
_OPTIONAL_MEMBERS: dict[str, Any] = {"storage_transformers": [], "attributes": {}, "dimension_names": None}


def _comparable(doc: Any) -> Any:
    """A node document without the members whose presence alone does not change it."""
    if not isinstance(doc, Mapping):
        return doc
    return {
        k: v for k, v in doc.items()
        if k != "consolidated_metadata" and not (k in _OPTIONAL_MEMBERS and v == _OPTIONAL_MEMBERS[k])
    }


def _difference(copy: Any, own: Any, path: str = "") -> str:
    """The first place two documents differ, for the message."""
    if isinstance(copy, Mapping) and isinstance(own, Mapping):
        for k in sorted(set(copy) | set(own), key=str):
            if k not in copy:
                return f"{path}{k} is missing from the consolidated copy"
            if k not in own:
                return f"{path}{k} is only in the consolidated copy"
            if canonical(copy[k]) != canonical(own[k]):
                return _difference(copy[k], own[k], f"{path}{k}.")
    return f"{path.rstrip('.') or 'document'}: consolidated {canonical(copy)[:80]} vs own {canonical(own)[:80]}"
