"""Sampled pyramid consistency (2.4, 2.5, 6): a few cells of each coarser level must equal the
block reductions of the level below, read back through the reader.

Reading every chunk of a large store would make validation as slow as a full decode, so the
sample is small and deterministic: two timesteps (a delta timestep when there is one) and up to
three cells per level.
"""

from __future__ import annotations

import numpy as np

from ...errors import StoreError
from ...format.pyramid import block_max, block_mean, block_rounded_mean, validity
from ...read.dataset import ChronoDataset
from ..context import Context

SAMPLE_TIMES = 2
SAMPLE_CELLS = 3


def sample_times(n_time: int, anchors: set[int]) -> list[int]:
    """The first delta timestep (or 0) and the last timestep."""
    deltas = [t for t in range(n_time) if t not in anchors]
    first = deltas[0] if deltas and anchors else 0
    return sorted({first, n_time - 1})[:SAMPLE_TIMES]


def sample_cells(rows: int, cols: int) -> list[tuple[int, int]]:
    """Top-left, centre and bottom-right cells, without repeats."""
    cells = [(0, 0), (rows // 2, cols // 2), (rows - 1, cols - 1)]
    return list(dict.fromkeys(cells))[:SAMPLE_CELLS]


def check_pyramid(ctx: Context) -> None:
    """Sample the pyramid through the reader. When a MUST is already broken the reader may trip
    over the same problem; that is reported as context, not as a second failure."""
    if len(ctx.levels) < 2:
        return
    clean = ctx.report.ok
    try:
        store = ChronoDataset(ctx.source, concurrency=4)
    except (StoreError, KeyError, TypeError, ValueError, IndexError) as exc:
        _trouble(ctx, clean, "10", f"the reference reader cannot open the store: {exc}")
        return
    try:
        _sample(ctx, store)
    except (StoreError, KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        _trouble(ctx, clean, "8", f"a sampled chunk cannot be read: {type(exc).__name__}: {exc}")
    finally:
        store.close()


def _trouble(ctx: Context, clean: bool, section: str, message: str) -> None:
    if clean:
        ctx.report.fail(section, "zarr.json", message)
    else:
        ctx.report.info("6", "zarr.json", f"pyramid not sampled: {message}")


def _sample(ctx: Context, store: ChronoDataset) -> None:
    meta = store.meta
    anchors = set(meta.temporal.anchor_indices) if meta.temporal.encoding == "star-delta" else set()
    nodata = meta.nodata
    for level in meta.levels[1:]:
        below = meta.levels[level.index - 1]
        rows, cols = level.grid
        for t in sample_times(len(meta.times), anchors):
            for r, c in sample_cells(rows, cols):
                ys, xs = level.cell_slice(r, c)
                src = below.parent_window(ys, xs)
                data = store.read(t, below.index, window=src)
                mask = store.read_mask(t, below.index, window=src)
                expected = block_mean(data, validity(data, mask, nodata), nodata)
                got = store.read(t, level.index, window=(ys, xs))
                where = f"{level.path}/{meta.variable} t={t} cell ({r}, {c})"
                _compare(ctx, "6", where, got, expected, "the block mean of level " + below.path)
                if mask is not None:
                    got_mask = store.read_mask(t, level.index, window=(ys, xs))
                    assert got_mask is not None  # the level below has one, so the store has a mask
                    _compare(ctx, "2.4", f"{level.path}/mask t={t} cell ({r}, {c})", got_mask, block_max(mask), "the block max of level " + below.path)
                coverage = store.read_coverage(t, below.index, window=src)
                if coverage is not None:
                    got_cov = store.read_coverage(t, level.index, window=(ys, xs))
                    assert got_cov is not None  # the level below has one, so the store has coverage
                    _compare(
                        ctx, "2.5", f"{level.path}/coverage t={t} cell ({r}, {c})", got_cov,
                        block_rounded_mean(coverage), "(sum + 2) // 4 of level " + below.path,
                    )


def _compare(ctx: Context, section: str, where: str, got: np.ndarray, expected: np.ndarray, what: str) -> None:
    if got.shape == expected.shape and np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"):
        return
    if got.shape != expected.shape:
        ctx.report.fail(section, where, f"has shape {got.shape}, {what} has {expected.shape}")
        return
    differ = np.argwhere(got != expected)
    n = len(differ)
    first = tuple(int(v) for v in differ[0])
    ctx.report.fail(section, where, f"{n} values differ from {what}; first at {first}: stored {got[first]!r}, expected {expected[first]!r}")
