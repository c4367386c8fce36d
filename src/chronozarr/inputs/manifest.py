"""A manifest: the raster files of a series, one per date, listed in CSV or JSON.

CSV has a header with `uri` and `datetime` columns and an optional `bands` column. JSON is a list
of {uri, datetime, bands?} objects, or an object {items: [...], bounds?: [west, south, east, north]}.
A composite's mask files are further columns (keys) named after their assets, e.g. `scl`.
Rows are sorted by date here, so a manifest may list them in any order; two rows with one date are
an error, because a store has one timestep per date.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..errors import InputError
from ..format.zarrjson import parse_json
from .listing import fetch_text, gdal_path, suffix

MANIFEST_SUFFIXES = (".csv", ".json")
_NAME_SEPARATORS = re.compile(r"[,;|]")


@dataclass(frozen=True)
class Item:
    """One file of the series: where GDAL reads it, its date, and the band names it gives, if any."""

    uri: str
    datetime: np.datetime64
    bands: tuple[str, ...] | None
    row: str  # how the manifest's author finds it again: "row 3" (CSV) or "item 2" (JSON)
    others: tuple[tuple[str, str], ...] = ()  # the other columns (lower-case names): a composite's masks among them


@dataclass(frozen=True)
class Manifest:
    """The items in date order, the band names they give and the extent the manifest gives, if any."""

    path: str
    items: tuple[Item, ...]
    bounds: tuple[float, float, float, float] | None = None

    @property
    def bands(self) -> tuple[str, ...] | None:
        """The band names the rows give; rows that give names must give the same ones."""
        named = [item for item in self.items if item.bands is not None]
        for item in named[1:]:
            if item.bands != named[0].bands:
                raise InputError(
                    f"manifest {self.path}: {named[0].row} names the bands {', '.join(named[0].bands or ())} but "
                    f"{item.row} names {', '.join(item.bands or ())}; a store has one list of bands, give the same "
                    "names on every row (or on none)"
                )
        return named[0].bands if named else None

    def mask_uris(self, keys: Sequence[str]) -> list[tuple[str, ...]]:
        """Each item's mask files for a composite's mask asset `keys` (--valid scl:..., --mask-bits
        qa_pixel:...): the column named after each key, read as `uri` is (relative to the manifest)."""
        out = []
        for item in self.items:
            columns = dict(item.others)
            found = []
            for key in keys:
                value = columns.get(key.lower(), "").strip()
                if not value:
                    raise InputError(
                        f"manifest {self.path}: {item.row} names no {key} mask; a composite reads each scene's mask from the "
                        f"column named after its asset (a header such as uri,datetime,{key.lower()}), so give every row one"
                    )
                found.append(gdal_path(value, self.path))
            out.append(tuple(found))
        return out


def is_manifest(path: str | os.PathLike[str]) -> bool:
    """True for a .csv or .json file or URL (a Zarr store is a directory, a NetCDF file ends otherwise)."""
    text = os.fspath(path)
    return suffix(text) in MANIFEST_SUFFIXES and not os.path.isdir(text)


def read_manifest(path: str | os.PathLike[str]) -> Manifest:
    """The manifest at `path` (a file or an http(s) URL) with URIs resolved and rows in date order;
    raises InputError naming the row."""
    where = os.fspath(path)
    text = fetch_text(where, "manifest")
    return manifest_of(text, where)


def manifest_of(text: str, where: str) -> Manifest:
    """The manifest in `text`, read from `where` (which relative URIs are read against)."""
    if suffix(where) == ".json":
        rows, bounds = _json_rows(text, where)
    else:
        rows, bounds = _csv_rows(text, where), None
    if not rows:
        raise InputError(f"manifest {where} lists no files; add one row per date with a uri and a datetime")
    items = sorted((_item(row, label, where) for label, row in rows), key=lambda item: item.datetime)
    for before, after in zip(items, items[1:], strict=False):
        if before.datetime == after.datetime:
            raise InputError(
                f"manifest {where}: {before.row} ({before.uri}) and {after.row} ({after.uri}) have the same "
                f"date {before.datetime.astype('datetime64[s]')}; a store has one file per date, remove one of them"
            )
    return Manifest(where, tuple(items), bounds)


def _csv_rows(text: str, where: str) -> list[tuple[str, Mapping[str, Any]]]:
    reader = csv.DictReader(text.splitlines())
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    missing = [c for c in ("uri", "datetime") if c not in columns]
    if missing:
        raise InputError(
            f"manifest {where} has no {' and no '.join(missing)} column; its first line must be a header "
            "such as uri,datetime (optionally ,bands)"
        )
    rows: list[tuple[str, Mapping[str, Any]]] = []
    for number, row in enumerate(reader, start=2):  # line 1 is the header
        cleaned = {str(k).strip().lower(): v for k, v in row.items() if k is not None}
        if any((v or "").strip() for v in cleaned.values()):
            rows.append((f"line {number}", cleaned))
    return rows


def _json_rows(text: str, where: str) -> tuple[list[tuple[str, Mapping[str, Any]]], tuple[float, float, float, float] | None]:
    try:
        value = parse_json(text)
    except ValueError as exc:
        raise InputError(f"manifest {where} {exc}") from None
    bounds = None
    if isinstance(value, Mapping):
        if "bounds" in value:
            bounds = parse_bounds(value["bounds"], f"manifest {where} bounds")
        value = value.get("items")
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise InputError(
            f"manifest {where} must hold a list of {{\"uri\", \"datetime\"}} objects, or an object with such a "
            "list under \"items\""
        )
    return [(f"item {i}", item) for i, item in enumerate(value)], bounds


def _item(row: Mapping[str, Any], label: str, where: str) -> Item:
    uri = str(row.get("uri") or "").strip()
    if not uri:
        raise InputError(f"manifest {where}: {label} has no uri")
    stamp = row.get("datetime")
    others = tuple((str(k).strip().lower(), str(v)) for k, v in row.items() if str(k).strip().lower() not in ("uri", "datetime", "bands") and v is not None)
    return Item(gdal_path(uri, where), _date(stamp, label, where), _band_names(row.get("bands"), label, where), label, others)


def _date(value: Any, label: str, where: str) -> np.datetime64:
    """An ISO 8601 date or datetime; one with a time zone is converted to UTC, which the store records."""
    text = str(value or "").strip()
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"manifest {where}: {label} has the datetime {text!r}, which is not an ISO date or datetime; "
            "write it as 2024-03-01 or 2024-03-01T10:30:00Z"
        ) from None
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(UTC).replace(tzinfo=None)
    return np.datetime64(stamp, "ns")


def _band_names(value: Any, label: str, where: str) -> tuple[str, ...] | None:
    """Names from a list, or one text with names separated by commas, semicolons or bars."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    names = value if isinstance(value, Sequence) and not isinstance(value, str) else _NAME_SEPARATORS.split(str(value))
    cleaned = tuple(str(n).strip() for n in names)
    if not all(cleaned):
        raise InputError(f"manifest {where}: {label} has an empty band name in {value!r}")
    return cleaned


def parse_bounds(value: Any, where: str) -> tuple[float, float, float, float]:
    """(west, south, east, north) from four numbers or the text 'west,south,east,north'."""
    parts = value.split(",") if isinstance(value, str) else value
    try:
        west, south, east, north = (float(v) for v in parts)
    except (TypeError, ValueError):
        raise InputError(f"{where} must be four numbers west,south,east,north, got {value!r}") from None
    if not (west < east and south < north):
        raise InputError(
            f"{where} {value!r}: west must be less than east and south less than north (the order is "
            "west,south,east,north)"
        )
    return west, south, east, north
