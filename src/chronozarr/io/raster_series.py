"""The files of a manifest as one series: every file checked against the first, and what they
declare in a store's terms (grid, CRS, nodata, bands, alpha as the mask).

A store has one grid, one dtype, one nodata and one list of bands, so a file that differs from the
first is an error naming the file, the field and a GDAL command that fixes it. Nothing is warped
or resampled here: a silent resampling would change the values the store promises to keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..crs import CRS_FIX, epsg
from ..errors import InputError
from ..format.metadata import Band
from .cf import band_with_packing
from .rasters import Affine6, Raster

GDAL_TYPES = {"uint8": "Byte", "uint16": "UInt16", "int16": "Int16", "float32": "Float32"}
RGB = ("red", "green", "blue")
NO_GEOREFERENCING_FIXES = (
    "a world file next to it (.pgw, .pngw or .wld) with --crs, an .aux.xml sidecar with the CRS and "
    "geotransform, or --crs with --bounds west,south,east,north"
)


@dataclass(frozen=True)
class RasterSeries:
    """The checked files and what the store takes from them."""

    rasters: tuple[Raster, ...]
    transform: Affine6
    crs: str
    nodata: float | int | None
    bands: tuple[Band, ...]

    @property
    def first(self) -> Raster:
        return self.rasters[0]


def check_series(
    rasters: Sequence[Raster],
    crs: Any = None,
    bounds: tuple[float, float, float, float] | None = None,
    names: Sequence[str] | None = None,
) -> RasterSeries:
    """One grid for every file, or an InputError naming the first file that differs and the fix.

    `crs` is the CRS of files that declare none (and must match those that do); `bounds` places
    files that carry no georeferencing; `names` replaces the band names the files give.
    """
    target = epsg(crs, "--crs") if crs is not None else None
    first = rasters[0]
    _check_own_bands(first)
    transform, resolved = _georeferencing(first, target, bounds)
    _check_north_up(first, transform)
    for raster in rasters[1:]:
        _check_layout(first, raster, transform, resolved, names is not None)
        other, other_crs = _georeferencing(raster, target, bounds)
        if other_crs != resolved:
            raise InputError(
                f"{raster.uri}: its CRS is {other_crs}, but {first.uri} is in {resolved}; reproject it onto the first "
                f"file's grid: {_warp_command(first, transform, resolved)}"
            )
        if not _same_transform(other, transform):
            raise InputError(
                f"{raster.uri}: its geotransform {_rounded(other)} differs from {_rounded(transform)} of {first.uri}; "
                f"every file must be on one grid. Resample it: {_warp_command(first, transform, resolved)}"
            )
    return RasterSeries(tuple(rasters), transform, resolved, _nodata(first), _bands(first, names))


def _georeferencing(raster: Raster, target: str | None, bounds: tuple[float, float, float, float] | None) -> tuple[Affine6, str]:
    """The file's transform and CRS, from its own sidecars or from --bounds and --crs."""
    if raster.crs is not None and target is not None and raster.crs != target:
        raise InputError(
            f"{raster.uri} declares the CRS {raster.crs}, not {target} (--crs); convert does not reproject. Drop "
            f"--crs, or warp the file first: gdalwarp -t_srs {target} IN OUT"
        )
    crs = raster.crs or target
    if bounds is not None:
        if target is None:
            raise InputError(f"--bounds needs --crs: the extent {bounds} is in the units of a CRS; {CRS_FIX}")
        if raster.transform is not None:
            raise InputError(
                f"{raster.uri} carries its own geotransform (a world file or .aux.xml) and --bounds was given; "
                "drop --bounds (and the manifest's bounds), or remove the sidecar"
            )
        west, south, east, north = bounds
        return ((east - west) / raster.width, 0.0, west, 0.0, -(north - south) / raster.height, north), target
    if raster.transform is None:
        raise InputError(f"{raster.uri} has no georeferencing; give it one of: {NO_GEOREFERENCING_FIXES}")
    if crs is None:
        raise InputError(f"{raster.uri} has a geotransform but declares no CRS (a world file holds none); {CRS_FIX}")
    return raster.transform, crs


def _check_north_up(raster: Raster, transform: Affine6) -> None:
    a, b, _, d, e, _ = transform
    if b != 0 or d != 0 or a <= 0 or e >= 0:
        raise InputError(
            f"{raster.uri} is not on a north-up grid (geotransform {_rounded(transform)}); chronozarr stores rows "
            "north to south and columns west to east. Warp it first: gdalwarp IN OUT (GDAL writes north-up by default)"
        )


def _check_own_bands(raster: Raster) -> None:
    """One dtype and one nodata across the bands of a file: a store has one of each."""
    if len(set(raster.dtypes)) > 1:
        raise InputError(
            f"{raster.uri} has bands of different data types ({', '.join(raster.dtypes)}); a store has one. Convert "
            f"them to one: gdal_translate -ot Float32 IN OUT"
        )
    declared = {raster.nodata[i - 1] for i in raster.data_bands}
    if len(declared) > 1:
        raise InputError(
            f"{raster.uri} declares different nodata values per band ({', '.join(map(str, raster.nodata))}); a store "
            "has one. Set one for all bands: gdal_edit.py -a_nodata VALUE IN"
        )


def _check_layout(first: Raster, raster: Raster, transform: Affine6, crs: str, named: bool) -> None:
    """Size, bands, dtype, nodata, scale, offset and band names as in the first file."""
    _check_own_bands(raster)
    warp = _warp_command(first, transform, crs)
    checks = [
        ("size (width x height)", (raster.width, raster.height), (first.width, first.height), f"resample it: {warp}"),
        ("band count", raster.count, first.count, "export every date with the same bands in the same order"),
        ("data type", raster.dtypes[0], first.dtypes[0], f"convert it: gdal_translate -ot {_gdal_type(first.dtypes[0])} IN OUT"),
        ("colour interpretation", raster.colors, first.colors, "export every date the same way (RGB or RGBA, not both)"),
        ("nodata", _nodata(raster), _nodata(first), f"set the same nodata on every file: gdal_edit.py -a_nodata {_nodata(first)} IN"),
        ("scale per band", raster.scales, first.scales, "set the same scale on every file: gdal_edit.py -scale VALUE IN"),
        ("offset per band", raster.offsets, first.offsets, "set the same offset on every file: gdal_edit.py -offset VALUE IN"),
    ]
    if not named:
        checks.append(
            ("band descriptions", raster.descriptions, first.descriptions, "name the bands in the manifest's bands column")
        )
    for field, got, expected, fix in checks:
        if got != expected:
            raise InputError(f"{raster.uri}: its {field} is {got}, but {first.uri} has {expected}; {fix}")


def _nodata(raster: Raster) -> float | int | None:
    """The files' nodata, None when they declare none: then every pixel is valid, 0 included."""
    value = raster.nodata[raster.data_bands[0] - 1]
    if value is None:
        return None
    return int(value) if raster.dtypes[0] != "float32" and float(value).is_integer() else value


def _bands(raster: Raster, names: Sequence[str] | None) -> tuple[Band, ...]:
    """Names from the manifest, else the files' descriptions, else red/green/blue for colour
    images, else band numbers; each with the scale, offset and units the file declares."""
    indexes = raster.data_bands
    dtype = raster.dtypes[0]
    if names is not None and len(names) != len(indexes):
        raise InputError(
            f"the manifest names {len(names)} bands ({', '.join(names)}) but {raster.uri} has {len(indexes)} data "
            "bands (an alpha band is the mask, not a band); give one name per data band"
        )
    colors = tuple(raster.colors[i - 1] for i in indexes)
    descriptions = [raster.descriptions[i - 1] for i in indexes]
    if names is None and colors == RGB and not any(descriptions):
        return tuple(Band(name, common_name=name) for name in RGB)
    if names is None:
        names = [d or str(i) for d, i in zip(descriptions, indexes)]
    out = []
    for name, i in zip(names, indexes):
        packing = (raster.scales[i - 1], raster.offsets[i - 1], raster.units[i - 1])
        declared = packing != (1.0, 0.0, None)
        out.append(band_with_packing(name, dtype, packing) if declared else Band.infer(name, dtype))
    return tuple(out)


def _same_transform(a: Affine6, b: Affine6) -> bool:
    """Equal to a millionth of a pixel: sidecars print coordinates with differing digits."""
    tolerance = 1e-6 * min(abs(b[0]), abs(b[4]))
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def _warp_command(first: Raster, transform: Affine6, crs: str) -> str:
    a, _, west, _, e, north = transform
    east, south = west + a * first.width, north + e * first.height
    return f"gdalwarp -t_srs {crs} -tr {_numbers(a, -e)} -te {_numbers(west, south, east, north)} IN OUT"


def _numbers(*values: float) -> str:
    return " ".join(format(v, ".12g") for v in values)


def _rounded(transform: Affine6) -> tuple[float, ...]:
    return tuple(round(v, 6) for v in transform)


def _gdal_type(dtype: str) -> str:
    return GDAL_TYPES.get(dtype, dtype.capitalize())
