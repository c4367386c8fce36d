"""Coordinate arrays, volatility and every `zarr.json`, written after the chunks (spec 2, 3, 9).

Each level also carries a CF grid mapping: a 0-d `spatial_ref` array whose attributes describe
the store's CRS as pyproj writes them (`crs_wkt`, `grid_mapping_name`, ...), named by the
`grid_mapping` attribute of the data, mask and coverage arrays. rioxarray, odc-geo and
titiler.xarray look there for the CRS; chronozarr's readers do not need it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numcodecs
import numpy as np

from ..format.array_doc import ArrayDocument, object_key
from ..format.codecs import CodecSpec
from ..format.geometry import Level
from ..format.history import HistoryLayout
from ..format.metadata import GRID_MAPPING, GRID_MAPPING_REFS, SPEC_VERSION, Band, LevelMirror, Provenance, Temporal, crs_code, grid_mapping_attrs, multiscales
from ..format.root_block import COVERAGE, MASK, VOLATILITY_PATH, RootBlock
from ..format.times import TIME_CALENDAR, TIME_UNITS, iso_list
from ..format.zarrjson import group_json, with_consolidated
from .objects import ObjectWriter

COORD_CODEC = CodecSpec("zstd", 5)


def coordinate_chunk(values: np.ndarray, codec: CodecSpec = COORD_CODEC) -> bytes:
    """The stored bytes of a single-chunk coordinate array (vlen-utf8 strings or little-endian numbers)."""
    if values.dtype.kind in "OU":
        raw = numcodecs.VLenUTF8().encode(np.asarray(values, dtype=object))
    else:
        raw = values.astype(values.dtype.newbyteorder("<"))
    return codec.encode(raw, values.dtype)


def _coordinate(writer: ObjectWriter, key: str, values: np.ndarray, dims: Sequence[str], attrs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write a single-chunk coordinate array's chunk; returns its zarr.json document."""
    dtype, fill = ("string", "") if values.dtype.kind in "OU" else (values.dtype.name, 0)
    writer.put(object_key(key, [0] * values.ndim), coordinate_chunk(values))
    return ArrayDocument.create(
        shape=values.shape,
        dtype=dtype,
        chunk_shape=values.shape,
        codec=COORD_CODEC,
        dimension_names=dims,
        fill_value=fill,
        attributes=attrs,
    ).to_json()


def data_array_attrs(level: Level, crs: str, nodata: float | None) -> dict[str, Any]:
    """Attributes of a level's data array: nodata and the proj/spatial conventions (spec 2.1, 3.3)."""
    attrs: dict[str, Any] = {}
    if nodata is not None:
        attrs["nodata"] = nodata
    attrs["proj:code"] = crs
    attrs["spatial:dimensions"] = ["y", "x"]
    attrs["spatial:shape"] = [level.height, level.width]
    attrs["spatial:transform"] = [float(v) for v in level.transform]
    attrs["spatial:bbox"] = [float(v) for v in level.bbox()]
    code = crs_code(crs)
    if code is not None:
        attrs["_CRS"] = {"url": f"http://www.opengis.net/def/crs/EPSG/0/{code}"}
    attrs.update(GRID_MAPPING_REFS)
    return attrs


def grid_mapping_node(crs: str) -> dict[str, Any]:
    """A level's `spatial_ref`: a 0-d int64 array (no chunk is stored; it reads as its fill, 0)
    whose attributes are the CF grid mapping of `crs`."""
    return ArrayDocument.create(
        shape=[], dtype="int64", chunk_shape=[], codec=COORD_CODEC, dimension_names=[], fill_value=0,
        attributes=grid_mapping_attrs(crs),
    ).to_json()


def level_arrays(
    level: Level,
    *,
    variable: str,
    dtype: str,
    shape: tuple[int, int],
    codec: CodecSpec,
    nodata: float | int | None,
    plane_variables: Sequence[str],
    shard_time: int | None,
    data_attrs: dict[str, Any] | None = None,
) -> Level:
    """The level with its data and plane arrays' documents (`shape` is (n_time, n_band)): what the
    writer writes as their zarr.json, and what it reads the level back through."""
    cs = level.chunk_size
    n_time, n_band = shape
    shard = (lambda inner: [shard_time, *inner[1:]]) if shard_time is not None else (lambda inner: None)
    inner = [1, n_band, cs, cs]
    data = ArrayDocument.create(
        shape=[n_time, n_band, level.height, level.width],
        dtype=dtype,
        chunk_shape=inner,
        codec=codec,
        dimension_names=["time", "band", "y", "x"],
        fill_value=0 if nodata is None else nodata,
        attributes=data_attrs,
        shard_shape=shard(inner),
        path=f"{level.path}/{variable}",
    )
    planes = {
        name: ArrayDocument.create(
            shape=[n_time, level.height, level.width],
            dtype="uint8",
            chunk_shape=[1, cs, cs],
            codec=codec,
            dimension_names=["time", "y", "x"],
            attributes=GRID_MAPPING_REFS,
            shard_shape=shard([1, cs, cs]),
            path=f"{level.path}/{name}",
        )
        for name in plane_variables
    }
    return replace(level, data=data, mask=planes.get(MASK), coverage=planes.get(COVERAGE))


def level_nodes(
    writer: ObjectWriter,
    level: Level,
    *,
    variable: str,
    dtype: str,
    n_time: int,
    n_band: int,
    times_ms: np.ndarray,
    band_names: Sequence[str],
    codec: CodecSpec,
    crs: str,
    nodata: float | None,
    plane_variables: Sequence[str],
    shard_time: int | None,
) -> dict[str, dict[str, Any]]:
    """Write a level's coordinate chunks and return every zarr.json document of the level by key."""
    p = level.path
    nodes: dict[str, dict[str, Any]] = {}
    nodes[p] = group_json({"crs": crs, "transform": [float(v) for v in level.transform], "resolution": level.resolution})
    stored = level_arrays(
        level, variable=variable, dtype=dtype, shape=(n_time, n_band), codec=codec, nodata=nodata,
        plane_variables=plane_variables, shard_time=shard_time, data_attrs=data_array_attrs(level, crs, nodata),
    )
    for doc in (stored.data, stored.mask, stored.coverage):
        if doc is not None:
            nodes[doc.path] = doc.to_json()
    nodes[f"{p}/{GRID_MAPPING}"] = grid_mapping_node(crs)
    nodes[f"{p}/time"] = _coordinate(
        writer, f"{p}/time", np.asarray(times_ms, dtype=np.int64), ["time"], {"units": TIME_UNITS, "calendar": TIME_CALENDAR}
    )
    nodes[f"{p}/band"] = _coordinate(writer, f"{p}/band", np.array(list(band_names), dtype=object), ["band"])
    nodes[f"{p}/y"] = _coordinate(writer, f"{p}/y", np.array(level.y_centres(), dtype=np.float64), ["y"])
    nodes[f"{p}/x"] = _coordinate(writer, f"{p}/x", np.array(level.x_centres(), dtype=np.float64), ["x"])
    return nodes


def volatility_node(writer: ObjectWriter, values: np.ndarray) -> dict[str, Any]:
    """The root volatility array (spec 5): one float32 per level-0 cell, one chunk."""
    values = np.asarray(values, dtype=np.float32)
    writer.put(object_key(VOLATILITY_PATH, (0, 0)), volatility_chunk(values))
    return ArrayDocument.create(
        shape=values.shape,
        dtype="float32",
        chunk_shape=values.shape,
        codec=COORD_CODEC,
        dimension_names=["row", "col"],
        fill_value=0.0,
    ).to_json()


def volatility_chunk(values: np.ndarray, codec: CodecSpec = COORD_CODEC) -> bytes:
    """The stored bytes of the single volatility chunk."""
    values = np.asarray(values, dtype=np.float32)
    return codec.encode(values.astype("<f4"), values.dtype)


def build_root_block(
    *,
    variable: str,
    times_ms: np.ndarray,
    bands: Sequence[Band],
    nodata: float | None,
    crs: str,
    temporal: Temporal,
    levels: Sequence[LevelMirror],
    plane_variables: Sequence[str],
    provenance: Provenance | None,
    shard_bytes: dict[str, dict[str, int]] | None,
    history: HistoryLayout | None = None,
) -> RootBlock:
    """The root `chronozarr` attribute (spec 3.2) with its mirrors."""
    return RootBlock(
        spec_version=SPEC_VERSION,
        variable=variable,
        times=tuple(iso_list(times_ms)),
        bands=tuple(bands),
        band_names=tuple(b.name for b in bands),
        nodata=nodata,
        crs=crs,
        temporal=temporal,
        volatility_path=VOLATILITY_PATH,
        mask_variable=MASK if MASK in plane_variables else None,
        coverage_variable=COVERAGE if COVERAGE in plane_variables else None,
        provenance=provenance,
        levels=tuple(levels),
        shard_bytes=shard_bytes,
        history=history,
    )


def history_nodes(layout: HistoryLayout, n_time: int, levels: Sequence[Level], dtype: str, codec: CodecSpec, nodata: float | None) -> dict[str, dict[str, Any]]:
    """The history arrays' zarr.json by path, at every level with a history: the data with its
    level's shape, dtype, fill and dims and its own codec (level 0's before version 1.2), the mask
    copy like the level's mask; both chunked along time in shards (docs/format-history.md)."""
    nodes = {}
    for own in layout.every_level:
        level = levels[own.level]
        for part in own.parts:
            nodes[part.path] = ArrayDocument.create(
                shape=[n_time, *part.lead, level.height, level.width],
                dtype="uint8" if part.is_mask else dtype,
                chunk_shape=part.chunk_shape,
                codec=part.codec(layout.version, codec),
                dimension_names=part.dims,
                fill_value=0 if part.is_mask or nodata is None else nodata,
                attributes={"nodata": nodata} if nodata is not None and not part.is_mask else None,
                shard_shape=part.shard_shape,
            ).to_json()
    return nodes


def write_metadata(writer: ObjectWriter, nodes: dict[str, dict[str, Any]], root_attrs: dict[str, Any]) -> None:
    """zarr.json below the root first, the root with consolidated metadata last (spec 9)."""
    arrays = sorted(k for k, v in nodes.items() if v["node_type"] == "array")
    groups = sorted((k for k, v in nodes.items() if v["node_type"] == "group"), key=lambda k: -k.count("/"))
    for key in arrays + groups:
        writer.put_json(f"{key}/zarr.json", nodes[key])
    writer.put_json("zarr.json", with_consolidated(group_json(root_attrs), nodes))


def root_attributes(level_paths: Sequence[str], crs: str, block: RootBlock) -> dict[str, Any]:
    return {"multiscales": multiscales(level_paths, crs), "chronozarr": block.to_dict()}
