"""Rules on the time-major history arrays (docs/format-history.md), section "history" of a report.

The declaration is parsed by the format's model and judged against the arrays' documents and
level 0 with the model's rules; `shard_bytes` (and `mask_shard_bytes`) against the shard objects
that exist (listed in a directory, probed elsewhere); every inner chunk's values (or a seeded
random sample of them) against level 0's true values, and the mask copy's against level 0's mask,
read through the reference reader. From version 1.3 the same checks run for the history of
every coarser level the declaration lists, against that level (its true values are the stored
block means, spec 6).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np

from ...errors import HistoryError, StoreError
from ...format.array_doc import ArrayDocument
from ...format.history import HistoryLayout, HistoryPart
from ...read.dataset import ChronoDataset
from ...read.history import DatasetHistory, HistoryReader, history_readers
from ..context import ArrayFacts, Context
from ..objects import MAX_PROBES, store_objects

SECTION = "history"
KEY = "chronozarr.history"


def check_history(ctx: Context) -> None:
    """Every history rule, when the root declares the array; ctx.history_sample inner chunks (None: all)."""
    if "history" not in ctx.block:
        return
    try:
        HistoryLayout.from_dict(ctx.block["history"])
    except HistoryError as exc:
        ctx.report.fail(SECTION, KEY, str(exc))
        return
    try:
        store = ChronoDataset(ctx.source, concurrency=4)  # validate silences its HistoryWarning
    except StoreError as exc:
        ctx.report.info(SECTION, KEY, f"not checked: the reference reader cannot open the store: {exc}")
        return
    try:
        history = store.meta.history
        if history is None:
            ctx.report.fail(SECTION, KEY, str(store.meta.history_problem))
            return
        if history.mask_array is None and store.meta.levels[0].mask is not None:
            ctx.report.info(SECTION, f"{KEY}.mask_path", "no mask copy (none before version 1.1): readers read each date's mask from level 0")
        for _, why in history.coarse_problems:
            ctx.report.fail(SECTION, KEY, why)
        levels = sorted(history.coarse)
        if len(store.meta.levels) > 1:
            listed = ", ".join(str(k) for k in levels) or "none"
            ctx.report.info(SECTION, f"{KEY}.levels", f"coarser levels with a history: {listed} of {len(store.meta.levels) - 1}")
        for level in (0, *levels):
            _check_level(ctx, store, history.at(level), level)
    finally:
        store.close()


def _check_level(ctx: Context, store: ChronoDataset, history: DatasetHistory | None, level: int) -> None:
    """One level's history arrays: documents, shard lengths and values against that level."""
    if history is None:
        return
    data, mask = history_readers(store.source, history, store.region.pool)
    stored = store.meta.levels[level]
    for reader, copied in ((data, stored.data), (mask, stored.mask)):
        if reader is None or copied is None:
            continue
        doc = ctx.doc(reader.part.path) or {}
        _check_document(ctx, reader, copied, doc)
        ctx.arrays[reader.part.path] = ArrayFacts(reader.part.path, doc, tuple(reader.array.shape), reader.part.shard_shape, reader.part.chunk_shape)
        _check_shard_bytes(ctx, history.layout, reader.part, store)
        _check_values(ctx, store, reader, ctx.history_sample)


def _check_document(ctx: Context, reader: HistoryReader, copied: ArrayDocument, doc: Mapping[str, object]) -> None:
    """Dims and _ARRAY_DIMENSIONS of the level's array it copies (spec 2.2); its codecs: the
    level's, or from version 1.2 the data history's own (docs/format-history.md)."""
    key = f"{reader.part.path}/zarr.json"
    dims = list(reader.part.dims)
    attrs = doc.get("attributes")
    if doc.get("dimension_names") != dims:
        ctx.report.fail(SECTION, key, f"dimension_names must be {dims}, got {doc.get('dimension_names')!r}")
    if not isinstance(attrs, Mapping) or attrs.get("_ARRAY_DIMENSIONS") != dims:
        ctx.report.fail(SECTION, key, f"attribute _ARRAY_DIMENSIONS must be {dims} (spec 2.2)")
    expected = None if copied.codec is None else reader.part.codec(reader.layout.version, copied.codec)
    if reader.array.codec != expected:
        whose = f"level {reader.part.level}'s" if expected == copied.codec else f"those of version {reader.layout.version}"
        ctx.report.fail(SECTION, key, f"codecs inside the shard must be {whose} ({expected}), got {reader.array.codec}")


def _existing_shards(ctx: Context, layout: HistoryLayout, part: HistoryPart, store: ChronoDataset) -> dict[str, int] | None:
    """shard id -> byte length of every shard object of one history array; None when there are too many to probe."""
    if ctx.source.listable:
        found = {}
        for key, size in store_objects(ctx.source):
            where = part.shard_of(key)
            if where is not None:
                found[layout.shard_id(*where)] = size
        return found
    level = store.meta.levels[part.level]
    shards = layout.shards(level.shape[0], level.height, level.width)
    if len(shards) > MAX_PROBES:
        return None
    sizes = {layout.shard_id(*s): ctx.source.size(part.shard_key(*s)) for s in shards}
    return {k: v for k, v in sizes.items() if v is not None}


def _check_shard_bytes(ctx: Context, layout: HistoryLayout, part: HistoryPart, store: ChronoDataset) -> None:
    """shard_bytes (mask_shard_bytes) lists exactly the array's shards that exist, with their lengths."""
    name = f"{KEY}.{part.field}"
    existing = _existing_shards(ctx, layout, part, store)
    if existing is None:
        ctx.report.info(SECTION, name, f"more than {MAX_PROBES} possible shards: lengths not probed")
        return
    listed = part.shard_bytes
    for shard in sorted(set(existing) | set(listed)):
        where = f"{name}[{shard!r}]"
        if shard not in listed:
            ctx.report.fail(SECTION, where, f"missing: the shard exists with {existing[shard]} bytes")
        elif shard not in existing:
            ctx.report.fail(SECTION, where, f"lists {listed[shard]} bytes for a shard that does not exist")
        elif listed[shard] != existing[shard]:
            ctx.report.fail(SECTION, where, f"is {listed[shard]}, the shard is {existing[shard]} bytes")


def _check_values(ctx: Context, store: ChronoDataset, reader: HistoryReader, sample: int | None) -> None:
    """Each inner chunk equals its level's true values, or its mask for the mask copy (and fill
    past n_time); a difference names the shard key and the inner chunk."""
    layout, level0 = reader.layout, store.meta.levels[reader.part.level]
    chunks = [(s, p) for s in layout.shards(level0.shape[0], level0.height, level0.width) for p in range(layout.inner_per_shard)]
    if sample is not None and sample < len(chunks):
        chunks = sorted(random.Random(0).sample(chunks, sample))
    by_shard: dict[tuple[int, int, int], list[int]] = {}
    for shard, position in chunks:
        by_shard.setdefault(shard, []).append(position)
    for (tb, r, c), positions in by_shard.items():
        steps = list(layout.block_steps(tb, level0.shape[0]))
        top, left = r * layout.shard, c * layout.shard
        # Level 0's chunks under the shard are read whole whatever part of it is compared.
        region = slice(top, min(top + layout.shard, level0.height)), slice(left, min(left + layout.shard, level0.width))
        truth = store.read_region("mask" if reader.part.is_mask else "data", steps, *region, lod=reader.part.level)
        for position in positions:
            rows, cols = layout.inner_window(position)
            expected = truth[..., rows, cols]
            if expected.size == 0:
                continue  # an inner chunk wholly past the array's edge holds nothing of level 0
            got = reader.inner_chunk(tb, r, c, position)
            where = f"{reader.part.shard_key(tb, r, c)} inner chunk {divmod(position, layout.per_side)}"
            _compare(ctx, where, got, expected, reader.array.fill, len(steps), reader.part.level)


def _compare(ctx: Context, where: str, got: np.ndarray, expected: np.ndarray, fill: object, n: int, level: int) -> None:
    h, w = expected.shape[-2:]
    part = got[:n, ..., :h, :w]
    float_kind = got.dtype.kind == "f"
    if not np.array_equal(part, expected, equal_nan=float_kind):
        differ = np.argwhere(~((part == expected) | (np.isnan(part) & np.isnan(expected)) if float_kind else part == expected))
        at = tuple(int(v) for v in differ[0])
        band = f"band {at[1]}, " if len(at) == 4 else ""
        ctx.report.fail(
            SECTION, where, f"{len(differ)} values differ from level {level}'s true values; first at time {at[0]} of the block, {band}"
            f"pixel ({at[-2]}, {at[-1]}) of the chunk: history {part[at]!r}, level {level} {expected[at]!r}",
        )
        return
    past = got[n:]
    if past.size and not np.array_equal(past, np.full_like(past, fill), equal_nan=float_kind):
        ctx.report.fail(SECTION, where, f"positions past the last timestep must hold the fill value {fill!r}")
