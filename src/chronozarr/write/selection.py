"""`auto` encoding: measure a sample of level-0 cells both ways with the store's codec (spec 4.3)."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..spec.codecs import CodecSpec
from ..spec.geometry import LevelGeometry
from ..spec.temporal import AUTO_THRESHOLD, STAR_DELTA_DTYPES, residual
from .plan import Schedule
from .pyramid_planes import padded_cell
from .source import Series

MIN_SAMPLED_CELLS = 3
MAX_SAMPLED_CELLS = 8


def sample_cells(level: LevelGeometry) -> list[tuple[int, int]]:
    """At least 3 cells (all when there are fewer), spread evenly, full cells first."""
    cells = level.cells()
    full = [
        (r, c)
        for r, c in cells
        if all(s.stop - s.start == level.chunk_size for s in level.cell_slice(r, c))
    ]
    wanted = min(len(cells), max(MIN_SAMPLED_CELLS, min(MAX_SAMPLED_CELLS, math.ceil(math.sqrt(len(cells)) / 2))))
    pool = full if len(full) >= wanted else cells
    picks = np.unique(np.round(np.linspace(0, len(pool) - 1, wanted)).astype(int))
    return [pool[i] for i in picks]


def _cell_sizes(
    series: Series, level: LevelGeometry, cell: tuple[int, int], schedule: Schedule, codec: CodecSpec, fill: float
) -> tuple[int, int]:
    """(plain bytes, star-delta bytes) of one cell over the whole time axis."""
    rows, cols = level.cell_slice(*cell)
    values = np.asarray(series.data[:, :, rows, cols].values)
    compressor = codec.compressor(values.dtype)
    chunks = [padded_cell(values[t], slice(None), slice(None), level.chunk_size, fill) for t in range(len(values))]
    sizes = [len(compressor.encode(c)) for c in chunks]
    plain = sum(sizes)
    delta = sum(
        size if t not in schedule.references else len(compressor.encode(residual(chunks[t], chunks[schedule.references[t]])))
        for t, size in enumerate(sizes)
    )
    return plain, delta


def measure(series: Series, level: LevelGeometry, schedule: Schedule, codec: CodecSpec, fill: float, workers: int) -> tuple[int, float]:
    """(sampled cells, star-delta bytes / plain bytes) over the sample."""
    cells = sample_cells(level)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        sizes = list(pool.map(lambda c: _cell_sizes(series, level, c, schedule, codec, fill), cells))
    plain = sum(p for p, _ in sizes)
    delta = sum(d for _, d in sizes)
    return len(cells), (delta / plain if plain else 1.0)


def choose(encoding: str, dtype: str) -> str:
    """'none' or 'star-delta' when forced, 'auto' when the sample decides (uint8 and uint16 only)."""
    if encoding == "auto" and dtype not in STAR_DELTA_DTYPES:
        return "none"
    return encoding


def keeps_star_delta(ratio: float) -> bool:
    return ratio <= AUTO_THRESHOLD
