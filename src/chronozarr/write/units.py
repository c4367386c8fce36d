"""Work units: (levels x spatial block x time window), the pieces an encode is cut into.

A block of span x span level-0 cells yields its own levels 0..log2(span) (phase 0). The levels
above are built the same way from the top level of the phase below, read back from the store,
until the 1 x 1 level: phase p reads level `base` and writes `first..last`. A unit writes every
object of its block's cells at its levels for its timesteps, and no other unit writes them; a
sharded unit's window is whole time shards, so no two units write into one shard.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..format.geometry import Block, blocks
from .plan import Plan

BLOCK_BYTES = 64 * 2**20  # the default block's raw level-0 bytes (all bands, mask, coverage)


@dataclass(frozen=True)
class Phase:
    """Levels first..last, built from level `base` (phase 0: base 0 is the input and is written)."""

    base: int
    first: int
    last: int

    @property
    def local_levels(self) -> int:
        """Levels of the pyramid a block builds: base..last."""
        return self.last - self.base + 1


@dataclass(frozen=True)
class Unit:
    """One task of an encode: a phase, a block at its base level and a window of timesteps."""

    phase: Phase
    block: Block
    start: int
    stop: int

    @property
    def name(self) -> str:
        """Stable id (resume records and progress): levels, block, timesteps."""
        p, b = self.phase, self.block
        return f"L{p.first}-{p.last}_B{b.row}-{b.col}x{b.span}_T{self.start}-{self.stop}"


def phases(n_levels: int, span: int) -> list[Phase]:
    """Phase 0 writes levels 0..log2(span); each next phase log2(span) levels more, up to the top."""
    depth = int(math.log2(span))
    if depth == 0 and n_levels > 1:
        raise InputError("block_size must be at least 2 cells when the store has more than one level")
    out = [Phase(0, 0, min(depth, n_levels - 1))]
    while out[-1].last < n_levels - 1:
        base = out[-1].last
        out.append(Phase(base, base + 1, min(base + depth, n_levels - 1)))
    return out


def time_windows(plan: Plan, size: int | None = None) -> list[tuple[int, int]]:
    """[start, stop) of each unit's timesteps: whole time shards when sharded, else windows of
    `size` timesteps (None: the whole axis, so no anchor is read twice)."""
    if plan.sharded:
        return plan.time_shards()
    size = size or plan.n_time
    return [(s, min(s + size, plan.n_time)) for s in range(0, plan.n_time, size)]


def units(plan: Plan, phase: Phase, span: int, windows: list[tuple[int, int]]) -> list[Unit]:
    """The units of one phase: blocks row-major, each block's windows in time order."""
    base = plan.levels[phase.base]
    return [Unit(phase, block, start, stop) for block in blocks(base, span) for start, stop in windows]


def default_span(plan: Plan, source_chunks: tuple[int, int] | None) -> int:
    """Cells per block side: the largest power of two whose block holds about BLOCK_BYTES, and at
    least one source chunk across (so no input chunk is computed for several blocks), at least 2,
    at most what covers the level-0 grid."""
    level0 = plan.levels[0]
    per_cell = level0.chunk_size**2 * (plan.n_band * np.dtype(plan.dtype).itemsize + len(plan.plane_variables))
    span = 2 ** max(1, int(math.log2(max(1.0, math.sqrt(BLOCK_BYTES / per_cell)))))
    if source_chunks is not None:
        cells = math.ceil(max(source_chunks) / level0.chunk_size)
        span = max(span, 2 ** math.ceil(math.log2(max(cells, 1))))
    return min(span, max(2, 2 ** math.ceil(math.log2(max(level0.rows, level0.cols)))))


def check_span(span: int) -> int:
    """A user's block_size: a power of two of at least 2 cells."""
    if isinstance(span, bool) or not isinstance(span, int) or span < 2 or span & (span - 1):
        raise InputError(f"block_size is cells per block side, a power of two >= 2 (e.g. 4 or 8), got {span!r}")
    return span


def step_bytes(plan: Plan, unit: Unit) -> int:
    """Raw bytes of one step of a unit: its block's base-level window, every band (progress)."""
    rows, cols = unit.block.window(plan.levels[unit.phase.base])
    return (rows.stop - rows.start) * (cols.stop - cols.start) * plan.n_band * np.dtype(plan.dtype).itemsize
