"""The one grid of a store made from raster files, and where each file lands on it.

Without options the grid is the first file's and every file must be on it exactly. `--grid
first|union|EPSG:CODE` with `--resolution`, `--bounds` and `--tap` sets another (union: every
file's extent, on the files' own pixel lattice when they share one); a file on the grid's pixel
lattice (same CRS and pixel size, whole-pixel offset) is then read exactly where it lands, and
any other file is warped by GDAL, which needs `--resampling`: values are never resampled silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..crs import crs_unit
from ..errors import InputError
from .rasters import Affine6, Raster

RESAMPLING = ("nearest", "bilinear", "cubic", "average", "mode")
Extent = tuple[float, float, float, float]
_TOLERANCE = 1e-6  # of a pixel: sidecars print coordinates with differing digits


@dataclass(frozen=True)
class WarpOptions:
    """The target grid asked for: `grid` "first", "union" or an EPSG code, pixel size, extent,
    resampling, and `tap` (gdalwarp -tap: the extent on whole multiples of the pixel size)."""

    grid: str | None = None
    resolution: float | None = None
    bounds: Extent | None = None
    resampling: str | None = None
    tap: bool = False

    def __post_init__(self) -> None:
        if self.resampling is not None and self.resampling not in RESAMPLING:
            raise InputError(f"--resampling {self.resampling!r} is not one of {', '.join(RESAMPLING)}")
        if self.resolution is not None and not (math.isfinite(self.resolution) and self.resolution > 0):
            raise InputError(f"--resolution must be a positive number of CRS units, got {self.resolution}")

    @property
    def active(self) -> bool:
        """True when a grid other than "every file exactly on the first one's" may come out."""
        return self.tap or any(v is not None for v in (self.grid, self.resolution, self.resampling))

    @property
    def target(self) -> str:
        return self.grid or ("union" if self.tap else "first")

    @property
    def on_first_crs(self) -> bool:
        """True when the grid is in the first file's CRS (--grid first or union)."""
        return self.target in ("first", "union")


@dataclass(frozen=True)
class Grid:
    """A north-up grid: EPSG code, (a, b, c, d, e, f) geotransform, size."""

    crs: str
    transform: Affine6
    width: int
    height: int

    @property
    def bounds(self) -> Extent:
        a, _, west, _, e, north = self.transform
        return west, north + e * self.height, west + a * self.width, north


class Footprint(NamedTuple):
    """Where a file lies: the CRS GDAL reads it in (WKT or code), its transform and size, and its
    EPSG code (None when it has none)."""

    source: str
    transform: Affine6
    width: int
    height: int
    code: str | None


@dataclass(frozen=True)
class Placement:
    """How a file's pixels land on the grid: exactly, shifted by whole pixels (file pixel (0, 0)
    is grid pixel (row, col)), or warped from `source_crs` (WKT or code)."""

    kind: str  # "exact", "shifted", "warped", or "scaled" (a mask whose pixel is `factor` grid pixels)
    row: int = 0
    col: int = 0
    source_crs: str | None = None
    why: str = ""
    factor: int = 1


def first_grid(raster: Raster, transform: Affine6, crs: str) -> Grid:
    """The grid of the first file, which must be north-up."""
    a, b, _, d, e, _ = transform
    if b != 0 or d != 0 or a <= 0 or e >= 0:
        size = f"{_pixel_size(transform):.3g}"
        raise InputError(
            f"{raster.uri} is not on a north-up grid (geotransform {rounded(transform)}); chronozarr stores rows "
            f"north to south and columns west to east. Warp the files onto one: --grid {crs} --resolution {size} "
            f"--resampling bilinear, or warp each first: gdalwarp -t_srs {crs} -tr {size} {size} -r bilinear IN OUT"
        )
    return Grid(crs, transform, raster.width, raster.height)


def target_grid(options: WarpOptions, first: Grid | None, footprints: list[Footprint]) -> Grid:
    """The grid `options` ask for, from the `first` file's grid with --grid first or union."""
    if first is None and options.on_first_crs:
        raise InputError("--grid first and union need the first file's grid")
    crs = first.crs if first is not None and options.on_first_crs else options.target
    if options.resolution:
        a, e = options.resolution, -options.resolution
    elif not options.on_first_crs:
        a = default_resolution(footprints, crs).size
        e = -a
    else:
        assert first is not None  # checked above
        a, e = first.transform[0], first.transform[4]
    if options.bounds is not None:
        west, south, east, north = options.bounds
    elif first is not None and options.target == "first":
        west, south, east, north = first.bounds
    else:
        origin = None if options.tap else shared_origin(footprints, crs, a, e)
        if origin is None and not options.tap and first is not None and options.target == "union":
            origin = first.transform[2], first.transform[5]  # no shared lattice: at least the first file stays exact
        west, south, east, north = _snapped(_union(footprints, crs), a, -e, origin or (0.0, 0.0))
    width, height = _count((east - west) / a), _count((north - south) / -e)
    return Grid(crs, (a, 0.0, west, 0.0, e, north), width, height)


def shared_origin(footprints: list[Footprint], crs: str, a: float, e: float) -> tuple[float, float] | None:
    """The pixel origin every file shares when all are north-up in `crs` with pixels of `a` by `e`
    whole pixels apart (adjacent Landsat or Sentinel-2 scenes of one zone), else None."""
    origin = None
    for footprint in footprints:
        fa, fb, fc, fd, fe, ff = footprint.transform
        if footprint.code != crs or fb or fd or not (_close(fa, a, a) and _close(fe, e, a)):
            return None
        if origin is None:
            origin = fc, ff
        elif not (_whole((fc - origin[0]) / a) and _whole((ff - origin[1]) / e)):
            return None
    return origin


def place(raster: Raster, transform: Affine6, code: str | None, source_crs: str, grid: Grid) -> Placement:
    """Where a file with `transform`, EPSG `code` (None when it has none) lands on `grid`."""
    a, b, c, d, e, f = transform
    ga, _, gc, _, ge, gf = grid.transform
    if code != grid.crs:
        return Placement("warped", source_crs=source_crs, why=f"its CRS is {code or 'not an EPSG CRS'}, not {grid.crs}")
    if b or d or not (_close(a, ga, ga) and _close(e, ge, ga)):
        return Placement("warped", source_crs=source_crs, why=f"its pixel size is {_pixels(transform)}, not {_pixels(grid.transform)}")
    col, row = (c - gc) / ga, (f - gf) / ge
    if not (_whole(col) and _whole(row)):
        return Placement("warped", source_crs=source_crs, why=f"its pixels are offset by ({col % 1:.3g}, {row % 1:.3g}) of a pixel from the grid's")
    row, col = round(row), round(col)
    if (row, col, raster.width, raster.height) == (0, 0, grid.width, grid.height):
        return Placement("exact")
    return Placement("shifted", row, col, why=f"it covers rows {row}..{row + raster.height - 1} and columns "
                     f"{col}..{col + raster.width - 1} of the {grid.width} x {grid.height} grid")


def scaled(raster: Raster, transform: Affine6, code: str | None, grid: Grid) -> Placement | None:
    """A coarser file whose pixel is a whole number of grid pixels across, its corner on a grid
    pixel's corner, and without an alpha band: grid pixel (r, c) is its pixel ((r - row) // factor,
    (c - col) // factor), which is what nearest-neighbour warping picks; None for any other."""
    a, b, c, d, e, f = transform
    ga, _, gc, _, ge, gf = grid.transform
    factor = round(a / ga)
    if code != grid.crs or b or d or raster.alpha is not None or factor < 2 or not (_close(a, factor * ga, ga) and _close(e, factor * ge, ga)):
        return None
    col, row = (c - gc) / ga, (f - gf) / ge
    if not (_whole(col) and _whole(row)):
        return None
    return Placement("scaled", round(row), round(col), factor=factor, why=f"each of its pixels is {factor} x {factor} grid pixels")


def warp_command(grid: Grid, resampling: str = "bilinear") -> str:
    """The gdalwarp command that puts a file onto `grid`."""
    a, _, _, _, e, _ = grid.transform
    return f"gdalwarp -t_srs {grid.crs} -tr {numbers(a, -e)} -te {numbers(*grid.bounds)} -r {resampling} IN OUT"


def numbers(*values: float) -> str:
    return " ".join(format(v, ".12g") for v in values)


def rounded(transform: Affine6) -> tuple[float, ...]:
    return tuple(round(v, 6) for v in transform)


def corners(transform: Affine6, width: int, height: int) -> Extent:
    """The (west, south, east, north) box of a file's four corners, rotated or not."""
    a, b, c, d, e, f = transform
    xs = [c + a * col + b * row for col, row in ((0, 0), (width, 0), (0, height), (width, height))]
    ys = [f + d * col + e * row for col, row in ((0, 0), (width, 0), (0, height), (width, height))]
    return min(xs), min(ys), max(xs), max(ys)


def _union(footprints: list[Footprint], crs: str) -> Extent:
    from rasterio.warp import transform_bounds

    boxes = [
        corners(f.transform, f.width, f.height) if f.code == crs
        else transform_bounds(f.source, crs, *corners(f.transform, f.width, f.height), densify_pts=21)
        for f in footprints
    ]
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def _snapped(box: Extent, width: float, height: float, origin: tuple[float, float]) -> Extent:
    """The box grown to whole pixels of `width` by `height` counted from `origin`, so files on that
    lattice land on whole pixels (with origin (0, 0): gdalwarp -tap's grid)."""
    west, south, east, north = box
    ox, oy = origin
    return (ox + math.floor((west - ox) / width + _TOLERANCE) * width, oy + math.floor((south - oy) / height + _TOLERANCE) * height,
            ox + math.ceil((east - ox) / width - _TOLERANCE) * width, oy + math.ceil((north - oy) / height - _TOLERANCE) * height)


class DefaultResolution(NamedTuple):
    """The pixel size of a CRS grid given no --resolution, and the sentence recording it."""

    size: float
    note: str


def default_resolution(footprints: list[Footprint], crs: str) -> DefaultResolution:
    """The pixel size gdalwarp -t_srs takes without -tr: GDAL's suggested warp output
    (GDALSuggestedWarpOutput, through rasterio's calculate_default_transform) of each file, and of
    several files the finest, as gdalwarp does with several inputs, so no file loses detail."""
    from rasterio.warp import calculate_default_transform

    sizes = []
    for source, transform, width, height, _ in footprints:
        moved, _, _ = calculate_default_transform(source, crs, width, height, *corners(transform, width, height))
        sizes.append(float(abs(moved.a)))
    size = min(sizes)
    which = f"the finest of the {len(sizes)} files'" if len(sizes) > 1 else "the file's"
    return DefaultResolution(size, f"no --resolution: pixels of {size:.12g} {crs_unit(crs)} in {crs}, {which} default warp "
                             "resolution (GDAL's suggested warp output, as gdalwarp -t_srs without -tr)")


def _count(pixels: float) -> int:
    count = math.ceil(pixels - _TOLERANCE)
    if count < 1:
        raise InputError("the target grid has no pixels: check --bounds (west,south,east,north) and --resolution")
    return count


def _pixel_size(transform: Affine6) -> float:
    a, b, _, d, e, _ = transform
    return math.sqrt(abs(a * e - b * d))


def _pixels(transform: Affine6) -> str:
    a, b, _, d, e, _ = transform
    return f"{numbers(a, -e)}" if not (b or d) else f"{_pixel_size(transform):.6g} (rotated)"


def _close(x: float, y: float, size: float) -> bool:
    return abs(x - y) <= _TOLERANCE * abs(size)


def _whole(value: float) -> bool:
    return abs(value - round(value)) <= _TOLERANCE


def resampling_enum(name: str) -> Any:
    from rasterio.enums import Resampling

    return Resampling[name]
