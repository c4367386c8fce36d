"""The raster inputs of convert, whatever listed them (a manifest, STAC items, dated file names):
timesteps of scenes, a scene being the files that give one image's bands.

A manifest row is one scene of one multi-band file; a STAC item is one scene of one file per asset;
with `--group-by day` a timestep holds several scenes, mosaicked in the order given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class BandHints:
    """What a listing says of an asset's band beyond the file: STAC raster:bands and eo:bands."""

    name: str | None = None
    common_name: str | None = None
    nodata: float | int | None = None
    has_nodata: bool = False
    scale: float | None = None
    offset: float | None = None
    units: str | None = None


@dataclass(frozen=True)
class Asset:
    """One file of a scene: all its data bands, or (STAC) its one band with `hints`."""

    uri: str
    hints: BandHints | None = None


@dataclass(frozen=True)
class Scene:
    """The files that give one image's bands, in band order, and how its lister names it."""

    assets: tuple[Asset, ...]
    label: str
    masks: tuple[Asset, ...] = ()  # a composite's mask assets (SCL, QA_PIXEL): read to judge, never stored


@dataclass(frozen=True)
class Timestep:
    """One date of the series: its scenes in mosaic order (the first valid pixel wins)."""

    datetime: np.datetime64
    scenes: tuple[Scene, ...]


@dataclass(frozen=True)
class Acquisition:
    """One scene at its own date, with what its listing says of it: the observations a composite
    groups into periods. `boa_offset` is Sentinel-2's: True when the item's values carry the
    -1000 DN offset of processing baseline 04.00, False when not, None when the item does not say."""

    datetime: np.datetime64
    scene: Scene
    collection: str | None = None
    platform: str | None = None
    sentinel2: bool = False
    boa_offset: bool | None = None


def uris(timesteps: Sequence[Timestep], masks: bool = False) -> list[str]:
    """Every file once, in order of first use; with `masks`, the scenes' mask files instead."""
    return list(dict.fromkeys(a.uri for t in timesteps for s in t.scenes for a in (s.masks if masks else s.assets)))


def without(timesteps: Sequence[Timestep], skipped: set[str]) -> list[Timestep]:
    """The timesteps without the scenes that use a skipped file (a band's or a mask's); a timestep
    left empty is dropped."""
    kept = []
    for step in timesteps:
        scenes = tuple(s for s in step.scenes if not any(a.uri in skipped for a in (*s.assets, *s.masks)))
        if scenes:
            kept.append(replace(step, scenes=scenes))
    if not kept:
        raise InputError(f"every file was skipped as unreadable ({len(skipped)} files); nothing is left to convert")
    return kept


def one_per_date(timesteps: Sequence[Timestep], fix: str) -> None:
    """Refuse two timesteps with one date, naming both; `fix` says how to resolve it."""
    for before, after in zip(timesteps, timesteps[1:], strict=False):
        if before.datetime == after.datetime:
            raise InputError(
                f"{before.scenes[0].label} and {after.scenes[0].label} have the same date "
                f"{before.datetime.astype('datetime64[s]')}; a store has one timestep per date, {fix}"
            )
