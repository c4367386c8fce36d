"""The one region reader: stored values of a window of any array, given only the array's document,
its level's geometry and, for a star-delta data array, the anchor each timestep is stored against.

It needs no root metadata, so ChronoDataset feeds it from the root block and the writer from its
plan (reading back the levels it wrote, spec 6 and 14): shard indexes, chunk decoding and the
residual reconstruction of spec 4.2 happen here for both. Reads may run from several threads at
once; the shard indexes and anchor chunks it caches are bounded by bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..format.array_doc import ArrayDocument
from ..format.geometry import Level
from ..limits import SHARD_INDEX_CACHE_BYTES
from ..store import ObjectStore
from .assemble import AnchorCache, assemble
from .cache import ByteLRU
from .fetch import ChunkFetcher

INDEX_BYTES = SHARD_INDEX_CACHE_BYTES


class RegionReader:
    """Regions of one store's arrays through one fetcher; `close()` stops its request threads."""

    def __init__(
        self,
        source: ObjectStore,
        *,
        concurrency: int,
        anchor_bytes: int,
        shard_bytes: Mapping[str, Mapping[str, int]] | None = None,
        data_variable: str = "",
        index_bytes: int = INDEX_BYTES,
        star_delta: tuple[Collection[int], Callable[[int], int | None]] | None = None,
        reuse_anchors: bool = False,
    ) -> None:
        """`star_delta`, for a star-delta store: the anchor timesteps and `reference(t)`, the anchor
        timestep t is stored against (None where it holds true values); data arrays (a level's
        `data`) are then reconstructed through it. `shard_bytes` are the root's (spec 7.3), if any.
        `reuse_anchors`: an anchor timestep read for itself comes from the cache when it is there."""
        self.fetcher = ChunkFetcher(source, shard_bytes or {}, data_variable, concurrency, index_bytes)
        self.anchor_chunks = ByteLRU(anchor_bytes)
        self._anchors = None if star_delta is None else AnchorCache(self.anchor_chunks, *star_delta, reuse=reuse_anchors)

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The request threads, which other reads of the store (its history array) share."""
        return self.fetcher.pool

    def read(self, level: Level, array: ArrayDocument, steps: list[int], rows: slice, cols: slice, out: np.ndarray | None = None) -> np.ndarray:
        """Stored values (len(steps), [band,] h, w) of `array` over rows x cols of `level`, into `out`
        when given; true values for a star-delta data array."""
        anchors = self._anchors if array is level.data else None
        return assemble(self.fetcher, level, array, steps, rows, cols, anchors, out)

    def close(self) -> None:
        self.fetcher.close()
        self.anchor_chunks.clear()
