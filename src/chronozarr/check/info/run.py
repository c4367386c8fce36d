"""`info`: what a store holds, as a dict for programs and as text for people."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ...crs import crs_unit
from ...format.geometry import size_text
from ...format.times import cadence
from ...read.dataset import ChronoDataset
from ...read.metadata import DatasetMetadata
from ...store import ObjectStore
from ...store.directory import DirectoryStore
from ..context import local_root
from ..objects import store_objects


def info(store: str | os.PathLike[str] | ObjectStore) -> dict[str, Any]:
    """Times, bands, dtype, nodata, encoding, levels, layout, planes, CRS and (local) size."""
    with ChronoDataset(store) as cz:
        meta = cz.meta
        temporal = meta.temporal
        selection = temporal.selection
        level0 = meta.levels[0]
        out: dict[str, Any] = {
            "store": cz.source.describe("").rstrip("/"),
            "spec_version": meta.spec_version,
            "times": {
                "first": meta.times_iso[0],
                "last": meta.times_iso[-1],
                "count": len(meta.times_iso),
                "cadence": cadence(meta.times),
            },
            "bands": [
                {"name": b.name, "common_name": b.common_name, "scale": b.scale, "offset": b.offset, "units": b.units}
                for b in meta.bands
            ],
            "dtype": meta.dtype.name,
            "nodata": meta.nodata,
            "encoding": {
                "name": temporal.encoding,
                "anchor_interval": temporal.anchor_interval,
                "anchors": len(temporal.anchor_indices),
                "selection_ratio": selection.ratio if selection else None,
                "sampled_cells": selection.sampled_cells if selection else None,
            },
            "levels": [
                {
                    "path": level.path,
                    "shape": list(level.shape),
                    "grid": list(level.grid),
                    "resolution": level.resolution,
                }
                for level in meta.levels
            ],
            "layout": {
                "chunk_size": level0.chunk_size,
                "sharded": level0.data_array.sharded,
                "shard_time": level0.data_array.shard_shape[0] if level0.data_array.shard_shape else None,
                "codec": level0.data_array.codec.name if level0.data_array.codec else None,
            },
            "mask": meta.mask_variable is not None,
            "coverage": meta.coverage_variable is not None,
            "crs": meta.crs,
        }
    root = local_root(store) if isinstance(store, (str, os.PathLike)) else getattr(store, "root", None)
    files = list(store_objects(DirectoryStore(root))) if root is not None and root.is_dir() else None
    if files is not None:
        out["objects"] = {"count": len(files), "bytes": sum(size for _, size in files)}
    history = _history(meta, files)
    if history is not None:
        out["history"] = history
    return out


def _history(meta: DatasetMetadata, files: list[tuple[str, int]] | None) -> dict[str, Any] | None:
    """The history array: its blocks, its stored bytes and their ratio to level 0's data bytes
    (from shard_bytes, or the listing of a local store); why it is not used, when it is not."""
    if meta.history is None:
        return {"unusable": meta.history_problem} if meta.history_problem else None
    layout = meta.history.layout
    level0 = f"0/{meta.variable}/c/"
    data = sum(meta.shard_bytes.get("0", {}).values()) if meta.shard_bytes else None
    if files is not None:
        data = sum(size for key, size in files if key.startswith(level0))
    stored = sum(layout.shard_bytes.values())
    masks = layout.mask_shard_bytes
    return {
        "time_cap": layout.time_cap,
        "chunk_shape": list(layout.chunk_shape),
        "shard_shape": list(layout.shard_shape),
        "shards": len(layout.shard_bytes),
        "bytes": stored,
        "level0_bytes": data,
        "ratio": stored / data if data else None,
        # The mask copy (version 1.1): None when the history has none.
        "mask_shards": len(masks) if masks is not None else None,
        "mask_bytes": sum(masks.values()) if masks is not None else None,
        # Coarser levels with a usable history (version 1.3): their shards and bytes, data and mask copy.
        "levels": {
            str(k): {"shards": len(c.layout.shard_bytes), "bytes": sum(c.layout.shard_bytes.values()) + sum((c.layout.mask_shard_bytes or {}).values())}
            for k, c in sorted(meta.history.coarse.items())
        },
    }


def info_text(summary: dict[str, Any]) -> str:
    """The dict of `info` as aligned lines for a terminal."""
    times, enc, lay = summary["times"], summary["encoding"], summary["layout"]
    unit = crs_unit(summary["crs"])
    lines = [
        f"store      {summary['store']}  (chronozarr {summary['spec_version']})",
        f"times      {times['count']} from {times['first']} to {times['last']}, {times['cadence']}",
        f"dtype      {summary['dtype']}, nodata {_nodata(summary['nodata'])}",
        f"encoding   {_encoding(enc)}",
        f"crs        {summary['crs']}",
        f"layout     {_layout(lay)}",
        f"planes     mask {'yes' if summary['mask'] else 'no'}, coverage {'yes' if summary['coverage'] else 'no'}",
        "bands",
        *(f"  {_band(b)}" for b in summary["bands"]),
        "levels",
        *(f"  {_level(level, unit)}" for level in summary["levels"]),
    ]
    if summary.get("history"):
        lines.append(f"history    {_history_text(summary['history'])}")
    if "objects" in summary:
        lines.append(f"objects    {summary['objects']['count']} objects, {_bytes(summary['objects']['bytes'])}")
    return "\n".join(lines)


def _levels_text(levels: dict[str, Any]) -> str:
    if not levels:
        return ""
    return f"; levels {', '.join(levels)} too ({_bytes(sum(v['bytes'] for v in levels.values()))})"


def _history_text(history: dict[str, Any]) -> str:
    if "unusable" in history:
        return f"declared but not used: {history['unusable']}"
    ratio = f", {history['ratio']:.2f}x level 0's data ({_bytes(history['level0_bytes'])})" if history["ratio"] is not None else ""
    mask = f"; mask copy {history['mask_shards']} shards, {_bytes(history['mask_bytes'])}" if history.get("mask_bytes") is not None else ""
    return (
        f"time-major, {history['time_cap']} timesteps per block, inner chunk {history['chunk_shape']}, "
        f"{history['shards']} shards, {_bytes(history['bytes'])}{ratio}{mask}{_levels_text(history.get('levels') or {})}"
    )


def _nodata(value: Any) -> str:
    return "none" if value is None else repr(value)


def _encoding(enc: dict[str, Any]) -> str:
    text = enc["name"]
    if enc["anchor_interval"] is not None:
        text += f", anchor interval {enc['anchor_interval']} ({enc['anchors']} anchors)"
    if enc["selection_ratio"] is not None:
        text += f", chosen by auto: star-delta/plain {enc['selection_ratio']:.3f} over {enc['sampled_cells']} cells"
    return text


def _layout(lay: dict[str, Any]) -> str:
    form = f"sharded, shard_time {lay['shard_time']}" if lay["sharded"] else "unsharded"
    return f"{form}, chunk size {lay['chunk_size']}, codec {lay['codec']}"


def _band(b: dict[str, Any]) -> str:
    extras = [f"scale {b['scale']:g}", f"offset {b['offset']:g}"]
    if b["common_name"]:
        extras.insert(0, b["common_name"])
    if b["units"]:
        extras.append(b["units"])
    return f"{b['name']:<10} {', '.join(extras)}"


def _level(level: dict[str, Any], unit: str) -> str:
    shape: Sequence[int] = level["shape"]
    grid = level["grid"]
    cells = size_text(grid[1], grid[0], "cells")
    return f"{level['path']:>3}  {size_text(shape[3], shape[2])}, {cells}, {level['resolution']:g} {unit} per pixel"


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"
