"""Stores written by another implementation: built from the spec text with zarr-python alone.

Nothing here imports chronozarr. Values come from tests/expected.py (the spec's pyramid, residual
and volatility rules in plain numpy), layout from zarr-python's own array creation, so a reader or
validator test against these stores checks chronozarr against a second reading of the format,
including zarr-python's JSON (key order, `storage_transformers`, its consolidated metadata).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import zarr
from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec

import expected as ex

CRS = "EPSG:32631"
TIMES = np.array(
    ["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-15", "2020-05-01", "2020-06-01", "2020-07-01"], dtype="datetime64[ms]"
)
COMPRESSORS = {
    "zstd": lambda: ZstdCodec(level=3, checksum=True),
    "blosc": lambda: BloscCodec(cname="lz4", shuffle="shuffle", clevel=5),
    "gzip": lambda: GzipCodec(level=6),
}


@dataclass(frozen=True)
class Layout:
    """What the other writer chose; every field is a choice the spec leaves open."""

    n_time: int = 5
    n_band: int = 2
    height: int = 40
    width: int = 36
    cs: int = 16
    dtype: str = "uint16"
    nodata: int | float | None = 0
    anchor_interval: int | None = None  # star-delta when set
    shard_time: int | None = None
    shard_bytes: bool = True
    index_location: str = "end"
    codec: str = "zstd"
    mask: bool = False
    coverage: bool = False
    consolidated: bool = True
    pixels_per_tile: bool = False
    extras: bool = False  # unknown attributes and an unknown array


Levels = list[tuple[np.ndarray, "np.ndarray | None", "np.ndarray | None"]]


def build(path: Path, layout: Layout = Layout(), seed: int = 0) -> Levels:
    """Write the store; returns the true (data, mask, coverage) of every level."""
    rng = np.random.default_rng(seed)
    n_time, n_band, h, w = layout.n_time, layout.n_band, layout.height, layout.width
    if np.dtype(layout.dtype).kind == "f":
        data = rng.normal(0.3, 0.1, size=(n_time, n_band, h, w)).astype(layout.dtype)
    else:
        data = rng.integers(1, 3000, size=(n_time, n_band, h, w), endpoint=True).astype(layout.dtype)
    if layout.nodata is not None:
        data[0, :, :3, :3] = layout.nodata
    mask = (rng.random((n_time, h, w)) > 0.1).astype("uint8") if layout.mask else None
    coverage = rng.integers(0, 4, size=(n_time, h, w)).astype("uint8") if layout.coverage else None
    levels = ex.pyramid(data, mask, coverage, layout.nodata, ex.level_count(h, w, layout.cs))
    references = ex.references_for(n_time, layout.anchor_interval) if layout.anchor_interval else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr-python's notice that consolidated metadata is not in the v3 spec
        root = zarr.open_group(path, mode="w", zarr_format=3)
        mirror = [_level(root, k, values, layout, references) for k, values in enumerate(levels)]
        _volatility(root, ex.volatility(data, references or ex.references_for(n_time, 6), layout.cs))
        if layout.extras:
            _array(root.require_group("0"), "thumbnail", np.arange(3, dtype="float32"), ["n"], layout)
        root.attrs.update(_root_attributes(path, layout, references, mirror))
        if layout.consolidated:
            zarr.consolidate_metadata(path)
    return levels


def _level(root: zarr.Group, k: int, values: tuple, layout: Layout, references: dict[int, int]) -> dict[str, Any]:
    data, mask, coverage = values
    res = 10.0 * 2**k
    transform = [res, 0.0, 600000.0, 0.0, -res, 4000000.0]
    group = root.create_group(str(k))
    group.attrs.update({"crs": CRS, "transform": transform, "resolution": res})
    stored = data.copy()
    for t, anchor in references.items():
        stored[t] = ex.modular_residual(data[t], data[anchor])
    attrs = {} if layout.nodata is None else {"nodata": layout.nodata}
    fill = 0 if layout.nodata is None else layout.nodata
    _array(group, "data", stored, ["time", "band", "y", "x"], layout, attrs, fill, chunked=True)
    for name, plane in (("mask", mask), ("coverage", coverage)):
        if plane is not None:
            _array(group, name, plane, ["time", "y", "x"], layout, chunked=True)
    time = _array(group, "time", TIMES[: layout.n_time].astype(np.int64), ["time"], layout)
    time.attrs.update(units="milliseconds since 1970-01-01T00:00:00", calendar="proleptic_gregorian")
    _array(group, "band", np.array([f"B{i}" for i in range(layout.n_band)]), ["band"], layout)
    h, w = data.shape[-2:]
    _array(group, "y", transform[5] + (np.arange(h) + 0.5) * transform[4], ["y"], layout)
    _array(group, "x", transform[2] + (np.arange(w) + 0.5) * transform[0], ["x"], layout)
    grid = [math.ceil(h / layout.cs), math.ceil(w / layout.cs)]
    return {"path": str(k), "resolution": res, "transform": transform, "shape": list(data.shape), "grid": grid}


def _array(
    group: zarr.Group, name: str, values: np.ndarray, dims: list[str], layout: Layout,
    attrs: dict[str, Any] | None = None, fill: Any = 0, chunked: bool = False,
) -> zarr.Array:
    """One array with dimension_names and _ARRAY_DIMENSIONS; data planes are chunked per spec 2.1."""
    options: dict[str, Any] = {"chunks": values.shape}
    if chunked:
        cs = layout.cs
        lead = (1, values.shape[1]) if values.ndim == 4 else (1,)
        options = {"chunks": (*lead, cs, cs), "compressors": [COMPRESSORS[layout.codec]()]}
        if layout.shard_time:
            shape = (layout.shard_time, *lead[1:], cs, cs)
            options["shards"] = {"shape": shape, "index_location": layout.index_location}
    array = group.create_array(
        name, shape=values.shape, dtype=values.dtype if values.dtype.kind != "U" else str, fill_value=fill,
        dimension_names=dims, attributes={"_ARRAY_DIMENSIONS": dims, **(attrs or {})}, **options,
    )
    array[...] = values
    return array


def _volatility(root: zarr.Group, values: np.ndarray) -> None:
    array = root.create_array(
        "volatility", shape=values.shape, chunks=values.shape, dtype="float32", fill_value=0.0,
        dimension_names=["row", "col"], attributes={"_ARRAY_DIMENSIONS": ["row", "col"]},
    )
    array[...] = values


def _root_attributes(path: Path, layout: Layout, references: dict[int, int], mirror: list[dict[str, Any]]) -> dict[str, Any]:
    temporal: dict[str, Any] = {"encoding": "none"}
    if layout.anchor_interval:
        temporal = {
            "encoding": "star-delta",
            "anchor_interval": layout.anchor_interval,
            "anchor_indices": ex.anchors_for(layout.n_time, layout.anchor_interval),
            "delta_reference": {str(t): a for t, a in references.items()},
        }
    names = [f"B{i}" for i in range(layout.n_band)]
    block: dict[str, Any] = {
        "spec_version": "0.2.3",
        "variable": "data",
        "times": [f"{t}Z" for t in TIMES[: layout.n_time]],
        "bands": [{"name": n, "scale": 0.0001, "offset": 0.0} for n in names],
        "band_names": names,
        "nodata": layout.nodata,
        "crs": CRS,
        "temporal": temporal,
        "volatility_path": "volatility",
        "levels": mirror,
    }
    if layout.mask:
        block["mask_variable"] = "mask"
    if layout.coverage:
        block["coverage_variable"] = "coverage"
    if layout.shard_time and layout.shard_bytes:
        block["shard_bytes"] = {m["path"]: _shard_lengths(path / m["path"] / "data" / "c") for m in mirror}
    datasets = [{"path": m["path"], "crs": CRS} for m in mirror]
    if layout.pixels_per_tile:
        datasets = [{**d, "pixels_per_tile": layout.cs} for d in datasets]
    attrs = {
        "multiscales": [{"datasets": datasets, "type": "reduce", "metadata": {"method": "block_mean", "version": "other 1.0", "args": []}}],
        "chronozarr": block,
    }
    if layout.extras:
        block["x_vendor"] = {"note": "unknown to chronozarr"}
        attrs["other_convention"] = {"version": 1}
    return attrs


def _shard_lengths(base: Path) -> dict[str, int]:
    """{"t/r/c": bytes} of every data shard object zarr-python wrote (it omits all-fill shards)."""
    out = {}
    for shard in base.rglob("*"):
        if shard.is_file():
            ts, _, row, col = shard.relative_to(base).parts
            out[f"{ts}/{row}/{col}"] = shard.stat().st_size
    return out


def rewrite_documents(path: Path, change: Callable[[Any], Any]) -> None:
    """Every zarr.json through `change`, written back with other whitespace and separators."""
    for doc in Path(path).rglob("zarr.json"):
        value = change(json.loads(doc.read_text()))
        doc.write_text(json.dumps(value, indent="\t", separators=(" ,", " : ")) + "\n\n")


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


def integral_floats_as_ints(value: Any) -> Any:
    """10.0 written as 10, as JSON writers that do not keep float types do."""
    if isinstance(value, dict):
        return {k: integral_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [integral_floats_as_ints(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# The layouts both readers are tested on (tests/read/test_foreign.py, js/test/foreign.py):
# every choice above that the spec leaves to the writer, one at a time.
LAYOUTS = {
    "zstd_consolidated": Layout(),
    "not_consolidated": Layout(consolidated=False),
    "blosc_lz4_shuffle": Layout(codec="blosc"),
    "gzip": Layout(codec="gzip"),
    "chunk_256": Layout(cs=256, height=300, width=280, n_time=3),
    "shard_time_not_dividing": Layout(shard_time=2),
    "shard_time_without_shard_bytes": Layout(shard_time=2, shard_bytes=False),
    "shard_time_above_n_time": Layout(shard_time=7, codec="blosc"),
    "index_at_start": Layout(shard_time=2, index_location="start", shard_bytes=False),
    "star_delta_3": Layout(anchor_interval=3, n_time=7),
    "star_delta_3_sharded": Layout(anchor_interval=3, n_time=7, shard_time=2, codec="gzip"),
    "mask_without_coverage": Layout(mask=True),
    "mask_and_coverage_sharded": Layout(mask=True, coverage=True, shard_time=3),
    "unknown_attributes_and_array": Layout(extras=True),
    "pixels_per_tile": Layout(pixels_per_tile=True),
    "float32_no_nodata": Layout(dtype="float32", nodata=None),
    "int16_blosc": Layout(dtype="int16", nodata=None, codec="blosc"),
    "uint8_star_delta": Layout(dtype="uint8", anchor_interval=2),
}
REWRITES = {"reversed_keys": reversed_keys, "integral_floats_as_ints": integral_floats_as_ints}
