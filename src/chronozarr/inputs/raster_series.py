"""The files of a series checked as one: a grid, a CRS, one dtype, nodata and list of bands, and
where each file lands on the grid (inputs/grid.py).

A file that differs from the first is an error naming the file, the field and the fix. A file off
the grid is one too unless the options put it there: `--grid union` (or first) for a whole-pixel
shift, and `--resampling` for anything GDAL must warp, including files declaring a CRS other than
--crs; a silent resampling would change the values the store promises to keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..crs import CRS_FIX, Declared, against_target, resolve
from ..errors import InputError
from ..format.metadata import Band
from .grid import RESAMPLING, Extent, Footprint, Grid, Placement, WarpOptions, corners, default_resolution, first_grid, place, target_grid, warp_command
from .pixel_counts import PixelCounts, count_pixels
from .raster_bands import AssetBands, asset_bands, check_like, series_bands, series_nodata
from .rasters import Affine6, Raster
from .scenes import Timestep

DEFAULT_WARP = WarpOptions()  # frozen: one shared default is safe
NO_GEOREFERENCING_FIXES = (
    "a world file next to it (.pgw, .pngw or .wld) with --crs, an .aux.xml sidecar with the CRS and "
    "geotransform, or --crs with --bounds west,south,east,north"
)


@dataclass(frozen=True)
class RasterSeries:
    """The checked files and what the store takes from them."""

    timesteps: tuple[Timestep, ...]
    headers: Mapping[str, Raster]
    grid: Grid
    placements: Mapping[str, Placement]
    positions: tuple[AssetBands, ...]
    dtype: str
    nodata: float | int | None
    bands: tuple[Band, ...]
    notes: tuple[str, ...]
    resampling: str | None
    pixels: PixelCounts

    @property
    def needs_mask(self) -> bool:
        """A mask records validity that nodata cannot: alpha, mosaics, and pixels no file covers."""
        mosaic = any(len(t.scenes) > 1 for t in self.timesteps)
        placed = any(p.kind != "exact" for p in self.placements.values())
        return mosaic or placed or any(p.alpha is not None for p in self.positions)


def check_series(
    timesteps: Sequence[Timestep],
    headers: Mapping[str, Raster],
    crs: Any = None,
    extent: Extent | None = None,
    names: Sequence[str] | None = None,
    options: WarpOptions = DEFAULT_WARP,
) -> RasterSeries:
    """One grid and one set of bands for every file, or an InputError naming the first file that
    differs and the fix. `crs` (--crs) is the store's CRS and the CRS of files that declare none;
    `extent` places files that carry no georeferencing; `names` replaces the band names; `options`
    may set another grid."""
    target = resolve(crs, "--crs").code if crs is not None else None
    first_scene = timesteps[0].scenes[0]
    first = headers[first_scene.assets[0].uri]
    positions = tuple(asset_bands(headers[a.uri], a) for a in first_scene.assets)
    georef = {uri: _georeferencing(raster, target, extent) for uri, raster in headers.items()}
    notes: dict[str, str | None] = {}  # per declared CRS: what resolving it says
    lenient = options.active and not options.on_first_crs
    codes = {uri: _code(headers[uri], target, lenient or uri != first.uri, notes) for uri in headers}
    if target is not None and options.grid is None and codes[first.uri] != target:
        _check_warp_asked(headers, codes, target, options)
        options = replace(options, grid=target)  # --crs is the store's CRS: the first file's is another
    on_first = not options.active or options.on_first_crs  # the first file's grid is (or starts) the store's
    grid = first_grid(first, georef[first.uri], codes[first.uri] or "") if on_first else None
    if options.active:
        footprints = [Footprint(_source(headers[u], codes[u], target), t, headers[u].width, headers[u].height, codes[u]) for u, t in georef.items()]
        if options.resolution is None and not options.on_first_crs:
            default = default_resolution(footprints, options.target)
            notes[default.note] = default.note
            options = replace(options, resolution=default.size)
        grid = target_grid(options, grid, footprints)
    assert grid is not None
    placements = {}
    for step in timesteps:
        for scene in step.scenes:
            if len(scene.assets) != len(first_scene.assets):
                raise InputError(
                    f"{scene.label} gives {len(scene.assets)} files, {first_scene.label} {len(first_scene.assets)}; "
                    "every scene needs the same assets"
                )
            for k, (asset, position) in enumerate(zip(scene.assets, positions, strict=False)):
                raster = headers[asset.uri]
                check_like(headers[first_scene.assets[k].uri], position, raster, asset_bands(raster, asset), names is not None)
                placements[asset.uri] = _placed(raster, georef[asset.uri], codes[asset.uri], _source(raster, codes[asset.uri], target), grid, options)
    dtype = first.dtypes[0]
    pixels = sum((count_pixels(p, headers[u].width, headers[u].height, georef[u], grid) for u, p in placements.items()), PixelCounts())
    return RasterSeries(
        timesteps=tuple(timesteps), headers=dict(headers), grid=grid, placements=placements, positions=positions, dtype=dtype,
        nodata=series_nodata(positions, [a.uri for a in first_scene.assets]),
        bands=series_bands(positions, dtype, names, first.uri), notes=tuple(n for n in notes.values() if n), resampling=options.resampling,
        pixels=pixels,
    )


def _placed(raster: Raster, transform: Affine6, code: str | None, source: str, grid: Grid, options: WarpOptions) -> Placement:
    """Where the file lands, refused when it is off the grid and the options do not allow it."""
    placement = place(raster, transform, code, source, grid)
    if placement.kind == "exact" or (placement.kind == "shifted" and options.active):
        return placement
    if placement.kind == "warped" and options.resampling is not None:
        return placement
    if placement.kind == "shifted":
        lost = count_pixels(placement, raster.width, raster.height, transform, grid).dropped
        first = f"; --grid first would keep the first file's extent only, dropping {lost} of this file's pixels" if lost else ""
        fix = f"--grid union puts every file on one grid covering them all, each read exactly where it lands (no resampling){first}"
    else:
        fix = f"--resampling {'|'.join(RESAMPLING)} warps it onto the grid"
    raise InputError(
        f"{raster.uri} is not on the grid of the store ({placement.why}); values are never resampled silently: "
        f"{fix}, or warp it first: {warp_command(grid)}"
    )


def _check_warp_asked(headers: Mapping[str, Raster], codes: Mapping[str, str | None], target: str, options: WarpOptions) -> None:
    """Files declaring a CRS that is not --crs are warped onto it, which only --resampling allows."""
    if options.resampling is not None:
        return
    uri = next(u for u, code in codes.items() if code != target)
    declared = Declared(headers[uri].crs, f"the CRS of {uri}")
    raise InputError(
        f"--crs {target} is the CRS to store in, and {against_target(declared, target).note}; relabelling it would "
        f"move every pixel, so convert warps such files onto {target}, which needs --resampling "
        f"{'|'.join(RESAMPLING)} (--resolution in its units sets the pixel size, else gdalwarp's default). To keep the files' own CRS, drop --crs"
    )


def _code(raster: Raster, target: str | None, lenient: bool, notes: dict[str, str | None]) -> str | None:
    """The EPSG code the file is read in: --crs when it declares none or an equivalent CRS, else its
    own CRS matched against EPSG. `lenient` (a file to be warped) gives None for a CRS no EPSG CRS
    matches; GDAL warps it from its WKT. What is said of each declared CRS goes to `notes` once,
    naming the first file that declares it."""
    if raster.crs is None:
        return target
    where = f"the CRS of {raster.uri}"
    if target is not None:
        against = against_target(Declared(raster.crs, where), target)
        if against.equivalent:
            notes.setdefault(raster.crs, against.note)
            return target
        lenient = True  # warped onto --crs
    extent = corners(raster.transform, raster.width, raster.height) if raster.transform else None
    try:
        pixel = abs(raster.transform[0]) if raster.transform else None
        found = resolve(raster.crs, where, extent, pixel)
    except InputError:
        if lenient:
            return None
        raise
    notes.setdefault(raster.crs, found.note)
    return found.code


def _source(raster: Raster, code: str | None, target: str | None) -> str:
    """The CRS GDAL reads the file in: its own WKT, unless it declares none or one equivalent to --crs."""
    if raster.crs is not None and (target is None or code != target):
        return raster.crs
    return target or ""


def _georeferencing(raster: Raster, target: str | None, bounds: Extent | None) -> Affine6:
    """The file's transform, from its own sidecars or from --bounds and --crs."""
    if raster.crs is None and target is None:
        if raster.transform is None and bounds is None:
            raise InputError(f"{raster.uri} has no georeferencing; give it one of: {NO_GEOREFERENCING_FIXES}")
        if bounds is None:
            raise InputError(f"{raster.uri} has a geotransform but declares no CRS (a world file holds none); {CRS_FIX}")
    if bounds is not None:
        if target is None:
            raise InputError(f"--bounds needs --crs: the extent {bounds} is in the units of a CRS; {CRS_FIX}")
        if raster.transform is not None:
            raise InputError(
                f"{raster.uri} carries its own geotransform (a world file or .aux.xml) and --bounds was given; "
                "drop --bounds (and the manifest's bounds), or remove the sidecar"
            )
        west, south, east, north = bounds
        return ((east - west) / raster.width, 0.0, west, 0.0, -(north - south) / raster.height, north)
    if raster.transform is None:
        raise InputError(f"{raster.uri} has no georeferencing; give it one of: {NO_GEOREFERENCING_FIXES}")
    return raster.transform
