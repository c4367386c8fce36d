"""`append`: new timesteps at the end of an existing store's time axis, crash-safe (spec 14).

The new timesteps go through the encoder's own streaming core (`write_timesteps`): the same
pyramid, residuals, chunk encoding and shard building, so a new timestep is stored exactly as a
fresh encode would store it against the same reference. What differs is where objects go and
what is read back:

* anchors written earlier are read back from the store at every level (stored anchors are true
  values, the block means a fresh encode computed);
* the trailing time shard is extended: its old chunk bytes are copied verbatim, the new chunks
  follow, then a new index, so every old index entry still points at the same bytes;
* every object is staged first and moved into place by the journal (write/journal.py), the root
  zarr.json last.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..errors import StoreError
from ..format.array_doc import ArrayDocument, object_key
from ..format.metadata import Band
from ..format.root_block import VOLATILITY_PATH
from ..format.temporal import STAR_DELTA, anchor_indices, nearest_references, volatility_value
from ..format.times import iso_list
from ..progress import StepCounts, work_bar
from . import journal as jr
from .existing import ExistingDataset, open_existing, prepare_batch
from .history import history_keys, stage_history
from .layout import coordinate_chunk, volatility_chunk
from .objects import ObjectCounter, ObjectWriter, ShardBase, ShardBuilder
from .output import Output, open_output
from .phases import CountedSteps
from .plan import Plan, Schedule
from .pyramid_planes import Planes
from .readback import StoredLevels
from .series import Series
from .units import Unit, default_span, phases, step_bytes, units
from .walk import WriteResult, write_units

KINDS = (jr.NEW, jr.REWRITTEN, jr.METADATA)


# One object an append wrote (or, in a dry run, would write): the journal's record of it.
WrittenObject = jr.Move


@dataclass(frozen=True)
class AppendSummary:
    """What an append wrote: objects by class and bytes. A dry run lists them and writes nothing."""

    path: Path | str
    added: int
    n_time: int
    objects: tuple[WrittenObject, ...]
    seconds: float
    dry_run: bool = False
    resumed: bool = False

    def count(self, kind: str) -> int:
        return sum(1 for o in self.objects if o.kind == kind)

    @property
    def objects_new(self) -> int:
        return self.count(jr.NEW)

    @property
    def objects_rewritten(self) -> int:
        return self.count(jr.REWRITTEN)

    @property
    def objects_metadata(self) -> int:
        return self.count(jr.METADATA)

    @property
    def nbytes(self) -> int:
        return sum(o.nbytes for o in self.objects)

    def __str__(self) -> str:
        verb = "would write" if self.dry_run else "wrote"
        head = "completed an interrupted append: " if self.resumed and not self.dry_run else ""
        size = "" if self.dry_run else f", {self.nbytes / 1e6:.1f} MB"
        return (
            f"{head}{self.path}: +{self.added} timesteps ({self.n_time} now); {verb} {len(self.objects)} objects "
            f"({self.objects_new} new, {self.objects_rewritten} rewritten, {self.objects_metadata} metadata){size} "
            f"in {self.seconds:.1f} s"
        )


def append(
    store_path: str | os.PathLike[str],
    da: xr.DataArray,
    *,
    crs: Any = None,
    nodata: Any = "store",
    mask: Any = None,
    coverage: Any = None,
    bands: Sequence[Band | dict[str, Any] | str] | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    dry_run: bool = False,
    fsync: bool = True,
    storage_options: Mapping[str, Any] | None = None,
    step_counts: StepCounts | None = None,
) -> AppendSummary:
    """Append the timesteps of `da` (time, band, y, x) to the end of the store at `store_path`.

    The input must match the store's grid, bands, dtype, CRS (default: the input's, else the
    store's) and nodata (default: the store's), carry mask and coverage exactly when the store
    does, and start strictly after the store's last time. `bands`, when given, must carry the
    store's band scales and offsets (stored integers mean the same physical values). Everything is checked before anything
    is written. An append killed at any point leaves the old store readable, or a journal that
    the next append on the store completes first (running the same append again finishes it).
    `dry_run` lists the objects it would write, by class, and writes nothing. `fsync=False`
    skips the flushes that guard against power loss (a killed process does not need them).
    `store_path` is a directory or an s3://, gs://, az:// store; `storage_options` (endpoint,
    region, anonymous) open the latter. `step_counts` are counts per new timestep the bar shows (progress.py).
    """
    started = time.perf_counter()
    root = open_output(store_path, storage_options)
    options = dict(storage_options or {})
    if root.local_root is not None and not root.local_root.is_dir():
        open_existing(root)  # raises the store error naming the path
    with jr.store_lock(root):
        pending = jr.load_journal(root)
        if pending is not None and dry_run:
            return _summary_of(root, pending, started, dry_run=True, resumed=True)
        if pending is not None:
            jr.apply(root, pending, fsync)  # roll the interrupted append forward before anything else
        elif not dry_run:
            jr.discard_staging(root)  # an append that died before committing left only this
        store = open_existing(root, options)
        if pending is not None and _same_times(da, pending):
            return _summary_of(root, pending, started, resumed=True)
        series = prepare_batch(store, da, crs=crs, nodata=nodata, mask=mask, coverage=coverage, bands=bands)
        plan = _plan(store, series, workers)
        if dry_run:
            return _dry_run(store, plan, series, started)
        moves = _stage(store, plan, series, progress, fsync, step_counts)
        entry = jr.Journal(tuple(iso_list(series.times_ms)), store.n_time, moves)
        jr.commit(root, entry, fsync)
        jr.apply(root, entry, fsync)
    return _summary_of(root, entry, started)


def _same_times(da: xr.DataArray, pending: jr.Journal) -> bool:
    """Whether `da` is the append the journal recorded (its times are the ones committed)."""
    try:
        times = iso_list(np.asarray(da["time"].values).astype("datetime64[ms]").astype(np.int64))
    except (KeyError, TypeError, ValueError):
        return False
    return tuple(times) == pending.times


def _summary_of(root: Output, entry: jr.Journal, started: float, dry_run: bool = False, resumed: bool = False) -> AppendSummary:
    n_time = entry.old_n_time + len(entry.times)
    return AppendSummary(root.location, len(entry.times), n_time, tuple(entry.moves), time.perf_counter() - started, dry_run, resumed)


def _plan(store: ExistingDataset, series: Series, workers: int | None) -> Plan:
    """The encoder's plan for the grown store: old references kept, new ones to the nearest anchor
    that exists after the append (ties to the earlier), anchors [0, k, 2k, ...] of the new length."""
    old_n = store.n_time
    n_time = old_n + series.shape[0]
    interval, old_references = store.old_references()
    anchors = anchor_indices(n_time, interval)
    references = {**old_references, **nearest_references(range(old_n, n_time), anchors)}
    return Plan(
        output=store.output.child(jr.STAGING),
        variable=store.meta.variable,
        dtype=store.meta.dtype.name,
        shape=(n_time, *series.shape[1:]),
        levels=store.levels,
        codec=store.codec,
        nodata=store.meta.nodata,
        encoding=store.meta.temporal.encoding,
        schedule=Schedule(interval, tuple(anchors), references),
        shard_time=store.shard_time,
        has_mask=store.meta.mask_variable is not None,
        has_coverage=store.meta.coverage_variable is not None,
        workers=workers or os.cpu_count() or 2,
    )


@dataclass
class _AppendPyramids:
    """What a unit's step reads: a new timestep's block from the batch (phase 0) or the finished
    level below in staging (`staged`); an old one (anchors, volatility references) at every level
    from the store alone (`held`), since a staged shard extends the store's and would be read stale."""

    plan: Plan
    series: Series
    old_n: int
    held: StoredLevels  # the store: old timesteps as a reader adds residuals to them; its shard indexes never go stale
    staged: StoredLevels

    def __call__(self, unit: Unit, t: int) -> list[Planes]:
        levels = self.plan.levels[unit.phase.base : unit.phase.last + 1]
        if t < self.old_n:
            return [Planes(*self.held.window(t, level, *unit.block.window(level))) for level in levels]
        rows, cols = unit.block.window(levels[0])
        if unit.phase.first == 0:
            window = self.series.read_window(t - self.old_n, rows, cols)
        else:
            window = self.staged.window(t, levels[0], rows, cols)
        return [Planes(*window)]


def _windows(plan: Plan, old_n: int) -> list[tuple[int, int]]:
    """The new timesteps by time shard (the first one extends the trailing shard), or all at once."""
    if not plan.sharded:
        return [(old_n, plan.n_time)]
    return [(max(start, old_n), stop) for start, stop in plan.time_shards() if stop > old_n]


def _stage(store: ExistingDataset, plan: Plan, series: Series, progress: bool | None, fsync: bool, counts: StepCounts | None) -> tuple[jr.Move, ...]:
    """Write every object of the append below the staging area (`counts` beside the bar's bytes); returns them in landing order."""
    writer = jr.StagingWriter(store.output, ObjectCounter())
    existing = store.output
    pyramids = _AppendPyramids(plan, series, store.n_time, StoredLevels(plan, (existing,)), StoredLevels(plan, (writer.output, existing)))

    def open_shard(w: ObjectWriter, key: str, n_inner: int) -> ShardBuilder:
        return ShardBuilder(w, key, n_inner, ShardBase.read(existing, key, n_inner))

    span = default_span(plan, series.spatial_chunks)
    per_phase = [units(plan, phase, span, _windows(plan, store.n_time)) for phase in phases(len(plan.levels), span)]
    total = sum(step_bytes(plan, u) * (u.stop - u.start) for phase_units in per_phase for u in phase_units)
    result = WriteResult()
    area = plan.levels[0].height * plan.levels[0].width
    with work_bar("appending", total, sum(map(len, per_phase)), enabled=progress, counts=counts, area=area) as bar:
        counted = CountedSteps(plan, bar, offset=store.n_time)
        for phase_units in per_phase:
            done = write_units(
                plan, phase_units, counted.pyramids(pyramids), writer, progress=bar.advance, open_shard=open_shard,
                on_done=lambda unit, _: bar.unit_done(), on_step=counted.wrote,
            )
            result.merge(done)
    history = store.block.history
    if history is not None:
        result.shard_bytes.update(stage_history(plan, history, store.n_time, existing, writer, progress))
    _stage_metadata(store, plan, series, result, writer)
    if fsync:
        writer.flush()
    return _moves(store, writer)


def _stage_metadata(store: ExistingDataset, plan: Plan, series: Series, result: WriteResult, writer: jr.StagingWriter) -> None:
    """Array shapes, time/c/0, volatility when it changed, then the root document."""
    times_ms = np.concatenate([store.times_ms, series.times_ms])
    grown: dict[str, ArrayDocument] = {}
    history = [part.path for part in store.block.history.every_part] if store.block.history is not None else []
    for key in [f"{level.path}/{name}" for level in plan.levels for name in [plan.variable, *plan.plane_variables]] + history:
        doc = store.array(key)
        grown[key] = doc.with_shape((plan.n_time, *doc.shape[1:]))
    for level in plan.levels:
        key = f"{level.path}/time"
        grown[key] = store.array(key).with_shape([plan.n_time], [plan.n_time])
        if (codec := grown[key].codec) is None:
            raise StoreError(f"{store.output.describe()}/{key}/zarr.json declares no compressor; append writes the time chunk with it")
        writer.put(object_key(key, (0,)), coordinate_chunk(times_ms, codec))
    nodes = {key: doc.to_json() for key, doc in grown.items()}
    for key in sorted(nodes):
        writer.put_json(f"{key}/zarr.json", nodes[key])
    old, codec = store.volatility()
    new = _volatility(store, plan, old, result)
    if new.tobytes() != old.tobytes():
        writer.put(object_key(store.block.volatility_path or VOLATILITY_PATH, (0, 0)), volatility_chunk(new, codec))
    writer.put_json("zarr.json", _root_document(store, plan, times_ms, result, nodes))


def _volatility(store: ExistingDataset, plan: Plan, old: np.ndarray, result: WriteResult) -> np.ndarray:
    """Each cell's mean |delta| with the new deltas joined in (spec 5).

    The stored value is mean / 10000 over the old deltas, so mean times the old count restores
    their sum; a cell already clipped at 1.0 cannot be restored and stays a lower bound.
    """
    old_deltas = sum(1 for t in plan.schedule.references if t < store.n_time)
    level0 = plan.levels[0]
    new = old.copy()
    for r, c in level0.cells():
        rows, cols = level0.cell_slice(r, c)
        old_count = old_deltas * plan.n_band * (rows.stop - rows.start) * (cols.stop - cols.start)
        total = float(old[r, c]) * 10000.0 * old_count + result.volatility_sum((r, c))
        new[r, c] = volatility_value(total, old_count + result.volatility_count.get((r, c), 0))
    return new


def _root_document(
    store: ExistingDataset, plan: Plan, times_ms: np.ndarray, result: WriteResult, nodes: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The old root with only what an append changes: times, temporal, levels, shard_bytes and the
    consolidated copies of the changed nodes. multiscales and everything else stay as found."""
    doc = copy.deepcopy(dict(store.document))
    temporal = store.block.temporal
    if plan.encoding == STAR_DELTA:
        temporal = replace(temporal, anchor_indices=tuple(plan.schedule.anchors), delta_reference=dict(plan.schedule.references))
    history = {part.path for part in store.block.history.every_part} if store.block.history is not None else set()
    levels = {k: v for k, v in result.shard_bytes.items() if k not in history} if plan.sharded else {}
    grown = store.block.appended(iso_list(times_ms), temporal, plan.n_time, levels, {k: result.shard_bytes[k] for k in history & set(result.shard_bytes)})
    doc["attributes"]["chronozarr"] = grown.to_dict()
    consolidated = doc.get("consolidated_metadata", {}).get("metadata")
    if isinstance(consolidated, dict):
        for key, node in nodes.items():
            if key in consolidated:
                consolidated[key] = node
    return doc


def _rank(key: str) -> int:
    """Landing order (spec 9, 14): chunks and shards, then time and volatility chunks, then the
    zarr.json below the root, then the root."""
    if key == "zarr.json":
        return 3
    if key.endswith("/zarr.json"):
        return 2
    if key.endswith("/time/c/0") or key.startswith("volatility/"):
        return 1
    return 0


def _kind(store: ExistingDataset, key: str) -> str:
    if _rank(key) > 0:
        return jr.METADATA
    return jr.REWRITTEN if store.output.size(key) is not None else jr.NEW


def _moves(store: ExistingDataset, writer: jr.StagingWriter) -> tuple[jr.Move, ...]:
    keys = sorted(writer.staged(), key=lambda k: (_rank(k), k))
    return tuple(jr.Move(k, _kind(store, k), writer.size(k)) for k in keys)


def _dry_run(store: ExistingDataset, plan: Plan, series: Series, started: float) -> AppendSummary:
    """The objects an append would write, from the geometry alone (no data is encoded).

    It lists every chunk or shard that gains a timestep; one that would hold only fill is listed
    too although the append would not store it. Sizes are unknown, so bytes are 0.
    """
    old_n = store.n_time
    keys: set[str] = set()
    for level in plan.levels:
        for name in [plan.variable, *plan.plane_variables]:
            for row, col in level.cells():
                keys.update(plan.timestep_key(level, name, t, row, col) for t in range(old_n, plan.n_time))
            keys.add(f"{level.path}/{name}/zarr.json")
        keys.update({f"{level.path}/time/zarr.json", object_key(f"{level.path}/time", (0,))})
    keys.update({object_key(store.block.volatility_path or VOLATILITY_PATH, (0, 0)), "zarr.json"})
    if store.block.history is not None:
        keys.update(history_keys(plan, store.block.history, old_n))
    ordered = sorted(keys, key=lambda k: (_rank(k), k))
    objects = tuple(WrittenObject(k, _kind(store, k), 0) for k in ordered)
    return AppendSummary(store.output.location, series.shape[0], plan.n_time, objects, time.perf_counter() - started, dry_run=True)
