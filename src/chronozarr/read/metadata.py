"""Opening a store: everything from the root zarr.json when it can, per-node documents when not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import BlockError, StoreError
from ..format.array_doc import ArrayDocument, object_key
from ..format.geometry import Level, next_level_extent
from ..format.metadata import DTYPES, Band, LevelMirror, Temporal
from ..format.root_block import RootBlock
from ..format.temporal import STAR_DELTA, schedule_problems, star_delta_allowed
from ..format.times import from_iso, iso_list
from ..format.zarrjson import parse_json
from ..store import CountingStore, ObjectStore, counted
from .decode import decode_chunk
from .history import DatasetHistory, usable_history


@dataclass(frozen=True)
class DatasetMetadata:
    """The parsed root and levels of a store: the root block as parsed (format/root_block), the
    levels as found in the arrays, and what is derived from both."""

    root: Mapping[str, Any]
    block: RootBlock
    times: np.ndarray
    times_iso: tuple[str, ...]  # the block's times, or the time coordinate's for a store without them
    levels: tuple[Level, ...]
    requests_to_open: int
    history: DatasetHistory | None = None  # the time-major history array, when declared and usable
    history_problem: str | None = None  # why a declared history array is not used

    @property
    def attrs(self) -> Mapping[str, Any]:
        return self.root.get("attributes", {})

    @property
    def dtype(self) -> np.dtype:
        return self.levels[0].data_array.dtype

    @property
    def spec_version(self) -> str:
        return self.block.spec_version

    @property
    def variable(self) -> str:
        return self.block.variable

    @property
    def bands(self) -> tuple[Band, ...]:
        return self.block.bands

    @property
    def nodata(self) -> float | int | None:
        return self.block.nodata

    @property
    def crs(self) -> str | None:
        return self.block.crs

    @property
    def temporal(self) -> Temporal:
        return self.block.temporal

    @property
    def mask_variable(self) -> str | None:
        return self.block.mask_variable

    @property
    def coverage_variable(self) -> str | None:
        return self.block.coverage_variable

    @property
    def shard_bytes(self) -> Mapping[str, Mapping[str, int]]:
        return self.block.shard_bytes or {}


def read_json(source: ObjectStore, key: str) -> Any | None:
    raw = source.get(key)
    if raw is None:
        return None
    try:
        return parse_json(raw)
    except ValueError as exc:
        raise StoreError(f"{source.describe(key)} {exc}") from None


def load(source: ObjectStore | CountingStore) -> DatasetMetadata:
    """Parse the root and every level; raises StoreError naming anything unsupported."""
    source = counted(source)  # requests_to_open is counted whatever the store
    before = source.stats.requests + source.stats.missing
    root = read_json(source, "zarr.json")
    if root is None:
        raise StoreError(
            f"no zarr.json at {source.describe('zarr.json')}: not a chronozarr store, or an upload that has not "
            "finished (the root zarr.json is written last)"
        )
    if not isinstance(root, Mapping) or not isinstance(root.get("attributes"), Mapping):
        raise StoreError(f"{source.describe('zarr.json')} is not a Zarr v3 group document")
    block = root["attributes"].get("chronozarr")
    if not isinstance(block, Mapping):
        raise StoreError(f"{source.describe('zarr.json')} has no 'chronozarr' attribute: not a chronozarr store")
    try:
        return _load(source, root, block, before)
    except StoreError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
        raise StoreError(f"{source.describe('zarr.json')}: malformed chronozarr metadata ({type(exc).__name__}: {exc})") from None


def _load(source: CountingStore, root: Mapping[str, Any], raw: Mapping[str, Any], before: int) -> DatasetMetadata:
    try:
        block = RootBlock.from_dict(raw)
    except BlockError as exc:
        raise StoreError(str(exc)) from None
    variable, temporal = block.variable, block.temporal
    consolidated = _consolidated(root)
    mirrors = block.levels
    paths = [m.path for m in mirrors] if mirrors else [str(d["path"]) for d in root["attributes"]["multiscales"][0]["datasets"]]
    if not paths:
        raise StoreError("the store lists no levels")
    mask_variable, coverage_variable = block.mask_variable, block.coverage_variable

    def node(key: str) -> Any:
        doc = consolidated.get(key) if consolidated is not None else None
        if not isinstance(doc, Mapping):  # absent or unusable in the consolidated copy: the node's own
            doc = read_json(source, f"{key}/zarr.json")
            if doc is None:
                raise StoreError(f"{source.describe(key + '/zarr.json')} is missing")
        return doc

    levels: list[Level] = []
    for i, path in enumerate(paths):
        if path != str(i):
            raise StoreError(f"levels must be named 0, 1, ... in order; level {i} is {path!r}")
        if mirrors:
            transform, resolution = tuple(mirrors[i].transform), mirrors[i].resolution
        else:
            attrs = node(path).get("attributes", {})
            transform, resolution = tuple(float(v) for v in attrs["transform"]), float(attrs["resolution"])
        if len(transform) != 6:
            raise StoreError(f"level {path} transform must have 6 numbers, got {list(transform)}")
        data = ArrayDocument.from_json(f"{path}/{variable}", node(f"{path}/{variable}"))
        if data.dtype.name not in DTYPES or len(data.shape) != 4:
            raise StoreError(f"{path}/{variable}: unsupported data array (data_type {data.dtype}, {len(data.shape)} dims)")
        mask = ArrayDocument.from_json(f"{path}/{mask_variable}", node(f"{path}/{mask_variable}")) if mask_variable else None
        coverage = ArrayDocument.from_json(f"{path}/{coverage_variable}", node(f"{path}/{coverage_variable}")) if coverage_variable else None
        _check_chunking(data, mask, coverage, levels[0].data_array if levels else data)
        levels.append(Level.of_arrays(i, transform, resolution, data, mask, coverage))
        _check_level_shape(levels, mirrors)
    if temporal.encoding == STAR_DELTA and not star_delta_allowed(levels[0].data_array.dtype.name):
        raise StoreError(f"star-delta store with data_type {levels[0].data_array.dtype}: star-delta is uint8/uint16 only")
    if block.times is not None:
        times, times_iso = from_iso(block.times), block.times
    else:
        times = _time_array(source, node, paths[0])
        times_iso = tuple(iso_list(times.astype("datetime64[ms]").astype(np.int64)))
    bands = block.bands
    n_time, n_band = levels[0].shape[:2]
    if len(times) != n_time:  # first: the schedule is checked timestep by timestep
        raise StoreError(f"chronozarr.times lists {len(times)} timesteps but the data array has {n_time}")
    _check_schedule(temporal, n_time)
    if len(bands) != n_band:
        raise StoreError(f"chronozarr.bands lists {len(bands)} bands but the data array has {n_band}")
    coarser = [(level.data_array, level.mask) for level in levels[1:]]
    history, history_problem = usable_history(block, node, levels[0].data_array, levels[0].mask, coarser)
    return DatasetMetadata(
        root=root,
        block=block,
        times=times,
        times_iso=times_iso,
        levels=tuple(levels),
        requests_to_open=source.stats.requests + source.stats.missing - before,
        history=history,
        history_problem=history_problem,
    )


def _check_chunking(data: ArrayDocument, mask: ArrayDocument | None, coverage: ArrayDocument | None, level0: ArrayDocument) -> None:
    """The chunk layout of spec 2.1, 2.4 and 7.1, which every chunk key and cell slice relies on.

    A store chunked otherwise would read as the wrong pixels, bands or timesteps, so it is refused
    by name. cs itself is taken as found (spec 2.1: readers do not assume or reject a value).
    """
    n_time, n_band = data.shape[:2]
    cs = data.chunk_shape[2]
    if data.shape[:2] != level0.shape[:2]:
        raise StoreError(f"{data.path}: shape {list(data.shape)} has n_time, n_band {list(data.shape[:2])}; level 0 has {list(level0.shape[:2])}")
    _expect_chunks(data, (1, n_band, cs, cs), "2.1", "[1, n_band, cs, cs]")
    for plane in (p for p in (mask, coverage) if p is not None):
        if plane.shape != (n_time, *data.shape[2:]):
            raise StoreError(f"{plane.path}: shape {list(plane.shape)} must be [n_time, H, W] = {[n_time, *data.shape[2:]]} (spec 2.4)")
        _expect_chunks(plane, (1, cs, cs), "2.4", "[1, cs, cs] with the data array's cs")


def _check_level_shape(levels: list[Level], mirrors: tuple[LevelMirror, ...] | None) -> None:
    """The last level holds pixels, agrees with its mirror (spec 3.7) and halves the level below
    (spec 6): a shape that claims more than the store holds would make every read cost the claim."""
    level = levels[-1]
    fix = "the array document or chronozarr.levels is damaged; restore it from the store's writer or re-encode"
    if 0 in level.shape:
        raise StoreError(f"{level.data_array.path}: shape {list(level.shape)} holds no pixels (spec 2.1): {fix}")
    mirror = mirrors[level.index] if mirrors else None
    if mirror is not None and (tuple(mirror.shape) != level.shape or tuple(mirror.grid) != level.grid):
        raise StoreError(
            f"{level.data_array.path}: shape {list(level.shape)} disagrees with chronozarr.levels[{level.index}] "
            f"(shape {list(mirror.shape)}, grid {list(mirror.grid)}; spec 3.7): {fix}"
        )
    below = levels[-2] if len(levels) > 1 else None
    if below is not None and (level.height, level.width) != next_level_extent(below.height, below.width):
        expected = next_level_extent(below.height, below.width)
        raise StoreError(
            f"{level.data_array.path}: level {level.index} is {level.height} x {level.width} pixels, level {below.index} "
            f"{below.height} x {below.width}; it must be ceil(H/2) x ceil(W/2) = {expected[0]} x {expected[1]} (spec 6): {fix}"
        )


def _expect_chunks(array: ArrayDocument, inner: tuple[int, ...], section: str, rule: str) -> None:
    if array.chunk_shape != inner:
        raise StoreError(
            f"{array.path}: chunk shape {list(array.chunk_shape)} is not {rule} = {list(inner)} (spec {section}); "
            "this reader cannot place its chunks"
        )
    if array.shard_shape is not None and array.shard_shape[1:] != inner[1:]:
        raise StoreError(
            f"{array.path}: shard shape {list(array.shard_shape)} must be [shard_time, {', '.join(map(str, inner[1:]))}] "
            "(spec 7.1): one shard holds one cell"
        )


def _check_schedule(temporal: Temporal, n_time: int) -> None:
    """Anchors on the schedule, every delta referencing an anchor nearer than anchor_interval and
    no anchor referencing anything (spec 4.1, 4.2): a timestep read through anything else would hand
    back its residuals as values, and a map that breaks the rules is not the one its writer wrote."""
    if temporal.encoding != STAR_DELTA:
        return
    references = {t: a for t, a in temporal.delta_reference.items() if t < n_time}
    for section, field, message in schedule_problems(n_time, temporal.anchor_interval, temporal.anchor_indices, references):
        raise StoreError(
            f"chronozarr.temporal.{field} {message} (spec {section}): the store cannot be decoded; "
            "re-encode it, or restore the temporal block its writer wrote"
        )


def _consolidated(root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    meta = root.get("consolidated_metadata")
    if isinstance(meta, Mapping) and isinstance(meta.get("metadata"), Mapping):
        return meta["metadata"]
    return None


def _time_array(source: ObjectStore, node: Any, level_path: str) -> np.ndarray:
    """Timestamps from the time coordinate, for stores without the times mirror."""
    array = ArrayDocument.from_json(f"{level_path}/time", node(f"{level_path}/time"))
    key = object_key(f"{level_path}/time", (0,))
    raw = source.get(key)
    if raw is None:
        raise StoreError(f"{source.describe(key)} is missing")
    return decode_chunk(array, raw, source.describe(key))[: array.shape[0]].astype("datetime64[ms]")
