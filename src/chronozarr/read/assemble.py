"""One region of one array assembled from the chunks that cover it, on the reader's fetch pool:
each chunk's overlap copied into the output (or a whole chunk decoded straight into it), and the
delta timesteps of a star-delta data array reconstructed through their anchors (spec 4), which
are cached for the next read."""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from ..format.array_doc import ArrayDocument
from ..format.geometry import Level
from ..format.temporal import reconstruct
from .cache import ByteLRU
from .decode import fill_chunk
from .fetch import ChunkFetcher, ChunkRef
from .request import allocate


@dataclass(frozen=True)
class AnchorCache:
    """What a star-delta read needs of the store: decoded anchor chunks kept between reads, the
    anchor timesteps, and each timestep's recorded anchor (None for an anchor)."""

    cache: ByteLRU
    steps: Collection[int]
    reference: Callable[[int], int | None]
    # An anchor timestep asked for itself is taken from the cache too (the writer's read-back, a
    # timestep at a time); a reader fetches it, so a point read's chunks of a shard stay one range.
    reuse: bool = False


def assemble(
    fetcher: ChunkFetcher,
    level: Level,
    array: ArrayDocument,
    steps: list[int],
    rows: slice,
    cols: slice,
    anchors: AnchorCache | None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """(len(steps), [band,] h, w) of `array` over the region, from the chunks covering it, into
    `out` when given; with `anchors` (the data array of a star-delta store) each delta timestep
    is reconstructed through its recorded anchor, read or taken from the cache."""
    banded = len(array.shape) == 4
    lead = (array.shape[1],) if banded else ()
    region = allocate((len(steps), *lead, rows.stop - rows.start, cols.stop - cols.start), array) if out is None else out
    cells = level.cells_under(rows, cols)
    star = anchors is not None
    position = {t: i for i, t in enumerate(steps)}
    reference = {t: a for t in steps if (a := anchors.reference(t)) is not None} if anchors is not None else {}
    anchor_pieces: dict[tuple[int, int, int], np.ndarray] = {}
    delta_pieces: dict[tuple[int, int, int], np.ndarray] = {}
    lock = threading.Lock()
    direct = not star and region.flags.c_contiguous and _one_whole_chunk(array, level, cells, rows, cols)

    def into(ref: ChunkRef) -> np.ndarray | None:
        return region[position[ref.t]].reshape(-1).view(np.uint8) if direct else None

    def upto(ref: ChunkRef) -> int | None:
        # an anchor chunk is cached whole for later reads; a direct one is the output
        if direct or (anchors is not None and ref.t in anchors.steps):
            return None
        cy, cx, _, _ = level.overlap(ref.row, ref.col, rows, cols)
        return _bytes_read(array, cy, cx)

    def accept(ref: ChunkRef, chunk: np.ndarray | None) -> None:
        # `chunk` lives in the fetching thread's buffer (or, direct, already in `out`): what
        # outlives this call is copied.
        if direct and chunk is not None:
            return
        if chunk is None:
            chunk = fill_chunk(array)
        chunk = chunk[0]
        cy, cx, oy, ox = level.overlap(ref.row, ref.col, rows, cols)
        key = (ref.t, ref.row, ref.col)
        if anchors is not None and ref.t in anchors.steps:
            chunk = chunk.copy()
            anchors.cache.put((array.path, *key), chunk)
            with lock:
                anchor_pieces[key] = chunk[..., cy, cx]
        if ref.t in position:
            if reference.get(ref.t) is not None:
                with lock:
                    delta_pieces[key] = chunk[..., cy, cx].copy()
            else:
                region[position[ref.t]][..., oy, ox] = chunk[..., cy, cx]

    refs = [ChunkRef(array, t, r, c) for t in steps for r, c in cells]
    if anchors is not None:
        # anchors asked for, which hold true values, and anchors the deltas need: from the cache when it has them
        own = [(t, r, c) for t in steps if anchors.reuse and t in anchors.steps and t not in reference for r, c in cells]
        needed = [(a, r, c) for a in set(reference.values()) for r, c in cells]
        anchor_pieces.update(_cached_pieces(anchors, array, level, rows, cols, own + needed))
        served = {key for key in own if key in anchor_pieces}
        for t, r, c in served:
            _, _, oy, ox = level.overlap(r, c, rows, cols)
            region[position[t]][..., oy, ox] = anchor_pieces[(t, r, c)]
        refs = [ref for ref in refs if (ref.t, ref.row, ref.col) not in served]
        refs += [ChunkRef(array, *key) for key in needed if key not in anchor_pieces]
    fetcher.fetch(refs, accept, into, upto)
    for (t, r, c), piece in delta_pieces.items():
        _, _, oy, ox = level.overlap(r, c, rows, cols)
        region[position[t]][..., oy, ox] = reconstruct(anchor_pieces[(reference[t], r, c)], piece)
    return region


def _cached_pieces(
    anchors: AnchorCache, array: ArrayDocument, level: Level, rows: slice, cols: slice, keys: list[tuple[int, int, int]]
) -> dict[tuple[int, int, int], np.ndarray]:
    """The region's overlap of every anchor chunk (t, row, col) of `keys` the cache holds."""
    out: dict[tuple[int, int, int], np.ndarray] = {}
    for t, r, c in dict.fromkeys(keys):
        cached = anchors.cache.get((array.path, t, r, c))
        if cached is not None:
            cy, cx, _, _ = level.overlap(r, c, rows, cols)
            out[(t, r, c)] = cached[..., cy, cx]
    return out


def _bytes_read(array: ArrayDocument, cy: slice, cx: slice) -> int:
    """How many of a chunk's first bytes (C order: [time,] [band,] y, x) an overlap reads: up to
    its last element, in the last band's plane, so a pixel or the top of a chunk needs a prefix."""
    *lead, height, width = array.chunk_shape
    planes = math.prod(lead) - 1
    return ((planes * height + cy.stop - 1) * width + cx.stop) * array.dtype.itemsize


def _one_whole_chunk(array: ArrayDocument, geometry: Level, cells: list[tuple[int, int]], rows: slice, cols: slice) -> bool:
    """Whether a window is exactly one uncropped chunk, whose bytes are then each timestep's
    output bytes: a chunk is decoded straight into the output (on a little-endian machine, as
    chunks are stored)."""
    if len(cells) != 1 or array.dtype.kind == "O" or sys.byteorder != "little":
        return False
    cell_rows, cell_cols = geometry.cell_slice(*cells[0])
    size = array.chunk_shape[-2:]
    return (rows, cols) == (cell_rows, cell_cols) and (rows.stop - rows.start, cols.stop - cols.start) == size
