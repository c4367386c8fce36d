"""Any input of encode, append or convert opened as one lazy (time, band, y, x) series: raster
files (listed by a manifest, STAC items or a dated glob) on one grid, else a NetCDF file or Zarr
store through `open_input_dataset`.

Raster files become a series that reads only the windows the writer asks for; what the files and
listings declare (nodata, scale and offset, band names, an alpha band) becomes the store's. What was
matched, replaced, warped or skipped on the way is kept as notes for the summary and provenance.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import InputError, Unreadable
from ..format.geometry import size_text
from ..progress import StepCounts
from .casting import cast_counted, check_lossy
from .composites import CompositePlan, acquisitions_of, check_as_delivered, composite_arrays, plain_hints, plan_periods, sources_of
from .datasets import SERIES_DIMS, Source, open_input_dataset
from .dated_files import dated_timesteps
from .frames import FrameReads, OpenFiles, RasterFrames, ReadCache, lazy_array
from .grid import WarpOptions
from .input_formats import DATED_FILES, LISTING, InputFormat, input_format
from .listing import fetch_text, suffix
from .manifest import manifest_of, parse_bounds
from .raster_series import RasterSeries, check_series
from .rasters import Raster, read_headers
from .scenes import Asset, Scene, Timestep, uris, without
from .stac_items import is_item_collection, stac_acquisitions, stac_timesteps


@dataclass(frozen=True)
class RasterOptions:
    """How raster files are read: --crs, --bounds, the target grid, STAC and glob choices."""

    crs: Any = None
    bounds: Any = None
    warp: WarpOptions = WarpOptions()
    assets: Sequence[str] | None = None
    group_by: str | None = None
    date_format: str | None = None
    skip_unreadable: bool = False
    composite: Any = None  # CompositeOptions: the scenes reduced per period (inputs/composites.py)


def raster_options(
    crs: Any = None, bounds: Any = None, grid: str | None = None, resolution: float | None = None,
    resampling: str | None = None, assets: Sequence[str] | None = None, group_by: str | None = None,
    date_format: str | None = None, skip_unreadable: bool = False, tap: bool = False, composite: Any = None,
) -> RasterOptions:
    """The reading options of raster files, from convert's keyword arguments."""
    warp = WarpOptions(grid=grid, resolution=resolution, resampling=resampling, tap=tap)
    return RasterOptions(crs, bounds, warp, assets, group_by, date_format, skip_unreadable, composite)


def open_raster_glob(
    pattern: str, *, crs: Any, cast: str | None, rasters: Mapping[str, Any], refused: Sequence[str] = (), lossy: bool = False,
) -> Source:
    """The dated files `pattern` matches as a series (encode's glob input); `refused` names
    options given that select NetCDF or Zarr variables."""
    if refused:
        raise InputError(f"{', '.join(refused)} select variables of a NetCDF file or Zarr store; raster files have none")
    return open_series(pattern, cast=cast, rasters=raster_options(crs=crs, **rasters), lossy=lossy)


def open_series(
    source: str | os.PathLike[str], *, cast: str | None = None, rasters: RasterOptions = RasterOptions(), lossy: bool = False, **source_options: Any,
) -> Source:
    """Raster files (a manifest .csv or .json, STAC items, a glob), else a NetCDF file or Zarr store."""
    location = os.fspath(source)
    found = input_format(location)
    listed = _listed(location, found, rasters)
    if listed is None:
        if rasters.composite is not None:
            raise InputError(f"--composite reduces scenes (STAC items, a manifest or a glob of dated rasters) per period; {location} is a "
                             "series already: reduce it with xarray (e.g. .resample(time='1MS').median()) and encode that")
        chosen = _raster_choices(rasters)
        if chosen:
            raise InputError(f"{chosen[0]} applies to raster files (a manifest, STAC items or a glob); a NetCDF file or Zarr store has its own grid")
        return open_input_dataset(source, crs=rasters.crs, cast=cast, lossy=lossy, **source_options)
    given = sorted(k for k, v in source_options.items() if v is not None)
    if given:
        options = ", ".join("--" + k.replace("_", "-") for k in given)
        raise InputError(f"{options} select variables of a NetCDF file or Zarr store; raster files have none")
    timesteps, names, extent, plan = listed
    return open_rasters(timesteps, location, cast=cast, rasters=rasters, names=names, extent=extent, lossy=lossy, plan=plan)


def _listed(location: str, found: InputFormat | None, rasters: RasterOptions) -> tuple[list[Timestep], Any, Any, CompositePlan | None] | None:
    """(timesteps, band names, extent, composite plan) of the raster files `location` names, None for a dataset."""
    if rasters.date_format is not None and found is not DATED_FILES:
        raise InputError("--date-format reads dates from file names matched by a glob such as 'scenes/*.tif'")
    masks = tuple(r.asset for r in rasters.composite.rules) if rasters.composite is not None else ()
    if found is DATED_FILES:
        return _composited(dated_timesteps(location, rasters.date_format, masks), None, None, rasters)
    if found is not LISTING:
        return None
    text = fetch_text(location, "manifest")
    if suffix(location) == ".json" and is_item_collection(text) and rasters.composite is not None:
        if rasters.group_by is not None:
            raise InputError("--group-by day mosaics the items of a day; --composite groups them into periods itself, give one of them")
        return _planned(stac_acquisitions(text, location, rasters.assets, masks), rasters.composite, None, None)
    if suffix(location) == ".json" and is_item_collection(text):
        return stac_timesteps(text, location, rasters.assets, rasters.group_by), None, None, None
    if rasters.assets is not None or rasters.group_by is not None:
        raise InputError(f"--assets and --group-by choose from STAC items; {location} is a manifest of files")
    manifest = manifest_of(text, location)
    steps = [Timestep(item.datetime, (Scene((Asset(item.uri),), f"{item.row} ({item.uri})", tuple(Asset(m) for m in found)),))
             for item, found in zip(manifest.items, manifest.mask_uris(masks), strict=True)]
    return _composited(steps, manifest.bands, manifest.bounds, rasters)


def _composited(steps: list[Timestep], names: Any, extent: Any, rasters: RasterOptions) -> tuple[list[Timestep], Any, Any, CompositePlan | None]:
    """Dated files or manifest rows as they are, or, with --composite, grouped into periods."""
    if rasters.composite is None:
        return steps, names, extent, None
    return _planned(acquisitions_of(steps), rasters.composite, names, extent)


def _planned(acquisitions: Any, options: Any, names: Any, extent: Any) -> tuple[list[Timestep], Any, Any, CompositePlan]:
    plan = plan_periods(acquisitions, options)
    check_as_delivered(acquisitions, options)
    if plan.offset_bands:  # the listing's scale and offset differ by baseline; the store takes one for all
        plan = plan_periods(plain_hints(acquisitions), options)
    return plan.timesteps, names, extent, plan


def _raster_choices(rasters: RasterOptions) -> list[str]:
    chosen = {"--bounds": rasters.bounds, "--grid": rasters.warp.grid, "--resolution": rasters.warp.resolution, "--resampling": rasters.warp.resampling,
              "--tap": rasters.warp.tap or None,
              "--assets": rasters.assets, "--group-by": rasters.group_by, "--skip-unreadable": rasters.skip_unreadable or None}
    return [name for name, value in chosen.items() if value is not None]


def open_rasters(
    timesteps: list[Timestep], location: str, *, cast: str | None, rasters: RasterOptions, names: Any = None, extent: Any = None,
    lossy: bool = False, plan: CompositePlan | None = None,
) -> Source:
    """The timesteps' files as a lazy series on one grid, checked against each other; with a
    composite `plan`, each timestep is a period whose scenes are reduced per pixel."""
    check_lossy(cast, lossy)
    if rasters.bounds is not None and extent is not None:
        raise InputError(f"the extent is given twice, by --bounds and by the bounds of {location}; give it once")
    given = parse_bounds(rasters.bounds, "--bounds") if rasters.bounds is not None else None
    warp = replace(rasters.warp, bounds=given) if rasters.warp.active else rasters.warp
    headers, skipped = _headers(timesteps, rasters.skip_unreadable)
    if skipped:
        timesteps = without(timesteps, set(skipped))
        plan = plan.without(timesteps) if plan is not None else None
        timesteps = plan.timesteps if plan is not None else timesteps
    placed_by = None if warp.active else (given or extent)
    series = check_series(timesteps, headers, rasters.crs, placed_by, names, warp)
    return _source(series, location, cast, skipped, lossy, plan)


def _headers(timesteps: list[Timestep], skip: bool) -> tuple[dict[str, Raster], list[str]]:
    """The headers of the scenes' band files, and the files (bands' or a composite's masks') that
    cannot be read; those are an error unless `skip`."""
    found = dict(zip(uris(timesteps), read_headers(uris(timesteps)), strict=False))
    masks = uris(timesteps, masks=True)
    judged = found | dict(zip(masks, read_headers(masks), strict=False)) if masks else found
    unreadable = [uri for uri, header in judged.items() if isinstance(header, Unreadable)]
    if unreadable and not skip:
        error = judged[unreadable[0]]
        assert isinstance(error, Unreadable)
        raise error
    return {u: h for u, h in found.items() if isinstance(h, Raster)}, unreadable


def _source(series: RasterSeries, location: str, cast: str | None, skipped: list[str], lossy: bool, plan: CompositePlan | None = None) -> Source:
    grid = series.grid
    a, _, west, _, e, north = grid.transform
    coords = {
        "time": np.array([step.datetime for step in series.timesteps], dtype="datetime64[ns]"),
        "band": np.array([band.name for band in series.bands], dtype=str),
        "y": north + (np.arange(grid.height) + 0.5) * e,
        "x": west + (np.arange(grid.width) + 0.5) * a,
    }
    coverage = None
    origin: tuple[str, ...] = (os.path.basename(location.rstrip("/")) or location,)
    if plan is not None:
        series, data, mask, coverage, _, resources, said = composite_arrays(series, plan, coords, SERIES_DIMS)
        notes = list(series.notes) + list(plan.notes) + said + _warp_notes(series)
        origin = sources_of(plan) or origin
    else:
        files = OpenFiles(series)
        resources = (files,)
        reads = FrameReads(series, files)
        data = lazy_array(RasterFrames(reads), SERIES_DIMS, coords)
        mask = lazy_array(RasterFrames(reads, mask=True), ("time", "y", "x"), coords) if series.needs_mask else None
        notes = list(series.notes) + _warp_notes(series)
    if cast is not None:
        data, said = cast_counted(data, cast, lossy)
        notes.append(said)
    if skipped:
        notes.append(f"skipped {len(skipped)} unreadable file(s) (--skip-unreadable): {', '.join(skipped)}")
    mosaic = any(len(t.scenes) > 1 for t in series.timesteps)
    composite = "first valid pixel of the day's items, in the order listed" if mosaic else "none"
    return Source(
        data, grid.crs, mask, coverage, nodata=series.nodata, bands=series.bands, notes=tuple(notes),
        origin=origin, composite=plan.options.name if plan else composite, resources=(*resources, ReadCache()),
        pixels=series.pixels, resampling=series.resampling, gap_fill=plan.options.gap_fill if plan else "none",
        report=plan, step_counts=StepCounts(tuple(len(t.scenes) for t in series.timesteps)) if plan else None,
    )


def _warp_notes(series: RasterSeries) -> list[str]:
    """The grid as provenance records it: the grid, resampling and source CRSs, and what became of
    the files' pixels when any was resampled or dropped (convert says it in any case)."""
    kinds = [p.kind for p in series.placements.values()]
    if all(k == "exact" for k in kinds):
        return []
    grid = series.grid
    a, _, west, _, e, north = grid.transform
    on_grid = f"{grid.crs} grid of {size_text(grid.width, grid.height)}, pixels of {a:g} x {-e:g} from ({west:.12g}, {north:.12g})"
    warped = [p for p in series.placements.values() if p.kind == "warped"]
    parts = [f"files put on one {on_grid}; pixels no file covers are invalid (mask)"]
    if len(kinds) - len(warped):
        parts.append(f"{len(kinds) - len(warped)} file(s) read exactly where they land")
    if warped:
        sources = sorted({_crs_label(p.source_crs) for p in warped})
        parts.append(f"{len(warped)} file(s) warped by GDAL with {series.resampling} resampling from {', '.join(sources)}")
    changed = series.pixels.resampled or series.pixels.dropped
    return ["; ".join(parts)] + ([series.pixels.sentence(series.resampling)] if changed else [])


def _crs_label(crs: str | None) -> str:
    if not crs:
        return "an unknown CRS"
    if crs.startswith("EPSG:"):
        return crs
    try:
        from pyproj import CRS

        parsed = CRS.from_user_input(crs)
        code = parsed.to_epsg()
        if code:
            return f"EPSG:{code}"
        method = parsed.coordinate_operation.method_name if parsed.coordinate_operation else "custom"
        return parsed.name if parsed.name not in ("unknown", "undefined") else f"a {method} CRS without an EPSG code"
    except Exception:  # pyproj raises CRSError for text it cannot read
        return "a CRS pyproj cannot name"
