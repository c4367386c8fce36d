"""`convert`: raster files (listed by a manifest, STAC items or a dated glob), a NetCDF file or a
Zarr store into a new store: the input opened as a series (inputs/open) and written by encode.

It sits above inputs/ and write/, which do not import each other.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .format.geometry import grid_text
from .inputs.casting import require_stored_dtype
from .inputs.composite_summary import period_lines
from .inputs.composites import BAND_OFFSET, BAND_SCALE, CompositePlan, composite_options, follow_store
from .inputs.open import open_series, raster_options
from .read.dataset import ChronoDataset, open_dataset
from .write.append import AppendSummary, append
from .write.encode import EncodeSummary, encode
from .write.preview import EncodePreview


@dataclass(frozen=True)
class Converted:
    """What convert wrote (or would write), and the notes on the input it says and records."""

    result: EncodeSummary | EncodePreview | AppendSummary
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
    `harmonize` is "none" (inputs/composites.py)."""
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
        return Converted(result, notes, composite_lines(opened.report, None if dry_run else out, options.get("storage_options")))


def append_composite(
    store: str | os.PathLike[str],
    source: str | os.PathLike[str],
    *,
    composite: str,
    reducer: str | None = None,
    valid: Sequence[str] = (),
    mask_bits: Sequence[str] = (),
    gap_fill: str | None = None,
    period_start: str | None = None,
    harmonize: str | None = None,
    cast: str | None = None,
    lossy: bool = False,
    storage_options: dict[str, Any] | None = None,
    dry_run: bool = False,
    rasters: dict[str, Any] | None = None,
    **options: Any,
) -> Converted:
    """Append the periods of `source`'s scenes as new timesteps of `store` (a monthly job adding
    its months): composited as convert composites them, on the store's CRS, fixed periods counted
    from the store's first date unless `period_start` says otherwise, and a carry-forward gap fill
    carrying the store's last timestep into the first new period. A reducer or gap fill not given
    is the store's (its provenance), and a definition other than the store's is refused. `rasters`
    are convert's raster options (grid, resolution, resampling, assets, ...); `options` are append's."""
    planned = composite_options(composite, reducer, valid, mask_bits, gap_fill, period_start, harmonize)
    assert planned is not None
    with open_dataset(os.fspath(store), **(storage_options or {})) as stored:
        level = stored.level(0)
        grid = f"on the store's grid: {grid_text(level.width, level.height, stored.level_attrs(0)['transform'], stored.crs or 'no CRS')}"
        provenance = stored.root_attrs.get("chronozarr", {}).get("provenance")
        planned = follow_store(planned, provenance, reducer is not None, gap_fill is not None)
        if planned.period.kind == "days" and planned.period_start is None:
            planned = replace(planned, period_start=np.datetime64(stored.times[0], "D").astype("datetime64[ns]"))
        on_04 = all(math.isclose(b.scale, BAND_SCALE) and math.isclose(b.offset, BAND_OFFSET) for b in stored.bands)
        planned = replace(planned, store_offset=on_04)
        if planned.gap_fill == "carry-forward":
            planned = replace(planned, carried_in=_last_timestep(stored))
        chosen = dict(rasters or {})
        chosen["crs"] = chosen.get("crs") or stored.crs
        with open_series(source, cast=cast, rasters=raster_options(**chosen, composite=planned), lossy=lossy) as opened:
            if cast is None:
                require_stored_dtype(str(opened.data.dtype))
            summary = append(store, opened.data, **opened.encode_arguments(), storage_options=storage_options, dry_run=dry_run, **options)
            lines = composite_lines(opened.report, None if dry_run else store, storage_options, summary.n_time - summary.added)
            return Converted(summary, opened.notes, (*lines, grid) if dry_run else lines)


def _last_timestep(stored: ChronoDataset) -> Any:
    """(rows, cols) -> (values, valid) of the store's last timestep: what a carry-forward carries in."""
    last = len(stored.times) - 1

    def window(rows: range, cols: range) -> tuple[Any, Any]:
        span = (slice(rows.start, rows.stop), slice(cols.start, cols.stop))
        values = stored.read(last, window=span)
        mask = stored.read_mask(last, window=span)
        return values, np.broadcast_to(stored.validity(values, mask), values.shape).all(axis=0)

    return window


def composite_lines(plan: CompositePlan | None, written: str | os.PathLike[str] | None, storage_options: dict[str, Any] | None = None,
                    first: int = 0) -> tuple[str, ...]:
    """A composite's periods and scenes (a dry run: `written` None), or per period what the store
    `written` holds from timestep `first` on, counted from its mask and coverage (so a resumed or
    cluster run says what a local one says)."""
    if plan is None:
        return ()
    if written is None:
        return tuple(plan.lines())
    with open_dataset(os.fspath(written), **(storage_options or {})) as stored:
        lines = period_lines(stored, [len(p) for p in plan.periods], first)
    return ("periods written (scenes, valid pixels, gap-filled pixels):", *lines)
