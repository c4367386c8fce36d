"""`auto` encoding: measure a sample of level-0 cells both ways with the store's codec (spec 4.3).

The sample is compressed once: its chunks are kept in a local scratch directory, and the writer
stores the ones of the chosen encoding instead of compressing them again (a worker that cannot see
the directory, or a resumed run that lost it, compresses them again: the bytes are the same).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from ..format.codecs import CodecSpec
from ..format.geometry import Level
from ..format.temporal import auto_keeps_star_delta, residual, star_delta_allowed
from .compress import encode_chunk
from .output import write_error
from .plan import Schedule
from .pyramid_planes import padded_cell
from .readahead import ReadAhead
from .sample import DELTA, PLAIN, Sample
from .series import Series

MIN_SAMPLED_CELLS = 3
MAX_SAMPLED_CELLS = 8


def sample_cells(level: Level) -> list[tuple[int, int]]:
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


def sample_times(schedule: Schedule, n_time: int) -> list[int]:
    """Every timestep of a short series; of a long one, the reference groups of two anchors at a
    third and two thirds of the axis (each anchor with the timesteps stored against it), so the
    measure sees real anchor distances without reading the whole series twice."""
    if n_time <= 2 * schedule.anchor_interval + 1 or len(schedule.anchors) < 3:
        return list(range(n_time))
    anchors = schedule.anchors
    chosen = {anchors[len(anchors) // 3], anchors[(2 * len(anchors)) // 3]}
    return sorted(chosen | {t for t, a in schedule.references.items() if a in chosen})


def measure(
    series: Series, level: Level, schedule: Schedule, codec: CodecSpec, fill: float, workers: int, scratch: Path
) -> Sample:
    """Compress the sampled cells plain and as star-delta, timestep by timestep.

    One pass over the sampled timesteps; a delta waits only until its anchor has been read, so
    memory is bounded by the anchor interval, not by the length of the series.
    """
    cells = sample_cells(level)
    times = sample_times(schedule, series.shape[0])
    sample = Sample(frozenset(cells), frozenset(times), 1.0, scratch)
    for variant in (PLAIN, DELTA):
        _scratch_write(partial(sample.chunk_file(variant, 0, 0, 0).parent.mkdir, parents=True, exist_ok=True), scratch)
    anchors: dict[tuple[int, int, int], np.ndarray] = {}
    waiting: dict[int, list[tuple[int, int, int, np.ndarray]]] = {}
    last_use = {a: max([a] + [t for t in times if schedule.references.get(t) == a]) for a in schedule.anchors}
    jobs: list[tuple[str, int, Future]] = []

    def store(variant: str, t: int, row: int, col: int, chunk: np.ndarray) -> None:
        def run() -> int:
            data = encode_chunk(codec, chunk, fill) or b""
            _scratch_write(sample.chunk_file(variant, t, row, col).write_bytes, scratch, data)
            return len(data)

        jobs.append((variant, t, pool.submit(run)))

    slices = [level.cell_slice(*cell) for cell in cells]
    with ThreadPoolExecutor(max_workers=workers) as pool, ReadAhead(lambda t: series.windows(t, slices), times) as reads:
        for t in times:
            whole = (slice(None), slice(None))
            chunks = {cell: padded_cell(window, *whole, level.chunk_size, fill) for cell, window in zip(cells, reads.get(t), strict=True)}
            for (row, col), chunk in chunks.items():
                store(PLAIN, t, row, col, chunk)
            ref = schedule.references.get(t)
            if ref is None:
                anchors.update({(t, *cell): chunk for cell, chunk in chunks.items()})
                for held_t, row, col, held in waiting.pop(t, []):
                    store(DELTA, held_t, row, col, residual(held, anchors[(t, row, col)]))
            elif ref < t:
                for (row, col), chunk in chunks.items():
                    store(DELTA, t, row, col, residual(chunk, anchors[(ref, row, col)]))
            else:
                waiting.setdefault(ref, []).extend((t, row, col, chunk) for (row, col), chunk in chunks.items())
            for key in [k for k in anchors if last_use[k[0]] <= t]:
                del anchors[key]
        plain = sum(f.result() for variant, _, f in jobs if variant == PLAIN)
        delta = sum(f.result() for variant, t, f in jobs if (variant == DELTA) == (t in schedule.references))
    return replace(sample, ratio=delta / plain if plain else 1.0)


def _scratch_write(write: Callable[..., object], scratch: Path, *args: object) -> None:
    """Run one write of the sample's scratch files, an OSError as our error naming the place."""
    try:
        write(*args)
    except OSError as exc:
        raise write_error(exc, f"the sample chunks in {scratch}") from None


def choose(encoding: str, dtype: str) -> str:
    """'none' or 'star-delta' when forced, 'auto' when the sample decides (uint8 and uint16 only)."""
    if encoding == "auto" and not star_delta_allowed(dtype):
        return "none"
    return encoding


def keeps_star_delta(ratio: float) -> bool:
    return auto_keeps_star_delta(ratio)
