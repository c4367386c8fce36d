"""Rules on each level: the group (3.3), the data array (2.1, 2.3, 7.1), mask and coverage
(2.4, 2.5), the pyramid geometry (6) and the levels mirror (3.7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...format.geometry import next_level_extent
from ...format.metadata import DTYPES
from ..context import ArrayFacts, Context, LevelFacts, close, doc_key, is_number, number_list
from .arraydocs import Compressor, attributes, check_codecs, check_node, layout

DATA_DIMS = ["time", "band", "y", "x"]
PLANE_DIMS = ["time", "y", "x"]
PLANES = (("mask", "has_mask", "mask_variable", "2.4"), ("coverage", "has_coverage", "coverage_variable", "2.5"))


def check_levels(ctx: Context) -> None:
    if not ctx.level_paths:
        ctx.report.fail("3.4", "zarr.json", "the store lists no usable levels")
        return
    if ctx.times_ms is not None:
        ctx.n_time = len(ctx.times_ms)
    if ctx.band_names is not None:
        ctx.n_band = len(ctx.band_names)
    compressors: dict[str, Compressor] = {}
    for index, path in enumerate(ctx.level_paths):
        level = LevelFacts(index, path)
        ctx.levels.append(level)
        _check_group(ctx, level)
        data = _check_data(ctx, level, compressors)
        for name, flag, attr, section in PLANES:
            _check_plane(ctx, level, name, getattr(ctx, flag), attr, section, data, compressors)
    _check_mirror(ctx)


def _check_group(ctx: Context, level: LevelFacts) -> None:
    path, report = level.path, ctx.report
    key = doc_key(path)
    doc = ctx.doc(path, "3.3")
    if doc is None:
        if ctx.missing(path):
            report.fail("3.3", key, f"level group {path!r} is missing")
        return
    if not isinstance(doc, Mapping) or doc.get("zarr_format") != 3 or doc.get("node_type") != "group":
        report.fail("3.3", key, "is not a Zarr v3 group")
        return
    ctx.groups.add(path)
    attrs = attributes(doc)
    if ctx.crs is not None and attrs.get("crs") != ctx.crs:
        report.fail("3.3", f"{key}:attributes.crs", f"is {attrs.get('crs')!r}, expected chronozarr.crs {ctx.crs!r}")
    transform = number_list(attrs.get("transform"), 6)
    if transform is None:
        report.fail("3.3", f"{key}:attributes.transform", f"must be 6 numbers, got {attrs.get('transform')!r}")
    resolution = attrs.get("resolution")
    if not is_number(resolution):
        report.fail("3.3", f"{key}:attributes.resolution", f"must be a number, got {resolution!r}")
        resolution = None
    base = ctx.levels[0].transform if ctx.levels else None
    k = level.index
    if transform is not None:
        if k == 0:
            level.transform = transform
        elif base is not None:
            a, b, c, d, e, f = base
            expected = [a * 2**k, b, c, d, e * 2**k, f]
            if not all(close(x, y) for x, y in zip(transform, expected, strict=False)):
                report.fail("3.3", f"{key}:attributes.transform", f"is {transform}, expected {expected} (level 0 scaled by 2^{k})")
            level.transform = transform
        if resolution is not None:
            scale = ctx.levels[0].transform if k and ctx.levels[0].transform else transform
            expected_res = abs(scale[0]) * 2**k
            if not close(float(resolution), expected_res):
                report.fail("3.3", f"{key}:attributes.resolution", f"is {resolution}, expected abs(a) * 2^{k} = {expected_res}")
    level.resolution = float(resolution) if resolution is not None else None


def _check_data(ctx: Context, level: LevelFacts, compressors: dict[str, Compressor]) -> ArrayFacts | None:
    node = f"{level.path}/{ctx.variable}"
    key = doc_key(node)
    report = ctx.report
    doc = ctx.doc(node, "2.1")
    if doc is None:
        if ctx.missing(node):
            report.fail("2.1", key, f"the data array of level {level.path} is missing")
        return None
    if not check_node(ctx, node, doc, DATA_DIMS, "2.1"):
        return None
    dtype = doc.get("data_type")
    if dtype not in DTYPES:
        report.fail("2.3", key, f"data_type {dtype!r} is not one of {', '.join(DTYPES)}")
        dtype = None
    elif ctx.dtype is None:
        ctx.dtype = dtype
    elif dtype != ctx.dtype:
        report.fail("2.1", key, f"data_type {dtype} differs from level 0's {ctx.dtype}; it must be identical at every level")
    _check_fill(ctx, key, doc, dtype)
    compressors[node] = check_codecs(ctx, node, doc, dtype)
    facts = layout(ctx, node, doc, "2.1")
    if facts is None:
        return None
    if len(facts.shape) != 4:
        report.fail("2.1", key, f"shape {list(facts.shape)} must be [n_time, n_band, H, W]")
        return None
    n_time, n_band, height, width = facts.shape
    _expect_count(ctx, key, "n_time", n_time, "chronozarr.times lists", "3.2")
    _expect_count(ctx, key, "n_band", n_band, "chronozarr.bands lists", "3.2")
    level.height, level.width = height, width
    if level.index > 0:
        below = ctx.levels[level.index - 1]
        if below.height is not None and below.width is not None:
            expected = next_level_extent(below.height, below.width)
            if (height, width) != expected:
                report.fail("6", key, f"level {level.path} is {height} x {width}; expected ceil(H/2) x ceil(W/2) = {expected[0]} x {expected[1]}")
    _check_chunks(ctx, key, facts, n_band)
    return facts


def _expect_count(ctx: Context, key: str, name: str, value: int, what: str, section: str) -> None:
    known = getattr(ctx, name)
    if known is None:
        setattr(ctx, name, value)
    elif value != known:
        ctx.report.fail(section, key, f"shape has {name} = {value}, but {what} {known}")


def _check_fill(ctx: Context, key: str, doc: Mapping[str, Any], dtype: str | None) -> None:
    """fill_value and the nodata attribute follow chronozarr.nodata (2.3)."""
    fill = doc.get("fill_value")
    attrs = attributes(doc)
    nodata = ctx.nodata
    if not ctx.nodata_ok:
        return
    if nodata is None:
        if not (is_number(fill) and fill == 0):
            ctx.report.fail("2.3", key, f"fill_value is {fill!r}; with nodata null it must be 0")
        if "nodata" in attrs:
            ctx.report.fail("2.3", f"{key}:attributes.nodata", f"is {attrs['nodata']!r}; with nodata null the attribute must be absent")
        return
    if not (is_number(fill) and fill == nodata):
        ctx.report.fail("2.3", key, f"fill_value is {fill!r}, expected chronozarr.nodata {nodata!r}")
    if "nodata" not in attrs:
        ctx.report.fail("2.3", f"{key}:attributes.nodata", f"is missing; expected chronozarr.nodata {nodata!r}")
    elif not (is_number(attrs["nodata"]) and attrs["nodata"] == nodata):
        ctx.report.fail("2.3", f"{key}:attributes.nodata", f"is {attrs['nodata']!r}, expected chronozarr.nodata {nodata!r}")


def _check_chunks(ctx: Context, key: str, facts: ArrayFacts, n_band: int) -> None:
    """cs even and equal everywhere (2.1); shard shape [shard_time, n_band, cs, cs] (7.1)."""
    report = ctx.report
    inner = facts.inner or facts.outer
    cs = inner[2]
    if inner[2] != inner[3]:
        report.fail("2.1", key, f"chunk is {inner[2]} x {inner[3]}; chunk_shape[2] must equal chunk_shape[3]")
    if cs % 2:
        report.fail("2.1", key, f"chunk size {cs} is odd; it must be even")
    if ctx.chunk_size is None:
        ctx.chunk_size = cs
    elif cs != ctx.chunk_size:
        report.fail("2.1", key, f"chunk size {cs} differs from level 0's {ctx.chunk_size}; it must be identical at every level")
    if list(inner) != [1, n_band, cs, cs]:
        report.fail("2.1", key, f"chunk shape {list(inner)} must be [1, n_band, cs, cs] = {[1, n_band, cs, cs]}")
    _check_shard_time(ctx, key, facts, [n_band, cs, cs] if len(facts.outer) == 4 else [cs, cs])


def _check_shard_time(ctx: Context, key: str, facts: ArrayFacts, rest: list[int]) -> None:
    sharded = facts.inner is not None
    if ctx.sharded is None:
        ctx.sharded = sharded
    elif sharded != ctx.sharded:
        ctx.report.fail("7.1", key, f"is {'sharded' if sharded else 'unsharded'} but level 0's data array is not; every array shares one layout")
        return
    if not sharded:
        return
    shard_time = facts.outer[0]
    if list(facts.outer[1:]) != rest:
        ctx.report.fail("7.1", key, f"shard shape {list(facts.outer)} must be [shard_time, {', '.join(map(str, rest))}]")
    if ctx.shard_time is None:
        ctx.shard_time = shard_time
    elif shard_time != ctx.shard_time:
        ctx.report.fail("7.1", key, f"shard_time {shard_time} differs from {ctx.shard_time}; data, mask and coverage share one shard_time")


def _check_plane(
    ctx: Context,
    level: LevelFacts,
    name: str,
    declared: bool,
    attr: str,
    section: str,
    data: ArrayFacts | None,
    compressors: dict[str, Compressor],
) -> None:
    """mask or coverage: at every level or none, uint8, fill 0, [time, y, x] (2.4, 2.5)."""
    node = f"{level.path}/{name}"
    key = doc_key(node)
    report = ctx.report
    doc = ctx.doc(node, section)
    if doc is None:
        if declared and ctx.missing(node):
            report.fail(section, key, f"chronozarr.{attr} is set but level {level.path} has no {name} array (it must exist at every level or none)")
        return
    if not declared:
        report.fail(section, key, f"a {name} array exists but chronozarr.{attr} is absent (it must be present exactly when {name} exists)")
    if not check_node(ctx, node, doc, PLANE_DIMS, section):
        return
    if doc.get("data_type") != "uint8":
        report.fail(section, key, f"data_type is {doc.get('data_type')!r}, expected uint8")
    if not (is_number(doc.get("fill_value")) and doc["fill_value"] == 0):
        report.fail(section, key, f"fill_value is {doc.get('fill_value')!r}, expected 0")
    comp = check_codecs(ctx, node, doc, "uint8")
    data_node = f"{level.path}/{ctx.variable}"
    theirs = compressors.get(data_node)
    if comp is not None and theirs is not None and comp != theirs:
        report.fail("8", key, f"compression codec {comp[0]} {comp[1]} differs from the data array's {theirs[0]} {theirs[1]}")
    facts = layout(ctx, node, doc, section)
    if facts is None:
        return
    expected_shape = [ctx.n_time, level.height, level.width]
    if None not in expected_shape and list(facts.shape) != expected_shape:
        report.fail(section, key, f"shape {list(facts.shape)} must be [n_time, H, W] = {expected_shape}")
    cs = ctx.chunk_size
    inner = facts.inner or facts.outer
    if cs is not None and list(inner) != [1, cs, cs]:
        report.fail(section, key, f"chunk shape {list(inner)} must be [1, cs, cs] = {[1, cs, cs]}")
    if cs is not None and len(facts.outer) == 3:
        _check_shard_time(ctx, key, facts, [cs, cs])


def _check_mirror(ctx: Context) -> None:
    """chronozarr.levels equals the level groups and data arrays (3.7)."""
    mirrors = ctx.mirrors
    if mirrors is None:
        return
    if len(mirrors) != len(ctx.levels):
        ctx.report.fail("3.7", "chronozarr.levels", f"lists {len(mirrors)} levels, the store has {len(ctx.levels)}")
    cs = ctx.chunk_size
    for i, (mirror, level) in enumerate(zip(mirrors, ctx.levels, strict=False)):
        key = f"chronozarr.levels[{i}]"
        if level.transform is not None and not all(close(a, b) for a, b in zip(mirror.transform, level.transform, strict=False)):
            ctx.report.fail("3.7", f"{key}.transform", f"is {list(mirror.transform)}, the level group says {level.transform}")
        if level.resolution is not None and not close(mirror.resolution, level.resolution):
            ctx.report.fail("3.7", f"{key}.resolution", f"is {mirror.resolution}, the level group says {level.resolution}")
        data = ctx.arrays.get(f"{level.path}/{ctx.variable}")
        if data is not None and tuple(data.shape) != mirror.shape:
            ctx.report.fail("3.7", f"{key}.shape", f"is {list(mirror.shape)}, the data array's shape is {list(data.shape)}")
        grid = level.grid(cs)
        if grid is not None and grid != mirror.grid:
            ctx.report.fail("3.7", f"{key}.grid", f"is {list(mirror.grid)}, expected [ceil(H/cs), ceil(W/cs)] = {list(grid)}")
