"""Rules on the root zarr.json: the group, multiscales (3.4), the chronozarr block (3.2, 3.6-3.8)
and the temporal block (4). Array-dependent rules wait until the levels are known."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...format.metadata import GAP_FILLS, SUPPORTED_VERSIONS, LevelMirror
from ...format.root_block import COVERAGE, MASK, is_legacy
from ...format.temporal import AUTO_THRESHOLD, ENCODINGS, NONE, STAR_DELTA, anchor_indices, auto_keeps_star_delta, schedule_problems, star_delta_allowed
from ...format.temporal import short_repr as _short
from ...format.times import iso_instant
from ..context import Context, int_list, is_int, is_number, number_list

ROOT = "zarr.json"
CZ = "chronozarr"
EPSG = re.compile(r"EPSG:\d+")
INT_RANGES = {"uint8": (0, 255), "uint16": (0, 65535), "int16": (-32768, 32767)}


def check_root(ctx: Context) -> bool:
    """Group document, multiscales and the chronozarr block; False when there is no block."""
    root, report = ctx.root, ctx.report
    if root.get("zarr_format") != 3:
        report.fail("3.1", ROOT, f"zarr_format is {root.get('zarr_format')!r}, expected 3 (Zarr v3)")
    if root.get("node_type") != "group":
        report.fail("3.1", ROOT, f"node_type is {root.get('node_type')!r}, expected 'group'")
    attrs = root.get("attributes")
    if not isinstance(attrs, Mapping):
        report.fail("3.1", ROOT, f"attributes must be an object, got {attrs!r}")
        return False
    block = attrs.get(CZ)
    if not isinstance(block, Mapping):
        report.fail("3.1", f"{ROOT}:attributes.chronozarr", f"the chronozarr block must be an object, got {block!r}")
        return False
    ctx.block = block
    _check_block(ctx)
    _check_multiscales(ctx, attrs.get("multiscales"))
    return True


def _check_block(ctx: Context) -> None:
    block, report = ctx.block, ctx.report
    version = block.get("spec_version")
    if not isinstance(version, str) or not SUPPORTED_VERSIONS.match(version):
        report.fail("3.2", "chronozarr.spec_version", f"{version!r} is not a supported version: expected 0.1.x or 0.2.x")
    ctx.legacy = isinstance(version, str) and is_legacy(version)
    variable = block.get("variable", "data" if ctx.legacy else None)
    if not isinstance(variable, str) or not variable or "/" in variable:
        report.fail("3.2", "chronozarr.variable", f"must be the name of the data array, got {variable!r}")
    else:
        ctx.variable = variable
    _check_times(ctx)
    _check_bands(ctx)
    nodata = block.get("nodata")
    if "nodata" not in block and not ctx.legacy:
        report.fail("3.2", "chronozarr.nodata", "missing: expected a number or null")
    if nodata is not None and not is_number(nodata):
        report.fail("2.3", "chronozarr.nodata", f"{nodata!r} is not a valid nodata: expected a finite number or null (NaN is not valid)")
        ctx.nodata_ok = False
    ctx.nodata = nodata
    crs = block.get("crs")
    if not isinstance(crs, str) or not EPSG.fullmatch(crs):
        report.fail("3.2", "chronozarr.crs", f"{crs!r} is not an 'EPSG:<code>' string")
    else:
        ctx.crs = crs
        if crs == "EPSG:3857":
            report.warn("3.2", "chronozarr.crs", "Web Mercator SHOULD NOT be used: its pixels are not equal-area")
    path = block.get("volatility_path")
    if not isinstance(path, str) or not path:
        report.fail("3.2", "chronozarr.volatility_path", f"must be the path of the volatility array, got {path!r}")
    else:
        ctx.volatility_path = path
    for name, expected, section in (("mask_variable", MASK, "2.4"), ("coverage_variable", COVERAGE, "2.5")):
        if name in block and block[name] != expected:
            report.fail(section, f"chronozarr.{name}", f"is {block[name]!r}; when present it must be {expected!r}")
    ctx.has_mask = "mask_variable" in block
    ctx.has_coverage = "coverage_variable" in block
    if "provenance" in block:
        _check_provenance(ctx, block["provenance"])
    if not isinstance(block.get("temporal"), Mapping):
        report.fail("4.1", "chronozarr.temporal", f"must be an object, got {block.get('temporal')!r}")
    _check_levels_mirror_shape(ctx)
    if "shard_bytes" in block:
        sb = block["shard_bytes"]
        if not isinstance(sb, Mapping) or not all(
            isinstance(v, Mapping) and all(is_int(n) for n in v.values()) for v in sb.values()
        ):
            report.fail("7.3", "chronozarr.shard_bytes", "must map level paths to objects of '<t_shard>/<row>/<col>': byte length")


def _check_times(ctx: Context) -> None:
    times = ctx.block.get("times")
    if times is None and ctx.legacy:
        return
    if not isinstance(times, list) or not times or not all(isinstance(t, str) for t in times):
        ctx.report.fail("3.2", "chronozarr.times", "must be a non-empty list of ISO-8601 strings")
        return
    parsed = []
    for i, text in enumerate(times):
        try:
            parsed.append(int(iso_instant(text).astype(np.int64)))
        except ValueError:
            ctx.report.fail("3.2", f"chronozarr.times[{i}]", f"{text!r} is not an ISO-8601 timestamp")
            return
    ctx.times_ms = parsed


def _check_bands(ctx: Context) -> None:
    block, report = ctx.block, ctx.report
    bands = block.get("bands")
    names: list[str] = []
    if not isinstance(bands, list) or not bands:
        report.fail("3.2", "chronozarr.bands", f"must be a non-empty list of band objects, got {bands!r}")
    else:
        for i, band in enumerate(bands):
            key = f"chronozarr.bands[{i}]"
            if isinstance(band, str):
                if not ctx.legacy:
                    report.warn("3.6", key, f"band {band!r} uses the v0.1 string form; 0.2 stores write band objects")
                names.append(band)
                continue
            if not isinstance(band, Mapping) or not isinstance(band.get("name"), str) or not band["name"]:
                report.fail("3.6", key, f"must be an object with a non-empty string name, got {band!r}")
                continue
            names.append(band["name"])
            for field_name in ("scale", "offset"):
                if field_name in band and not is_number(band[field_name]):
                    report.fail("3.6", f"{key}.{field_name}", f"must be a finite number, got {band[field_name]!r}")
            for field_name in ("common_name", "units"):
                if field_name in band and not isinstance(band[field_name], str):
                    report.fail("3.6", f"{key}.{field_name}", f"must be a string, got {band[field_name]!r}")
        if len(set(names)) != len(names):
            report.fail("3.6", "chronozarr.bands", f"band names must be unique, got {names}")
    band_names = block.get("band_names")
    if band_names is None:
        if not ctx.legacy:
            report.fail("3.2", "chronozarr.band_names", "missing: writers MUST write the band name mirror")
        ctx.band_names = names or None
        return
    if not isinstance(band_names, list) or not all(isinstance(n, str) for n in band_names):
        report.fail("3.2", "chronozarr.band_names", f"must be a list of strings, got {band_names!r}")
        ctx.band_names = names or None
        return
    if names and band_names != names:
        report.fail("3.2", "chronozarr.band_names", f"{band_names} differs from the names of chronozarr.bands {names}")
    ctx.band_names = band_names


def _check_provenance(ctx: Context, prov: Any) -> None:
    key = "chronozarr.provenance"
    if not isinstance(prov, Mapping):
        ctx.report.fail("3.8", key, f"must be an object, got {prov!r}")
        return
    sources = prov.get("sources")
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        ctx.report.fail("3.8", f"{key}.sources", f"must be a list of strings, got {sources!r}")
    if not isinstance(prov.get("composite"), str):
        ctx.report.fail("3.8", f"{key}.composite", f"must be a string, got {prov.get('composite')!r}")
    if prov.get("gap_fill") not in GAP_FILLS:
        ctx.report.fail("3.8", f"{key}.gap_fill", f"is {prov.get('gap_fill')!r}, expected one of {list(GAP_FILLS)}")
    if "notes" in prov and not isinstance(prov["notes"], str):
        ctx.report.fail("3.8", f"{key}.notes", f"must be a string, got {prov['notes']!r}")


def _check_levels_mirror_shape(ctx: Context) -> None:
    """Field types of chronozarr.levels; values are compared with the levels in levels.py."""
    levels = ctx.block.get("levels")
    if levels is None:
        if not ctx.legacy:
            ctx.report.fail("3.7", "chronozarr.levels", "missing: writers MUST write the levels mirror")
        return
    if not isinstance(levels, list) or not levels:
        ctx.report.fail("3.7", "chronozarr.levels", f"must be a non-empty list, got {levels!r}")
        return
    good = []
    for i, entry in enumerate(levels):
        key = f"chronozarr.levels[{i}]"
        if not isinstance(entry, Mapping):
            ctx.report.fail("3.7", key, f"must be an object, got {entry!r}")
            continue
        problems = []
        if not isinstance(entry.get("path"), str):
            problems.append(f"path {entry.get('path')!r} is not a string")
        if not is_number(entry.get("resolution")):
            problems.append(f"resolution {entry.get('resolution')!r} is not a number")
        if number_list(entry.get("transform"), 6) is None:
            problems.append(f"transform {entry.get('transform')!r} is not 6 numbers")
        if int_list(entry.get("shape"), 4) is None:
            problems.append(f"shape {entry.get('shape')!r} is not 4 integers")
        if int_list(entry.get("grid"), 2) is None:
            problems.append(f"grid {entry.get('grid')!r} is not 2 integers")
        if problems:
            ctx.report.fail("3.7", key, "; ".join(problems))
        else:  # the values as the store states them, for the comparisons with the levels
            good.append(LevelMirror(entry["path"], entry["resolution"], tuple(entry["transform"]), tuple(entry["shape"]), tuple(entry["grid"])))
    if len(good) == len(levels):
        ctx.mirrors = good


def _check_multiscales(ctx: Context, ms: Any) -> None:
    report = ctx.report
    key = "zarr.json:attributes.multiscales"
    if isinstance(ms, Mapping):
        report.fail("3.4", key, "is an object (the zarr-conventions form); chronozarr uses the ndpyramid list form")
        return
    if not isinstance(ms, list) or len(ms) != 1 or not isinstance(ms[0], Mapping):
        report.fail("3.4", key, f"must be a list with exactly one entry, got {_short(ms)}")
        entry = ms[0] if isinstance(ms, list) and ms and isinstance(ms[0], Mapping) else None
    else:
        entry = ms[0]
    paths: list[str] = []
    if entry is not None:
        datasets = entry.get("datasets")
        if not isinstance(datasets, list) or not datasets:
            report.fail("3.4", f"{key}[0].datasets", f"must be a non-empty list, got {_short(datasets)}")
        else:
            for i, ds in enumerate(datasets):
                dkey = f"{key}[0].datasets[{i}]"
                if not isinstance(ds, Mapping) or not isinstance(ds.get("path"), str):
                    report.fail("3.4", dkey, f"must be an object with a string path, got {_short(ds)}")
                    continue
                paths.append(ds["path"])
                if ctx.crs is not None and ds.get("crs") != ctx.crs:
                    report.fail("3.4", f"{dkey}.crs", f"is {ds.get('crs')!r}, expected chronozarr.crs {ctx.crs!r}")
            expected = [str(i) for i in range(len(paths))]
            if paths != expected:
                report.fail("3.4", f"{key}[0].datasets", f"level paths are {paths}; they must be {expected} (in order, no gaps)")
        if "type" not in entry or not isinstance(entry.get("metadata"), Mapping):
            report.warn("3.4", f"{key}[0]", "type and metadata (ndpyramid schema) are missing")
        elif "method" in entry:
            report.warn("3.4", f"{key}[0].method", "method belongs under metadata, not at the top level")
    mirrors = ctx.mirrors
    if mirrors is not None:
        mirror_paths = [m.path for m in mirrors]
        if paths and mirror_paths != paths:
            report.fail("3.7", "chronozarr.levels", f"paths {mirror_paths} differ from multiscales datasets {paths}")
        ctx.level_paths = mirror_paths if mirror_paths == [str(i) for i in range(len(mirror_paths))] else paths
    else:
        ctx.level_paths = paths
    if ctx.level_paths != [str(i) for i in range(len(ctx.level_paths))]:
        ctx.level_paths = [p for i, p in enumerate(ctx.level_paths) if p == str(i)]


def check_nodata_dtype(ctx: Context) -> None:
    """nodata is valid for the data type (2.3); run once the data type is known."""
    nodata, dtype = ctx.nodata, ctx.dtype
    if nodata is None or not ctx.nodata_ok or dtype is None:
        return
    if dtype in INT_RANGES:
        low, high = INT_RANGES[dtype]
        if float(nodata) != math.floor(nodata) or not low <= nodata <= high:
            ctx.report.fail("2.3", "chronozarr.nodata", f"{nodata!r} is not a {dtype} value: expected an integer {low}..{high}")
    elif dtype == "float32" and not math.isfinite(np.float32(nodata)):
        ctx.report.fail("2.3", "chronozarr.nodata", f"{nodata!r} overflows float32")


def check_temporal(ctx: Context) -> None:
    """The temporal block (4.1) and the anchor schedule and references (4.2)."""
    temporal = ctx.block.get("temporal")
    if not isinstance(temporal, Mapping):
        return
    report = ctx.report
    encoding = temporal.get("encoding", STAR_DELTA if ctx.legacy else None)
    if encoding not in ENCODINGS:
        report.fail("4.1", "chronozarr.temporal.encoding", f"is {encoding!r}, expected 'none' or 'star-delta'")
        return
    ctx.encoding = encoding
    if "selection" in temporal:
        _check_selection(ctx, temporal["selection"], encoding)
    fields = ("anchor_interval", "anchor_indices", "delta_reference")
    if encoding == NONE:
        present = [f for f in fields if f in temporal]
        if present:
            report.fail("4.1", "chronozarr.temporal", f"encoding 'none' must not carry {', '.join(present)}")
        return
    if ctx.dtype is not None and not star_delta_allowed(ctx.dtype):
        report.fail("4.1", "chronozarr.temporal.encoding", f"star-delta is valid only for uint8 and uint16 data, this store is {ctx.dtype}")
    interval = temporal.get("anchor_interval")
    if not is_int(interval) or interval < 1:
        report.fail("4.1", "chronozarr.temporal.anchor_interval", f"must be an integer >= 1, got {interval!r}")
        interval = None
    anchors = int_list(temporal.get("anchor_indices"))
    if anchors is None:
        report.fail("4.1", "chronozarr.temporal.anchor_indices", f"must be a list of integers, got {_short(temporal.get('anchor_indices'))}")
    refs = temporal.get("delta_reference")
    if not isinstance(refs, Mapping):
        report.fail("4.1", "chronozarr.temporal.delta_reference", f"must be an object, got {_short(refs)}")
        refs = None
    n = ctx.n_time
    if interval is None or n is None:
        return
    parsed: dict[int, Any] = {}
    for k, v in (refs or {}).items():
        if not re.fullmatch(r"0|[1-9]\d*", str(k)) or int(k) >= n:
            report.fail("4.1", f"chronozarr.temporal.delta_reference[{k!r}]", f"key {k!r} is not a timestep index 0..{n - 1} in decimal")
            continue
        parsed[int(k)] = v
    for section, field, message in schedule_problems(n, interval, anchors if anchors is not None else anchor_indices(n, interval), parsed):
        if refs is not None or not field.startswith("delta_reference"):
            report.fail(section, f"chronozarr.temporal.{field}", message)


def _check_selection(ctx: Context, sel: Any, encoding: str) -> None:
    key = "chronozarr.temporal.selection"
    if not isinstance(sel, Mapping) or sel.get("mode") != "auto" or not is_int(sel.get("sampled_cells")) or not is_number(sel.get("ratio")):
        ctx.report.fail("4.1", key, f"must be {{mode: 'auto', sampled_cells: int, ratio: number}}, got {_short(sel)}")
        return
    if sel["sampled_cells"] < 1 or sel["ratio"] <= 0:
        ctx.report.fail("4.1", key, f"sampled_cells must be >= 1 and ratio > 0, got {dict(sel)}")
    else:
        chosen = STAR_DELTA if auto_keeps_star_delta(sel["ratio"]) else NONE
        if encoding != chosen:
            where = "at most" if chosen == STAR_DELTA else "above"
            ctx.report.warn("4.3", key, f"ratio {sel['ratio']} is {where} {AUTO_THRESHOLD}, where auto keeps {chosen!r}")

