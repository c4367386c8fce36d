"""The store's attribute model (spec 3) with parsing at the JSON boundary.

Frozen dataclasses hold the values; `to_dict` emits the JSON a store carries and `from_dict`
parses it, raising ValueError or TypeError that names the offending field and value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DocumentError, FieldTypeError
from ..limits import DATA_TYPES
from .geometry import Level
from .temporal import ENCODINGS, NONE, STAR_DELTA, references_from_json, references_to_json

SPEC_VERSION = "0.2.0"
SUPPORTED_VERSIONS = re.compile(r"^0\.[12](\.\d+)?$")
DTYPES = DATA_TYPES
GAP_FILLS = ("carry-forward", "none")

SENTINEL2_COMMON_NAMES = {
    "B01": "coastal",
    "B02": "blue",
    "B03": "green",
    "B04": "red",
    "B05": "rededge071",
    "B06": "rededge075",
    "B07": "rededge078",
    "B08": "nir",
    "B8A": "nir08",
    "B09": "nir09",
    "B10": "cirrus",
    "B11": "swir16",
    "B12": "swir22",
}


def band_labels(da: Any) -> list[str]:
    """Band names of a (time, band, y, x) xarray array: its band coordinate, else band_1, band_2, ..."""
    if "band" in da.coords:
        return [str(v) for v in np.asarray(da["band"].values)]
    return [f"band_{i + 1}" for i in range(da.sizes["band"])]


def _require(mapping: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in mapping:
        raise DocumentError(f"{where}: missing field {key!r}")
    value = mapping[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise FieldTypeError(f"{where}.{key}: expected {_kind_name(kind)}, got {value!r}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FieldTypeError(f"{where}: expected a finite number, got {value!r}")
    return float(value)


def _optional_text(band: Mapping[str, Any], key: str, name: str) -> str | None:
    value = band.get(key)
    if value is not None and not isinstance(value, str):
        raise FieldTypeError(f"band {name!r} {key}: expected a string, got {value!r}")
    return value


@dataclass(frozen=True)
class Band:
    """One band: stored * scale + offset is the physical value (spec 3.6)."""

    name: str
    common_name: str | None = None
    scale: float = 1.0
    offset: float = 0.0
    units: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise DocumentError(f"band name must be a non-empty string, got {self.name!r}")
        _number(self.scale, f"band {self.name!r} scale")
        _number(self.offset, f"band {self.name!r} offset")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.common_name:
            out["common_name"] = self.common_name
        out["scale"] = float(self.scale)
        out["offset"] = float(self.offset)
        if self.units:
            out["units"] = self.units
        return out

    @classmethod
    def from_dict(cls, value: Any) -> Band:
        """A band object, or a v0.1 band string read as a band with only a name."""
        if isinstance(value, str):
            return cls(name=value)
        if not isinstance(value, Mapping):
            raise FieldTypeError(f"band entry must be an object or a string, got {value!r}")
        name = _require(value, "name", str, "band")
        return cls(
            name=name,
            common_name=_optional_text(value, "common_name", name),
            scale=_number(value.get("scale", 1.0), f"band {name!r} scale"),
            offset=_number(value.get("offset", 0.0), f"band {name!r} offset"),
            units=_optional_text(value, "units", name),
        )

    @classmethod
    def infer(cls, name: str, dtype: str) -> Band:
        """A band from its name alone: Sentinel-2 names get their common name, and as integers
        the L2A reflectance scale 1e-4."""
        common = SENTINEL2_COMMON_NAMES.get(name.upper())
        if common and dtype in ("uint16", "int16"):
            return cls(name=name, common_name=common, scale=1e-4, offset=0.0, units="reflectance")
        return cls(name=name, common_name=common)


@dataclass(frozen=True)
class Provenance:
    """Where the data came from (spec 3.8)."""

    sources: tuple[str, ...]
    composite: str
    gap_fill: str
    notes: str | None = None

    def __post_init__(self) -> None:
        if not self.sources or not all(isinstance(s, str) for s in self.sources):
            raise DocumentError(f"provenance.sources must be a non-empty list of strings, got {self.sources!r}")
        if self.gap_fill not in GAP_FILLS:
            raise DocumentError(f"provenance.gap_fill must be one of {GAP_FILLS}, got {self.gap_fill!r}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sources": list(self.sources), "composite": self.composite, "gap_fill": self.gap_fill}
        if self.notes:
            out["notes"] = self.notes
        return out

    @classmethod
    def from_dict(cls, value: Any) -> Provenance:
        if isinstance(value, Provenance):
            return value
        if not isinstance(value, Mapping):
            raise FieldTypeError(f"provenance must be an object, got {value!r}")
        sources = _require(value, "sources", (list, tuple), "provenance")
        return cls(
            sources=tuple(sources),
            composite=_require(value, "composite", str, "provenance"),
            gap_fill=_require(value, "gap_fill", str, "provenance"),
            notes=value.get("notes"),
        )


@dataclass(frozen=True)
class Selection:
    """How `auto` chose the encoding (spec 4.3)."""

    sampled_cells: int
    ratio: float

    def to_dict(self) -> dict[str, Any]:
        return {"mode": "auto", "sampled_cells": self.sampled_cells, "ratio": round(self.ratio, 4)}


@dataclass(frozen=True)
class Temporal:
    """The temporal block (spec 4.1)."""

    encoding: str = NONE
    anchor_interval: int | None = None
    anchor_indices: tuple[int, ...] = ()
    delta_reference: Mapping[int, int] = field(default_factory=dict)
    selection: Selection | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"encoding": self.encoding}
        if self.encoding == STAR_DELTA:
            out["anchor_interval"] = self.anchor_interval
            out["anchor_indices"] = list(self.anchor_indices)
            out["delta_reference"] = references_to_json(self.delta_reference)
        if self.selection is not None:
            out["selection"] = self.selection.to_dict()
        return out

    @classmethod
    def from_dict(cls, value: Any, legacy: bool = False) -> Temporal:
        """Parse the block; a v0.1 store is star-delta even when it omits the encoding."""
        if not isinstance(value, Mapping):
            raise FieldTypeError(f"chronozarr.temporal must be an object, got {value!r}")
        encoding = value.get("encoding", STAR_DELTA if legacy else None)
        if encoding not in ENCODINGS:
            raise DocumentError(f"unsupported temporal encoding {encoding!r}: expected 'none' or 'star-delta' (spec 4.1)")
        selection = None
        if isinstance(value.get("selection"), Mapping):
            sel = value["selection"]
            selection = Selection(int(sel.get("sampled_cells", 0)), float(sel.get("ratio", 0.0)))
        if encoding == NONE:
            return cls(NONE, selection=selection)
        interval = _require(value, "anchor_interval", int, "chronozarr.temporal")
        anchors = _require(value, "anchor_indices", list, "chronozarr.temporal")
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in anchors):
            raise FieldTypeError(f"chronozarr.temporal.anchor_indices: expected integers, got {anchors!r}")
        references = _require(value, "delta_reference", Mapping, "chronozarr.temporal")
        return cls(STAR_DELTA, interval, tuple(int(a) for a in anchors), references_from_json(references), selection)

    def reference(self, t: int) -> int | None:
        """The anchor a timestep decodes through, or None when it holds true values."""
        if self.encoding == NONE or t in self.anchor_indices:
            return None
        return self.delta_reference[t]


@dataclass(frozen=True)
class LevelMirror:
    """One entry of chronozarr.levels (spec 3.7): what the root says of a level, not a view of
    geometry.Level. The reader takes a level's transform and resolution from it and refuses a
    store whose mirror disagrees with the arrays, and the validator reports each field that
    disagrees, so it holds what was stated (and no chunk size, which the entry lacks); `of` is
    the entry the writer states for a Level."""

    path: str
    resolution: float
    transform: tuple[float, ...]
    shape: tuple[int, int, int, int]
    grid: tuple[int, int]

    @classmethod
    def of(cls, level: Level, n_time: int, n_band: int) -> LevelMirror:
        """The entry the writer records for a level of n_time timesteps of n_band bands."""
        return cls(level.path, level.resolution, level.transform, (n_time, n_band, level.height, level.width), level.grid)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "resolution": float(self.resolution),
            "transform": [float(v) for v in self.transform],
            "shape": list(self.shape),
            "grid": list(self.grid),
        }

    @classmethod
    def from_dict(cls, value: Any) -> LevelMirror:
        if not isinstance(value, Mapping):
            raise FieldTypeError(f"chronozarr.levels entry must be an object, got {value!r}")
        where = "chronozarr.levels[]"
        return cls(
            path=_require(value, "path", str, where),
            resolution=_number(value.get("resolution"), f"{where}.resolution"),
            transform=tuple(_number(v, f"{where}.transform") for v in _require(value, "transform", list, where)),
            # Lengths are not checked here: the reader compares the mirror with the arrays, the
            # validator reports a wrong length by field.
            shape=_extents(_require(value, "shape", list, where), f"{where}.shape"),  # type: ignore[arg-type]
            grid=_extents(_require(value, "grid", list, where), f"{where}.grid"),  # type: ignore[arg-type]
        )


def _extents(values: list[Any], where: str) -> tuple[int, ...]:
    """Sizes along axes: whole numbers from 0 to 2^53 (the largest every JSON reader holds exactly)."""
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v) or not 0 <= v <= 2**53:
            raise DocumentError(f"{where}: expected whole numbers from 0 to 2^53, got {v!r}")
        out.append(int(v))
    return tuple(out)


def check_spec_version(version: Any) -> str:
    """Accept 0.1.x and 0.2.x only (spec 3.2, 10.1)."""
    if not isinstance(version, str) or not SUPPORTED_VERSIONS.match(version):
        raise DocumentError(f"unsupported chronozarr spec_version {version!r}: this reader reads 0.1.x and 0.2.x")
    return version


def crs_code(crs: str) -> int | None:
    """The EPSG code of an 'EPSG:<code>' string, or None."""
    match = re.fullmatch(r"EPSG:(\d+)", crs)
    return int(match.group(1)) if match else None


# Each level's CF grid mapping, for the tools that look for the CRS there (rioxarray, odc-geo,
# titiler.xarray): a 0-d array of this name, named by `grid_mapping` (and `coordinates`, so xarray
# keeps it with the variable) on the data, mask and coverage arrays. Optional: readers ignore it.
GRID_MAPPING = "spatial_ref"
GRID_MAPPING_REFS = {"grid_mapping": GRID_MAPPING, "coordinates": GRID_MAPPING}


def grid_mapping_attrs(crs: str) -> dict[str, Any]:
    """The CF grid-mapping attributes of `crs` as pyproj writes them (crs_wkt, grid_mapping_name, ...)."""
    from pyproj import CRS

    return dict(CRS.from_user_input(crs).to_cf())


def multiscales(level_paths: Sequence[str], crs: str) -> list[dict[str, Any]]:
    """The ndpyramid multiscales attribute, without pixels_per_tile (spec 3.4)."""
    return [
        {
            "datasets": [{"path": p, "crs": crs} for p in level_paths],
            "type": "reduce",
            "metadata": {"method": "block_mean", "version": f"chronozarr {SPEC_VERSION}", "args": []},
        }
    ]
