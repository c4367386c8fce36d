"""Everything decided before the first object is written: geometry, encoding, layout."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..format.codecs import CodecSpec
from ..format.geometry import Level, cell_key, shard_id, time_shard
from ..format.history import history_mask_path, history_path
from ..format.root_block import VOLATILITY_PATH
from ..format.temporal import NONE, STAR_DELTA, anchor_indices, nearest_references

if TYPE_CHECKING:
    from .output import Output
    from .sample import Sample


@dataclass(frozen=True)
class Schedule:
    """Anchors and references: recorded ones for star-delta, the nominal ones volatility uses for none."""

    anchor_interval: int
    anchors: tuple[int, ...]
    references: dict[int, int]

    @classmethod
    def nearest(cls, n_time: int, anchor_interval: int) -> Schedule:
        anchors = anchor_indices(n_time, anchor_interval)
        return cls(anchor_interval, tuple(anchors), nearest_references(range(n_time), anchors))

    def referrers(self) -> dict[int, list[int]]:
        """Timesteps that reference each anchor."""
        out: dict[int, list[int]] = {a: [] for a in self.anchors}
        for t, a in self.references.items():
            out[a].append(t)
        return out


@dataclass(frozen=True)
class Plan:
    """The layout of one store about to be written, and where it goes."""

    output: Output
    variable: str
    dtype: str
    shape: tuple[int, int, int, int]
    levels: tuple[Level, ...]
    codec: CodecSpec
    nodata: float | int | None
    encoding: str
    schedule: Schedule
    shard_time: int | None
    has_mask: bool
    has_coverage: bool
    workers: int = 2
    sample: Sample | None = field(default=None)
    selection: tuple[int, float] | None = None  # auto's (sampled cells, ratio), recorded in temporal

    @property
    def n_time(self) -> int:
        return self.shape[0]

    @property
    def n_band(self) -> int:
        return self.shape[1]

    @property
    def fill(self) -> float | int:
        return 0 if self.nodata is None else self.nodata

    @property
    def chunk_size(self) -> int:
        return self.levels[0].chunk_size

    @property
    def sharded(self) -> bool:
        return self.shard_time is not None

    @property
    def plane_variables(self) -> list[str]:
        """The (time, y, x) arrays beside the data array."""
        return [name for name, present in (("mask", self.has_mask), ("coverage", self.has_coverage)) if present]

    def storage_reference(self, t: int) -> int | None:
        """The anchor timestep t is stored against, or None when it is stored as true values."""
        if self.encoding != STAR_DELTA:
            return None
        return self.schedule.references.get(t)

    def volatility_reference(self, t: int) -> int | None:
        """The reference volatility differences t against (nominal schedule under none, spec 5)."""
        return self.schedule.references.get(t)

    def root_members(self) -> tuple[str, ...]:
        """The names at the store's root an encode of this plan may write (the writer's own
        scratch entry aside): all a failed run removes again, so nothing else there is touched."""
        histories = (path(level.index) for level in self.levels for path in (history_path, history_mask_path))
        return ("zarr.json", VOLATILITY_PATH, *histories, *(level.path for level in self.levels))

    def timestep_key(self, level: Level, variable: str, t: int, row: int, col: int) -> str:
        """Key of the object holding timestep t of a cell: its chunk, or its time shard."""
        index = time_shard(t, self.shard_time)[0] if self.shard_time is not None else t
        return cell_key(f"{level.path}/{variable}", index, row, col, has_band=variable == self.variable)

    def shard_bytes_id(self, t: int, row: int, col: int) -> str:
        """The shard_bytes entry of the time shard holding t (spec 7.3): "<t_shard>/<row>/<col>"."""
        assert self.shard_time is not None
        return shard_id(time_shard(t, self.shard_time)[0], row, col)

    def time_shards(self) -> list[tuple[int, int]]:
        """[start, stop) timesteps of each time shard (one range when unsharded)."""
        size = self.shard_time
        if size is None:
            return [(0, self.n_time)]
        return [(i * size, min((i + 1) * size, self.n_time)) for i in range(math.ceil(self.n_time / size))]


__all__ = ["NONE", "STAR_DELTA", "Plan", "Schedule"]
