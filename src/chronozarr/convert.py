"""`convert`: raster files (listed by a manifest, STAC items or a dated glob), a NetCDF file or a
Zarr store into a new store: the input opened as a series (io/inputs) and written by encode.

It sits above io/ and write/, which do not import each other.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .io.casting import require_stored_dtype
from .io.composites import composite_options
from .io.inputs import open_series, raster_options
from .write.encode import EncodeSummary, encode
from .write.preview import EncodePreview


@dataclass(frozen=True)
class Converted:
    """What convert wrote (or would write), and the notes on the input it says and records."""

    result: EncodeSummary | EncodePreview
    notes: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()  # a composite's: the periods planned (dry run) or what each held

    def __str__(self) -> str:
        return "\n".join([str(self.result), *self.periods, *(f"note: {n}" for n in self.notes)])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.result, name)


def convert(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    crs: Any = None,
    bounds: Any = None,
    cast: str | None = None,
    grid: str | None = None,
    resolution: float | None = None,
    resampling: str | None = None,
    assets: Sequence[str] | None = None,
    group_by: str | None = None,
    date_format: str | None = None,
    skip_unreadable: bool = False,
    tap: bool = False,
    lossy: bool = False,
    source_options: dict[str, Any] | None = None,
    dry_run: bool = False,
    composite: str | None = None,
    reducer: str | None = None,
    valid: Sequence[str] = (),
    mask_bits: Sequence[str] = (),
    gap_fill: str | None = None,
    period_start: str | None = None,
    harmonize: str | None = None,
    **options: Any,
) -> Converted:
    """Write the series `source` names as a new store at `out` (or, with `dry_run`, say what would
    be written). `options` are encode's (a `provenance` gains the input's notes). For raster files:
    `crs` states their CRS, `bounds` places files without georeferencing (or, with a grid, is its
    extent), `grid` ("first", "union" or an EPSG code), `resolution`, `tap` and `resampling` put them on one grid,
    `assets` and `group_by` read STAC items, `date_format` dates a glob's files, and
    `skip_unreadable` leaves out files GDAL cannot read. `source_options` are open_input_dataset's for
    NetCDF and Zarr (variable, variables, mask_variable, coverage_variable, group). Without `cast`
    the data must already have a dtype a store holds; a float `cast` that changes values needs `lossy`.

    `composite` ("month", "16D", ...) makes each period one timestep, its scenes reduced per pixel
    by `reducer` over the observations `valid` ("scl:4,5,6,7,11") and `mask_bits`
    ("qa_pixel:cloud,shadow") allow, gaps filled by `gap_fill` ("none", "carry-forward"), fixed
    periods counted from `period_start`, Sentinel-2 baselines put on one convention unless
    `harmonize` is "none" (io/composites.py)."""
    planned = composite_options(composite, reducer, valid, mask_bits, gap_fill, period_start, harmonize)
    rasters = raster_options(
        crs=crs, bounds=bounds, grid=grid, resolution=resolution, resampling=resampling, assets=assets,
        group_by=group_by, date_format=date_format, skip_unreadable=skip_unreadable, tap=tap, composite=planned,
    )
    with open_series(source, cast=cast, rasters=rasters, lossy=lossy, **(source_options or {})) as opened:
        if cast is None:
            require_stored_dtype(str(opened.data.dtype))
        arguments = opened.encode_arguments() | options | {"provenance": opened.provenance(options.get("provenance"))}
        said = opened.pixel_sentence()
        notes = opened.notes if said in opened.notes else (*opened.notes, said)  # said always, recorded when lossy
        result = encode(opened.data, out, **arguments, dry_run=dry_run)
        return Converted(result, notes, composite_lines(opened.report, dry_run))


def composite_lines(report: Any, dry_run: bool) -> tuple[str, ...]:
    """A composite's periods and scenes (dry run), or per period what was written."""
    if report is None:
        return ()
    plan, reads = report
    if dry_run:
        return tuple(plan.lines())
    return ("periods written (scenes, valid pixels, gap-filled pixels):", *reads.period_lines())
