"""An existing store as append sees it, and the checks a new batch must pass against it (spec 14).

Everything here only reads: the store is opened, its documents parsed, and the input compared
field by field, before append stages a single object.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from ..crs import find_crs
from ..errors import InputError, StoreError
from ..format.array_doc import ArrayDocument, object_key
from ..format.codecs import CodecSpec
from ..format.geometry import Level, Transform
from ..format.metadata import Band
from ..format.root_block import VOLATILITY_PATH, RootBlock
from ..format.temporal import NOMINAL_ANCHOR_INTERVAL, STAR_DELTA, anchor_indices, nearest_references
from ..format.times import iso_list
from ..format.zarrjson import parse_json
from ..read.decode import decode_chunk
from ..read.metadata import DatasetMetadata, load
from ..store import not_a_directory, open_object_store
from .output import Output
from .series import Series, prepare


@dataclass(frozen=True)
class ExistingDataset:
    """The parsed state of a store before an append: its root document, levels and layout."""

    output: Output
    document: Mapping[str, Any]
    meta: DatasetMetadata
    levels: tuple[Level, ...]
    codec: CodecSpec
    shard_time: int | None

    @property
    def n_time(self) -> int:
        return self.meta.levels[0].shape[0]

    @property
    def block(self) -> RootBlock:
        return self.meta.block

    @property
    def times_ms(self) -> np.ndarray:
        return self.meta.times.astype("datetime64[ms]").astype(np.int64)

    @property
    def plane_variables(self) -> list[str]:
        return [n for n, v in (("mask", self.meta.mask_variable), ("coverage", self.meta.coverage_variable)) if v]

    def node(self, key: str) -> dict[str, Any]:
        """A copy of a node's zarr.json: its own document when it has one, else the consolidated copy."""
        data = self.output.get(f"{key}/zarr.json")
        if data is not None:
            return _parsed(data, f"{self.output.describe()}/{key}/zarr.json")
        consolidated = self.document.get("consolidated_metadata", {}).get("metadata", {})
        if key not in consolidated:
            raise StoreError(f"{self.output.describe()}/{key}/zarr.json is missing")
        return copy.deepcopy(consolidated[key])

    def array(self, key: str) -> ArrayDocument:
        """The array document of node `key`, parsed by the model: what append grows and rewrites."""
        return ArrayDocument.from_json(key, self.node(key))

    def volatility(self) -> tuple[np.ndarray, CodecSpec]:
        """The stored volatility values and the codec their chunk uses."""
        path = self.block.volatility_path or VOLATILITY_PATH
        array = self.array(path)
        key = object_key(path, (0, 0))
        data = self.output.get(key)
        where = f"{self.output.describe()}/{key}"
        if data is None:
            raise StoreError(f"{where} is missing: append updates the volatility array (spec 5), so it must exist")
        values = decode_chunk(array, data, where)[: array.shape[0], : array.shape[1]]
        assert array.codec is not None
        return np.asarray(values, dtype=np.float32), array.codec

    def old_references(self) -> tuple[int, dict[int, int]]:
        """(anchor interval, references) already recorded, or under none the nominal schedule
        volatility used for them (spec 5: interval 6; the encoder's default)."""
        temporal = self.meta.temporal
        if temporal.encoding == STAR_DELTA:
            assert temporal.anchor_interval is not None
            expected = anchor_indices(self.n_time, temporal.anchor_interval)
            if list(temporal.anchor_indices) != expected:
                raise StoreError(
                    f"chronozarr.temporal.anchor_indices is {list(temporal.anchor_indices)}, not the schedule "
                    f"{expected} of anchor_interval {temporal.anchor_interval}; append extends only that schedule"
                )
            return temporal.anchor_interval, dict(temporal.delta_reference)
        interval = NOMINAL_ANCHOR_INTERVAL
        return interval, nearest_references(range(self.n_time), anchor_indices(self.n_time, interval))


def open_existing(output: Output, source_options: Mapping[str, Any] | None = None) -> ExistingDataset:
    """Open the store at `output` for an append; raises StoreError when it is not one."""
    if output.local_root is not None and not output.local_root.is_dir():
        raise StoreError(f"no store at {str(output.local_root)!r}: {not_a_directory(output.local_root)}")
    meta = load(open_object_store(output.location, **dict(source_options or {})))
    if meta.history_problem is not None:
        raise StoreError(f"{output.describe()}: append grows the history array, and its declaration is unusable: {meta.history_problem}")
    document = _parsed(output.get("zarr.json") or b"{}", f"{output.describe()}/zarr.json")
    data = meta.levels[0].data_array
    if data.codec is None:
        raise StoreError(f"{output.describe()}: the data array has no compression codec chronozarr writes")
    shard_time = data.shard_shape[0] if data.shard_shape is not None else None
    levels = tuple(Level(m.index, m.height, m.width, m.chunk_size, _transform(m.transform)) for m in meta.levels)
    return ExistingDataset(output, document, meta, levels, data.codec, shard_time)


def _parsed(raw: bytes, where: str) -> Any:
    """A document read through the one bounded JSON parser, its refusal naming the object."""
    try:
        return parse_json(raw)
    except ValueError as exc:
        raise StoreError(f"{where} {exc}") from None


def _transform(values: Sequence[float]) -> Transform:
    a, b, c, d, e, f = (float(v) for v in values)
    return (a, b, c, d, e, f)


def prepare_batch(
    store: ExistingDataset,
    da: xr.DataArray,
    *,
    crs: Any,
    nodata: Any,
    mask: Any,
    coverage: Any,
    bands: Sequence[Band | dict[str, Any] | str] | None = None,
) -> Series:
    """Check the new batch against the store; every mismatch names the field and both values."""
    if not isinstance(da, xr.DataArray):
        raise InputError(f"append takes an xarray.DataArray with dims (time, band, y, x), got {type(da).__name__}")
    store_crs = store.meta.crs
    if crs is None and find_crs(da.to_dataset(name="__data__"), ["__data__"], geographic=False) is None:
        crs = store_crs  # an input without a CRS is taken to be on the store's grid
    declared = da.attrs.get("nodata", "store") if isinstance(nodata, str) and nodata == "store" else nodata
    store_nodata = store.meta.nodata
    if not (isinstance(declared, str) and declared == "store") and not _same_number(declared, store_nodata):
        _mismatch("nodata", store_nodata, declared)
    series = prepare(da, crs=crs, nodata=store_nodata, mask=mask, coverage=coverage)
    check_batch(store, series)
    if bands is not None:
        _check_packing(store, bands)
    return series


def _check_packing(store: ExistingDataset, bands: Sequence[Band | dict[str, Any] | str]) -> None:
    """The batch's band scales and offsets are the store's: the new stored values decode alike."""
    try:
        given = [b if isinstance(b, Band) else Band.from_dict(b) for b in bands]
    except (TypeError, ValueError) as exc:
        raise InputError(str(exc)) from None
    packing = [(b.name, b.scale, b.offset) for b in store.meta.bands]
    if len(given) != len(packing) or not all(
        name == b.name and math.isclose(scale, b.scale, rel_tol=1e-6) and math.isclose(offset, b.offset, rel_tol=1e-6, abs_tol=1e-12)
        for (name, scale, offset), b in zip(packing, given, strict=True)
    ):
        _mismatch("band (name, scale, offset)", packing, [(b.name, b.scale, b.offset) for b in given])


def check_batch(store: ExistingDataset, series: Series) -> None:
    """Grid, transform, bands, dtype, CRS, mask and coverage presence, and times after the last."""
    level0 = store.levels[0]
    _, n_band, height, width = series.shape
    if series.dtype != store.meta.dtype:
        _mismatch("dtype", store.meta.dtype.name, series.dtype.name)
    if (height, width) != (level0.height, level0.width):
        _mismatch("grid (height, width)", (level0.height, level0.width), (height, width))
    tolerance = 1e-6 * level0.resolution
    if any(abs(a - b) > tolerance for a, b in zip(series.transform, level0.transform, strict=True)):
        _mismatch("transform", list(level0.transform), list(series.transform))
    store_bands = [b.name for b in store.meta.bands]
    if n_band != len(store_bands):
        _mismatch("band count", len(store_bands), n_band)
    if "band" in series.data.coords and series.band_labels != store_bands:
        _mismatch("bands", store_bands, series.band_labels)
    if store.meta.crs is not None and series.crs != store.meta.crs:
        _mismatch("crs", store.meta.crs, series.crs)
    for name, present, given in (
        ("mask", store.meta.mask_variable is not None, series.has_mask),
        ("coverage", store.meta.coverage_variable is not None, series.coverage is not None),
    ):
        if present != given:
            _mismatch(name, "present" if present else "absent", "present" if given else "absent")
    last = int(store.times_ms[-1])
    first = int(series.times_ms[0])
    if first <= last:
        raise InputError(
            f"time: new timesteps must be strictly after the store's last one; the store ends at "
            f"{iso_list([last])[0]}, the input starts at {iso_list([first])[0]}"
        )


def _same_number(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def _mismatch(field: str, store_value: Any, input_value: Any) -> None:
    raise InputError(
        f"{field} differs from the store's: the store has {store_value}, the input has {input_value}. "
        "An append adds timesteps to the same grid, bands, dtype, CRS and nodata (spec 14)"
    )
