"""Rules on the time-major history array (docs/format-history.md), section "history" of a report.

The declaration is parsed by the format's model and judged against the array's document and
level 0 with the model's rules; `shard_bytes` against the shard objects that exist (listed in a
directory, probed elsewhere); every inner chunk's values (or a seeded random sample of them)
against level 0's true values read through the reference reader.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Mapping

import numpy as np

from ..errors import StoreError
from ..format.history import HISTORY_DIMS, HistoryError, HistoryLayout, history_shard_of
from ..read.history import HistoryReader, StoreHistory
from ..read.store import ChronoStore
from .context import ArrayFacts, Context
from .objects import MAX_PROBES, list_files

SECTION = "history"
KEY = "chronozarr.history"


def check_history(ctx: Context) -> None:
    """Every history rule, when the root declares the array; ctx.history_sample inner chunks (None: all)."""
    if "history" not in ctx.block:
        return
    try:
        layout = HistoryLayout.from_dict(ctx.block["history"])
    except HistoryError as exc:
        ctx.report.fail(SECTION, KEY, str(exc))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            store = ChronoStore(ctx.source, concurrency=4)
        except StoreError as exc:
            ctx.report.info(SECTION, KEY, f"not checked: the reference reader cannot open the store: {exc}")
            return
    try:
        history = store.meta.history
        if history is None:
            ctx.report.fail(SECTION, KEY, str(store.meta.history_problem))
            return
        doc = ctx.doc(layout.path) or {}
        _check_document(ctx, store, history, doc)
        ctx.arrays[layout.path] = ArrayFacts(layout.path, doc, tuple(history.info.shape), layout.shard_shape, layout.chunk_shape)
        _check_shard_bytes(ctx, layout, store)
        _check_values(ctx, store, history, ctx.history_sample)
    finally:
        store.close()


def _check_document(ctx: Context, store: ChronoStore, history: StoreHistory, doc: Mapping[str, object]) -> None:
    """Dims, _ARRAY_DIMENSIONS and codecs: those of level 0's data array (spec 2.2, 8)."""
    key = f"{history.layout.path}/zarr.json"
    attrs = doc.get("attributes")
    if doc.get("dimension_names") != list(HISTORY_DIMS):
        ctx.report.fail(SECTION, key, f"dimension_names must be {list(HISTORY_DIMS)}, got {doc.get('dimension_names')!r}")
    if not isinstance(attrs, Mapping) or attrs.get("_ARRAY_DIMENSIONS") != list(HISTORY_DIMS):
        ctx.report.fail(SECTION, key, f"attribute _ARRAY_DIMENSIONS must be {list(HISTORY_DIMS)} (spec 2.2)")
    if history.info.codec != store.meta.levels[0].data.codec:
        ctx.report.fail(SECTION, key, f"codecs inside the shard must be level 0's ({store.meta.levels[0].data.codec}), got {history.info.codec}")


def _existing_shards(ctx: Context, layout: HistoryLayout, store: ChronoStore) -> dict[str, int] | None:
    """shard id -> byte length of every history shard object; None when there are too many to probe."""
    if ctx.local_root is not None:
        found = {}
        for key, size in list_files(ctx.local_root):
            where = history_shard_of(key)
            if where is not None:
                found[layout.shard_id(*where)] = size
        return found
    level0 = store.meta.levels[0]
    shards = layout.shards(level0.shape[0], level0.height, level0.width)
    if len(shards) > MAX_PROBES:
        return None
    sizes = {layout.shard_id(*s): ctx.source.size(layout.shard_key(*s)) for s in shards}
    return {k: v for k, v in sizes.items() if v is not None}


def _check_shard_bytes(ctx: Context, layout: HistoryLayout, store: ChronoStore) -> None:
    """shard_bytes lists exactly the history shards that exist, with their lengths."""
    existing = _existing_shards(ctx, layout, store)
    if existing is None:
        ctx.report.info(SECTION, f"{KEY}.shard_bytes", f"more than {MAX_PROBES} possible shards: lengths not probed")
        return
    listed = layout.shard_bytes
    for shard in sorted(set(existing) | set(listed)):
        where = f"{KEY}.shard_bytes[{shard!r}]"
        if shard not in listed:
            ctx.report.fail(SECTION, where, f"missing: the shard exists with {existing[shard]} bytes")
        elif shard not in existing:
            ctx.report.fail(SECTION, where, f"lists {listed[shard]} bytes for a shard that does not exist")
        elif listed[shard] != existing[shard]:
            ctx.report.fail(SECTION, where, f"is {listed[shard]}, the shard is {existing[shard]} bytes")


def _check_values(ctx: Context, store: ChronoStore, history: StoreHistory, sample: int | None) -> None:
    """Each inner chunk equals level 0's true values (and fill past n_time); a difference names
    the shard key and the inner chunk."""
    layout, level0 = history.layout, store.meta.levels[0]
    reader = HistoryReader(store.source, history, store.fetcher.pool)
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
        truth = store._gather(level0, level0.data, steps, *region)
        for position in positions:
            rows, cols = layout.inner_window(position)
            expected = truth[..., rows, cols]
            if expected.size == 0:
                continue  # an inner chunk wholly past the array's edge holds nothing of level 0
            got = reader.inner_chunk(tb, r, c, position)
            where = f"{layout.shard_key(tb, r, c)} inner chunk {divmod(position, layout.per_side)}"
            _compare(ctx, where, got, expected, history.info.fill_value, len(steps))


def _compare(ctx: Context, where: str, got: np.ndarray, expected: np.ndarray, fill: object, n: int) -> None:
    h, w = expected.shape[-2:]
    part = got[:n, :, :h, :w]
    float_kind = got.dtype.kind == "f"
    if not np.array_equal(part, expected, equal_nan=float_kind):
        differ = np.argwhere(~((part == expected) | (np.isnan(part) & np.isnan(expected)) if float_kind else part == expected))
        t, b, y, x = (int(v) for v in differ[0])
        ctx.report.fail(
            SECTION, where, f"{len(differ)} values differ from level 0's true values; first at time {t} of the block, band {b}, "
            f"pixel ({y}, {x}) of the chunk: history {part[t, b, y, x]!r}, level 0 {expected[t, b, y, x]!r}",
        )
        return
    past = got[n:]
    if past.size and not np.array_equal(past, np.full_like(past, fill), equal_nan=float_kind):
        ctx.report.fail(SECTION, where, f"positions past the last timestep must hold the fill value {fill!r}")
