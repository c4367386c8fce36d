"""`encode`: a (time, band, y, x) array into a new chronozarr store."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..errors import InputError
from ..format.codecs import CodecSpec
from ..format.geometry import pyramid_levels
from ..format.history import HistoryLayout
from ..format.metadata import Band, LevelMirror, Provenance, Selection, Temporal
from ..format.temporal import NONE, STAR_DELTA, star_delta_allowed, volatility_value
from ..progress import StepCounts
from . import selection
from .claim import claim, discard_claim, sample_scratch
from .crashpoints import crash_points
from .distributed import active_client
from .history import history_tasks, write_history
from .layout import build_root_block, history_nodes, level_nodes, root_attributes, volatility_node, write_metadata
from .objects import ObjectCounter, ObjectWriter
from .output import Output, open_output
from .phases import write_phases
from .plan import Plan, Schedule
from .preview import EncodePreview
from .resume import ResumeLog, RunRecord, input_digest
from .series import Series, prepare
from .units import check_span, default_span
from .walk import WriteResult

ENCODING_CHOICES = ("auto", NONE, STAR_DELTA)


@dataclass(frozen=True)
class EncodeSummary:
    """What encode wrote."""

    path: Path | str
    levels: int
    encoding: str
    selection_ratio: float | None
    objects: int
    nbytes: int
    seconds: float
    history_nbytes: int | None = None  # the history array's shards, when it was written

    def __str__(self) -> str:
        ratio = f", star-delta/plain {self.selection_ratio:.3f}" if self.selection_ratio is not None else ""
        history = f" (history {self.history_nbytes / 1e6:.1f} MB)" if self.history_nbytes is not None else ""
        return (
            f"{self.path}: {self.levels} levels, encoding {self.encoding}{ratio}, "
            f"{self.objects} objects, {self.nbytes / 1e6:.1f} MB{history} in {self.seconds:.1f} s"
        )


def encode(
    da: xr.DataArray,
    path: str | os.PathLike[str],
    *,
    crs: Any = None,
    encoding: str = "auto",
    anchor_interval: int = 6,
    chunk_size: int = 512,
    shard: bool = False,
    shard_time: int | None = None,
    codec: str = "zstd",
    level: int | None = None,
    blosc_cname: str = "zstd",
    blosc_shuffle: str = "noshuffle",
    checksum: bool = False,
    nodata: Any = "default",
    mask: Any = None,
    coverage: Any = None,
    bands: Sequence[Band | dict[str, Any] | str] | None = None,
    provenance: Provenance | dict[str, Any] | None = None,
    variable: str = "data",
    max_levels: int | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    dry_run: bool = False,
    resume: bool = False,
    block_size: int | None = None,
    read_ahead: int = 2,
    storage_options: Mapping[str, Any] | None = None,
    history: bool = False,
    history_time: int | None = None,
    history_inner: int | None = None,
    step_counts: StepCounts | None = None,
) -> EncodeSummary | EncodePreview:
    """Write `da` (time, band, y, x) as a chronozarr 0.2 store at `path`, which must be new or empty.

    `nodata` defaults to 0 for uint8/uint16 and None for int16/float32. `encoding` is "auto"
    (star-delta only where a sample compresses to <= 0.85 of plain), "none" or "star-delta".
    `shard=True` groups `shard_time` timesteps (default: all) of a cell into one object.
    `progress` shows a bar (default: only on a terminal). With a dask array and an active dask.distributed client, the work
    units (time window x spatial block) run as cluster tasks.
    `path` is a directory or an s3://, gs:// or az:// prefix. `resume=True` completes an encode that was interrupted (same
    input and options). `block_size` is the cells per side of a block (a power of two; default: about 64 MB of input),
    `read_ahead` the blocks read ahead of the one being encoded; `storage_options` (endpoint, region, anonymous) open an
    object-store `path` (credentials come from the environment). `dry_run=True` checks everything and returns what would be
    written, writing nothing. `checksum=True` ends every chunk with its crc32c (docs/reliability.md). `history=True` adds the
    history array (docs/history.md) of `history_time` timesteps per block (default: n_time up to a power of two, at most 1024).
    `step_counts` are counts per timestep the bar shows (a composite's scenes read and periods written, progress.py).
    """
    started = time.perf_counter()
    output = open_output(path, storage_options)
    claim(output, resume=resume, dry_run=True)
    series = prepare(da, crs=crs, nodata=nodata, mask=mask, coverage=coverage)
    plan, band_objects, prov = _plan(
        series, output, encoding=encoding, anchor_interval=anchor_interval, chunk_size=chunk_size,
        shard=shard, shard_time=shard_time, codec=_codec(codec, level, blosc_cname, blosc_shuffle, checksum), bands=bands,
        provenance=provenance, variable=variable, max_levels=max_levels, workers=workers,
    )
    span = check_span(block_size) if block_size is not None else default_span(plan, series.spatial_chunks)
    layout = _history_layout(plan, history, history_time, history_inner)
    if dry_run:
        return EncodePreview.of(plan, series, band_objects)
    record = RunRecord(_options(plan, encoding, anchor_interval, band_objects, prov, max_levels, layout), input_digest(series), span)
    journal = ResumeLog(output, step=crash_points.step)
    claimed = claim(output, resume=resume)
    try:
        record = _start(journal, record) if claimed.started else journal.resume(record)
        plan = _select(plan, series, journal, record)
        result = write_phases(plan, series, span, journal, progress=progress, read_ahead=read_ahead, step=crash_points.step, counts=step_counts)
        written = _write_history(plan, layout, series, journal, progress)
        writer = ObjectWriter(output, ObjectCounter(), step=crash_points.step)
        _write_layout(plan, series, band_objects, prov, result, writer, (layout, written) if layout and written else None)
        journal.finish()
        if plan.sample is not None:
            plan.sample.discard()
    except InputError:
        if claimed.started:
            discard_claim(output, claimed, plan.root_members(), journal)
        raise
    return _summary(plan, result, writer, written, started)


def _summary(plan: Plan, result: WriteResult, writer: ObjectWriter, history: WriteResult | None, started: float) -> EncodeSummary:
    return EncodeSummary(
        path=plan.output.location,
        levels=len(plan.levels),
        encoding=plan.encoding,
        selection_ratio=plan.selection[1] if plan.selection else None,
        objects=result.objects + writer.counter.objects + (history.objects if history else 0),
        nbytes=result.nbytes + writer.counter.nbytes + (history.nbytes if history else 0),
        seconds=time.perf_counter() - started,
        history_nbytes=history.nbytes if history else None,
    )


def _history_layout(plan: Plan, history: bool, history_time: int | None, history_inner: int | None) -> HistoryLayout | None:
    """The history array's layout when asked for; its options alone are a mistake."""
    if not history:
        if history_time is not None or history_inner is not None:
            raise InputError("history_time and history_inner need history=True (--history)")
        return None
    try:
        return HistoryLayout.create(plan.n_time, plan.n_band, plan.chunk_size, history_time, history_inner, plan.has_mask, plan.dtype, len(plan.levels))
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _write_history(plan: Plan, layout: HistoryLayout | None, series: Series, journal: ResumeLog, progress: bool | None) -> WriteResult | None:
    """Every history shard, after every level-0 chunk is stored (the shards read them back)."""
    if layout is None:
        return None
    tasks = history_tasks(plan, layout)
    done = journal.done_units()
    return write_history(
        plan, layout, tasks, writer=ObjectWriter(plan.output, step=crash_points.step), client=active_client(series.data),
        done=done, on_done=journal.record_unit, progress=progress,
    )


def _start(journal: ResumeLog, record: RunRecord) -> RunRecord:
    journal.start(record)
    return record


def _options(
    plan: Plan, encoding: str, anchor_interval: int, bands: list[Band], provenance: Provenance | None, max_levels: int | None,
    history: HistoryLayout | None,
) -> dict[str, Any]:
    """Every option that decides the bytes of the store, as resume compares them."""
    return {
        "encoding": encoding,
        "anchor_interval": anchor_interval,
        "chunk_size": plan.chunk_size,
        "shard_time": plan.shard_time,
        "codec": plan.codec.to_json(np.dtype(plan.dtype)),
        **({"checksum": True} if plan.codec.checksum else {}),
        "nodata": plan.nodata,
        "bands": [b.to_dict() for b in bands],
        "provenance": provenance.to_dict() if provenance is not None else None,
        "variable": plan.variable,
        "max_levels": max_levels,
        "mask": plan.has_mask,
        "coverage": plan.has_coverage,
        **({"history": history.to_dict()} if history is not None else {}),
    }


def _codec(name: str, level: int | None, cname: str, shuffle: str, checksum: bool) -> CodecSpec:
    blosc = {"cname": cname, "shuffle": shuffle} if name == "blosc" else {}
    try:
        return CodecSpec.create(name, level, checksum=checksum, **blosc)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _plan(
    series: Series,
    output: Output,
    *,
    encoding: str,
    anchor_interval: int,
    chunk_size: int,
    shard: bool,
    shard_time: int | None,
    codec: CodecSpec,
    bands: Sequence[Band | dict[str, Any] | str] | None,
    provenance: Provenance | dict[str, Any] | None,
    variable: str,
    max_levels: int | None,
    workers: int | None,
) -> tuple[Plan, list[Band], Provenance | None]:
    """Check every option against the input and fix the layout; nothing is written yet."""
    n_time, n_band, height, width = series.shape
    dtype = series.dtype.name
    if encoding not in ENCODING_CHOICES:
        raise InputError(f"encoding must be one of {', '.join(ENCODING_CHOICES)}, got {encoding!r}")
    if encoding == STAR_DELTA and not star_delta_allowed(dtype):
        raise InputError(
            f"star-delta applies to uint8 and uint16 only (spec 4.1); this array is {dtype}. "
            "Use encoding='none' (or 'auto', which picks none for it)"
        )
    if isinstance(anchor_interval, bool) or not isinstance(anchor_interval, int) or anchor_interval < 1:
        raise InputError(f"anchor_interval must be an integer >= 1, got {anchor_interval!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0 or chunk_size % 2:
        raise InputError(f"chunk_size must be a positive even integer (256 or 512 recommended), got {chunk_size!r}")
    if shard_time is not None:
        if not shard:
            raise InputError("shard_time needs shard=True (the default layout is unsharded)")
        if isinstance(shard_time, bool) or not isinstance(shard_time, int) or shard_time < 1:
            raise InputError(f"shard_time must be an integer >= 1, got {shard_time!r}")
    if not variable or "/" in variable or variable in ("time", "band", "x", "y", "mask", "coverage"):
        raise InputError(f"variable name {variable!r} is empty, has a '/' or clashes with another array")
    if max_levels is not None and max_levels < 1:
        raise InputError(f"max_levels must be >= 1, got {max_levels}")
    band_objects = _bands(bands, series, dtype)
    prov = None
    if provenance is not None:
        try:
            prov = Provenance.from_dict(provenance)
        except (TypeError, ValueError) as exc:
            raise InputError(str(exc)) from None
    levels = pyramid_levels(height, width, chunk_size, series.transform, max_levels)
    plan = Plan(
        output=output,
        variable=variable,
        dtype=dtype,
        shape=series.shape,
        levels=tuple(levels),
        codec=codec,
        nodata=series.nodata,
        encoding=selection.choose(encoding, dtype),
        schedule=Schedule.nearest(n_time, anchor_interval),
        shard_time=(shard_time or n_time) if shard else None,
        has_mask=series.has_mask,
        has_coverage=series.coverage is not None,
        workers=workers or os.cpu_count() or 2,
    )
    return plan, band_objects, prov


def _bands(bands: Sequence[Band | dict[str, Any] | str] | None, series: Series, dtype: str) -> list[Band]:
    n_band = series.shape[1]
    try:
        if bands is None:
            objects = [Band.infer(name, dtype) for name in series.band_labels]
        else:
            objects = [b if isinstance(b, Band) else Band.from_dict(b) for b in bands]
    except (TypeError, ValueError) as exc:
        raise InputError(str(exc)) from None
    if len(objects) != n_band:
        raise InputError(f"bands lists {len(objects)} bands but the array has {n_band}")
    names = [b.name for b in objects]
    if len(set(names)) != len(names):
        raise InputError(f"band names must be unique, got {names}")
    return objects


def _select(plan: Plan, series: Series, journal: ResumeLog, record: RunRecord) -> Plan:
    """Resolve `auto` by measuring a sample of level-0 cells (spec 4.3), or take the choice the
    first run recorded (a resumed run never measures again, so it cannot choose otherwise)."""
    if plan.encoding != "auto":
        return plan
    if record.selection is not None:
        chosen, cells, ratio = record.selection
        return replace(plan, encoding=chosen, selection=(cells, ratio))
    scratch = sample_scratch(plan.output)
    sample = selection.measure(series, plan.levels[0], plan.schedule, plan.codec, plan.fill, plan.workers, scratch)
    chosen = STAR_DELTA if selection.keeps_star_delta(sample.ratio) else NONE
    journal.record_selection(record, (chosen, len(sample.cells), sample.ratio))
    return replace(plan, encoding=chosen, sample=sample, selection=(len(sample.cells), sample.ratio))


def _write_layout(
    plan: Plan,
    series: Series,
    bands: list[Band],
    provenance: Provenance | None,
    result: WriteResult,
    writer: ObjectWriter,
    history: tuple[HistoryLayout, WriteResult] | None,
) -> None:
    """Coordinates, volatility, then zarr.json below the root, then the root."""
    nodes: dict[str, dict[str, Any]] = {}
    for level in plan.levels:
        nodes.update(
            level_nodes(
                writer, level, variable=plan.variable, dtype=plan.dtype, n_time=plan.n_time, n_band=plan.n_band,
                times_ms=series.times_ms, band_names=[b.name for b in bands], codec=plan.codec, crs=series.crs,
                nodata=plan.nodata, plane_variables=plan.plane_variables, shard_time=plan.shard_time,
            )
        )
    grid = plan.levels[0].grid
    vol = np.zeros(grid, dtype=np.float32)
    for r, c in plan.levels[0].cells():
        vol[r, c] = volatility_value(result.volatility_sum((r, c)), result.volatility_count.get((r, c), 0))
    nodes["volatility"] = volatility_node(writer, vol)
    temporal = _temporal(plan)
    mirrors = [LevelMirror.of(level, plan.n_time, plan.n_band) for level in plan.levels]
    shard_bytes = {level.path: result.shard_bytes.get(level.path, {}) for level in plan.levels} if plan.sharded else None
    declared = None
    if history is not None:
        layout, written = history
        declared = layout.written(written.shard_bytes)
        nodes.update(history_nodes(layout, plan.n_time, plan.levels, plan.dtype, plan.codec, plan.nodata))
    block = build_root_block(
        variable=plan.variable, times_ms=series.times_ms, bands=bands, nodata=plan.nodata, crs=series.crs,
        temporal=temporal, levels=mirrors, plane_variables=plan.plane_variables, provenance=provenance,
        shard_bytes=shard_bytes, history=declared,
    )
    write_metadata(writer, nodes, root_attributes([level.path for level in plan.levels], series.crs, block))


def _temporal(plan: Plan) -> Temporal:
    sel = Selection(*plan.selection) if plan.selection else None
    if plan.encoding == NONE:
        return Temporal(NONE, selection=sel)
    s = plan.schedule
    return Temporal(STAR_DELTA, s.anchor_interval, s.anchors, dict(s.references), sel)
