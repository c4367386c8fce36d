"""Raster files matched by a glob, each dated by its name: `scenes/*.tif` with names such as
`2024-03-01.tif`, `S2_20240301.tif` or `LC08_..._20240301T101530.tif`.

A name holds an ISO date (2024-03-01, optionally with a time) or a compact YYYYMMDD (optionally
THHMMSS) standing apart from other digits. A name with no date, or with two different ones
(Landsat and Sentinel names carry the processing date too), is an error naming the file; then
`--date-format` says where the date is: strftime codes (%Y %m %d %j %H %M %S %y) with literal text
around them, and `*` for any text, e.g. `L2SP_*_%Y%m%d_*`.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from ..errors import InputError
from .scenes import Asset, Scene, Timestep, one_per_date

GLOB_CHARACTERS = "*?["
_ISO = r"(?<!\d)(?P<Y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:T(?P<H>\d{2}):?(?P<M>\d{2})(?::?(?P<S>\d{2}))?)?(?!\d)"
_COMPACT = r"(?<!\d)(?P<Y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?:T(?P<H>\d{2})(?P<M>\d{2})(?P<S>\d{2}))?(?!\d)"
_CODES = {"Y": r"\d{4}", "y": r"\d{2}", "m": r"\d{2}", "d": r"\d{2}", "j": r"\d{3}", "H": r"\d{2}", "M": r"\d{2}", "S": r"\d{2}"}


def is_glob(location: str) -> bool:
    """True for a pattern of files (with *, ? or [) that is not itself an existing path."""
    return any(c in location for c in GLOB_CHARACTERS) and not os.path.exists(location)


def dated_timesteps(pattern: str, date_format: str | None = None, masks: Sequence[str] = ()) -> list[Timestep]:
    """The files `pattern` matches, one timestep each, dated by their names, in date order; with
    `masks` (a composite's mask asset keys) each file's mask is its sibling `<name>_<key><ext>`."""
    paths = sorted(glob.glob(os.path.expanduser(pattern)))
    paths = [p for p in paths if os.path.isfile(p)]
    if not paths:
        raise InputError(f"no file matches {pattern!r}; check the pattern (quote it so the shell leaves it to chronozarr)")
    folders: dict[str, dict[str, str]] = {}
    siblings = {path: tuple(mask_sibling(path, key, folders) for key in masks) for path in paths}
    paths = [p for p in paths if not any(p in found for found in siblings.values())]  # a mask the glob matched too
    matcher = _format_pattern(date_format) if date_format else None
    steps = []
    for path in paths:
        stamp = _date_in(os.path.basename(path), path, matcher, date_format)
        found = siblings[path]
        for key, sibling in zip(masks, found, strict=True):
            if not os.path.isfile(sibling):
                raise InputError(f"{path} has no mask file {os.path.basename(sibling)} beside it; --valid and --mask-bits read a dated "
                                 f"file's {key} mask from the sibling named <name>_{key}<ext>: add it, or list the scenes in a manifest")
        steps.append(Timestep(stamp, (Scene((Asset(path),), path, tuple(Asset(m) for m in found)),)))
    steps.sort(key=lambda step: step.datetime)
    one_per_date(steps, "give each date one file, or point --date-format at the date that differs")
    return steps


def mask_sibling(path: str, key: str, folders: dict[str, dict[str, str]]) -> str:
    """The file beside `path` named as it is plus `_<key>` before the extension, found whatever
    the case of the name (Landsat writes _QA_PIXEL.TIF); the expected path when there is none.
    `folders` keeps each folder's names by their lower-case form, listed once."""
    folder, name = os.path.split(path)
    stem, ext = os.path.splitext(name)
    wanted = f"{stem}_{key}{ext}"
    if folder not in folders:
        try:
            folders[folder] = {n.lower(): n for n in sorted(os.listdir(folder or "."), reverse=True)}
        except OSError:
            folders[folder] = {}
    return os.path.join(folder, folders[folder].get(wanted.lower(), wanted))


def _date_in(name: str, path: str, matcher: re.Pattern[str] | None, date_format: str | None) -> np.datetime64:
    patterns = [matcher] if matcher is not None else [re.compile(_ISO), re.compile(_COMPACT)]
    found: dict[datetime, str] = {}
    for pattern in patterns:
        for match in pattern.finditer(name):
            stamp = _stamp(match)
            if stamp is not None:
                found.setdefault(stamp, match.group(0))
    if len(found) == 1:
        return np.datetime64(next(iter(found)), "ns")
    example = "--date-format '*_%Y%m%d_*'"
    if not found:
        what = f"holds no date matching --date-format {date_format!r}" if matcher else "holds no date (ISO 2024-03-01 or YYYYMMDD)"
        raise InputError(f"{path}: its name {what}; rename it, or say where the date is with --date-format (e.g. {example})")
    dates = " and ".join(sorted(found.values()))
    how = "make --date-format match one of them (add the text around it)" if matcher else f"say which is the date with --date-format (e.g. {example})"
    raise InputError(f"{path}: its name holds two dates ({dates}); {how}")


def _stamp(match: re.Match[str]) -> datetime | None:
    """The datetime of a match, None when its digits are no date (month 13, day 32)."""
    parts = {k: int(v) for k, v in match.groupdict().items() if v is not None}
    year = parts.get("Y", 2000 + parts["y"] if "y" in parts else None)
    if year is None:
        return None
    try:
        if "j" in parts:
            day = datetime(year, 1, 1) + timedelta(days=parts["j"] - 1)
            if day.year != year:
                return None
            return day.replace(hour=parts.get("H", 0), minute=parts.get("M", 0), second=parts.get("S", 0))
        return datetime(year, parts.get("m", 1), parts.get("d", 1), parts.get("H", 0), parts.get("M", 0), parts.get("S", 0))
    except ValueError:
        return None


def _format_pattern(date_format: str) -> re.Pattern[str]:
    """The regular expression of a --date-format: strftime codes as digits, `*` as any text."""
    out, i, seen = [], 0, set()
    while i < len(date_format):
        char = date_format[i]
        if char == "%" and i + 1 < len(date_format):
            code = date_format[i + 1]
            if code not in _CODES or code in seen:
                raise InputError(
                    f"--date-format {date_format!r}: %{code} is {'repeated' if code in seen else 'not supported'}; "
                    f"use each of {' '.join('%' + c for c in _CODES)} at most once"
                )
            seen.add(code)
            out.append(f"(?P<{code}>{_CODES[code]})")
            i += 2
            continue
        out.append(".*?" if char == "*" else re.escape(char))
        i += 1
    if not seen & {"Y", "y"}:
        raise InputError(f"--date-format {date_format!r} has no year (%Y or %y); give the whole date, e.g. %Y%m%d")
    # Digits a code reads stand apart from other digits unless the format's own text bounds them.
    before = r"(?<!\d)" if date_format.startswith("%") else ""
    after = r"(?!\d)" if re.search(r"%[A-Za-z]$", date_format) else ""
    return re.compile(before + "".join(out) + after)
