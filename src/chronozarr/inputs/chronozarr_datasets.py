"""A chronozarr store as the input of encode or append, read through chronozarr.

A plain Zarr reader would take a star-delta store's residuals for values, and would drop the
store's nodata, band objects, mask and coverage; read here, a store re-encodes as what it holds.
"""

from __future__ import annotations

import os

import xarray as xr

from ..errors import InputError, StoreError
from ..format.zarrjson import parse_json
from ..read.dataset import ChronoDataset
from ..store import open_object_store
from .cf import Declared


def chronozarr_level(path: str | os.PathLike[str], group: str | None) -> tuple[str, int] | None:
    """(store location, level) when `path` is a chronozarr store (level `group`, default 0) or one
    of its level groups; None for any other input."""
    location = os.fspath(path).rstrip("/")
    if _is_chronozarr_root(location):
        if group is None or group.isdigit():
            return location, int(group or 0)
        raise InputError(f"{path} is a chronozarr store; --group must be one of its level numbers (0, 1, ...), got {group!r}")
    parent, _, name = location.rpartition("/")
    if group is None and name.isdigit() and parent and _is_chronozarr_root(parent):
        return parent, int(name)
    return None


def _is_chronozarr_root(location: str) -> bool:
    try:
        raw = open_object_store(location).get("zarr.json")
        root = parse_json(raw) if raw is not None else None
    except (StoreError, OSError, ValueError):
        return False
    return isinstance(root, dict) and isinstance(root.get("attributes"), dict) and "chronozarr" in root["attributes"]


def open_dataset_level(location: str, lod: int, chunks: dict[str, int] | None) -> tuple[xr.Dataset, Declared]:
    """One level of a chronozarr store as stored values (star-delta reconstructed) with the store's
    nodata and band objects; `chunks` along time, each chunk a whole timestep."""
    try:
        with ChronoDataset(location) as store:
            declared = Declared(store.nodata, tuple(store.bands))
            levels = len(store.levels)
        if not 0 <= lod < levels:
            raise InputError(f"{location} is a chronozarr store with levels 0..{levels - 1}; there is no level {lod}")
        whole = {**chunks, "band": -1, "y": -1, "x": -1} if chunks else None
        ds = xr.open_dataset(location, engine="chronozarr", lod=lod, physical=False, chunks=whole)
    except StoreError as exc:
        raise InputError(f"cannot read the chronozarr store {location}: {exc}") from None
    return ds, declared

