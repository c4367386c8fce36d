"""What the files of a series declare of their bands, in a store's terms: one dtype, one nodata,
and band objects (names, common names, scale, offset, units).

A file's own declarations (GDAL nodata, scale, offset, descriptions, colour interpretation) count
unless a listing says more: the manifest's band names, or a STAC asset's key, raster:bands and
eo:bands. Every file of one asset position must declare the same as the first, or the error names
the file, the field and the GDAL command that fixes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..errors import InputError
from ..format.metadata import Band
from .cf import band_with_packing
from .rasters import Raster
from .scenes import Asset, BandHints

GDAL_TYPES = {"uint8": "Byte", "uint16": "UInt16", "int16": "Int16", "float32": "Float32"}
RGB = ("red", "green", "blue")


@dataclasses.dataclass(frozen=True)
class AssetBands:
    """The data bands one asset position gives: 1-based indexes in its files, and what they declare."""

    indexes: tuple[int, ...]
    alpha: int | None
    nodata: float | int | None
    scales: tuple[float, ...]
    offsets: tuple[float, ...]
    units: tuple[str | None, ...]
    names: tuple[str | None, ...]
    common_names: tuple[str | None, ...]
    colors: tuple[str, ...]


def asset_bands(raster: Raster, asset: Asset) -> AssetBands:
    """The data bands of `raster` as `asset` lists it (its hints replace the file's own values)."""
    check_own_bands(raster)
    indexes = raster.data_bands
    hints = asset.hints or BandHints()
    if asset.hints is not None and len(indexes) != 1 and any(
        v is not None for v in (hints.scale, hints.offset, hints.common_name)
    ):
        raise InputError(f"{raster.uri}: its raster:bands or eo:bands describe one band but the file has {len(indexes)}")
    pick = [i - 1 for i in indexes]
    one = len(indexes) == 1
    return AssetBands(
        indexes=indexes,
        alpha=raster.alpha,
        nodata=hints.nodata if hints.has_nodata else file_nodata(raster),
        scales=(hints.scale,) if one and hints.scale is not None else tuple(raster.scales[i] for i in pick),
        offsets=(hints.offset,) if one and hints.offset is not None else tuple(raster.offsets[i] for i in pick),
        units=(hints.units,) if one and hints.units else tuple(raster.units[i] for i in pick),
        names=(hints.name,) if one and hints.name else tuple(raster.descriptions[i] for i in pick),
        common_names=(hints.common_name,) if one else (None,) * len(pick),
        colors=tuple(raster.colors[i] for i in pick),
    )


def check_own_bands(raster: Raster) -> None:
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


def check_like(first: Raster, first_bands: AssetBands, raster: Raster, bands: AssetBands, named: bool) -> None:
    """Bands, dtype, nodata, scale, offset and band names as in the first file of the position."""
    checks = [
        ("band count", len(bands.indexes), len(first_bands.indexes), "export every date with the same bands in the same order"),
        ("data type", raster.dtypes[0], first.dtypes[0], f"convert it: gdal_translate -ot {gdal_type(first.dtypes[0])} IN OUT"),
        ("colour interpretation", raster.colors, first.colors, "export every date the same way (RGB or RGBA, not both)"),
        ("nodata", bands.nodata, first_bands.nodata, f"set the same nodata on every file: gdal_edit.py -a_nodata {first_bands.nodata} IN"),
        ("scale per band", bands.scales, first_bands.scales, "set the same scale on every file: gdal_edit.py -scale VALUE IN"),
        ("offset per band", bands.offsets, first_bands.offsets, "set the same offset on every file: gdal_edit.py -offset VALUE IN"),
    ]
    if not named:
        checks.append(("band descriptions", bands.names, first_bands.names, "name the bands in the manifest's bands column"))
    for field, got, expected, fix in checks:
        if got != expected:
            raise InputError(f"{raster.uri}: its {field} is {got}, but {first.uri} has {expected}; {fix}")


def series_nodata(positions: Sequence[AssetBands], uris: Sequence[str]) -> float | int | None:
    """The one nodata of the series: every asset position must declare the same."""
    values = {p.nodata for p in positions}
    if len(values) > 1:
        listing = ", ".join(f"{u}: {p.nodata}" for u, p in zip(uris, positions, strict=False))
        raise InputError(f"the assets declare different nodata values ({listing}) and a store has one; give them one nodata")
    return positions[0].nodata


def series_bands(positions: Sequence[AssetBands], dtype: str, names: Sequence[str] | None, uri: str) -> tuple[Band, ...]:
    """Names from the manifest, else the listing's or the files' names, else red/green/blue for
    colour images, else band numbers; each with the scale, offset, units and common name declared."""
    indexes = [i for p in positions for i in p.indexes]
    own = [n for p in positions for n in p.names]
    common = [c for p in positions for c in p.common_names]
    packing = [(s, o, u) for p in positions for s, o, u in zip(p.scales, p.offsets, p.units, strict=False)]
    colors = tuple(c for p in positions for c in p.colors)
    if names is not None and len(names) != len(indexes):
        raise InputError(
            f"the manifest names {len(names)} bands ({', '.join(names)}) but {uri} has {len(indexes)} data "
            "bands (an alpha band is the mask, not a band); give one name per data band"
        )
    if names is None and colors == RGB and not any(own):
        return tuple(Band(name, common_name=name) for name in RGB)
    if names is None:
        names = [n or str(i) for n, i in zip(own, indexes, strict=False)]
    out = []
    for name, pack, common_name in zip(names, packing, common, strict=False):
        declared = pack != (1.0, 0.0, None)
        band = band_with_packing(name, dtype, pack) if declared else Band.infer(name, dtype)
        out.append(dataclasses.replace(band, common_name=common_name) if common_name else band)
    if len({b.name for b in out}) != len(out):
        raise InputError(f"the band names {', '.join(b.name for b in out)} repeat; name the bands (manifest bands column or --assets)")
    return tuple(out)


def file_nodata(raster: Raster) -> float | int | None:
    """The file's nodata, None when it declares none: then every pixel is valid, 0 included."""
    value = raster.nodata[raster.data_bands[0] - 1]
    if value is None:
        return None
    return int(value) if raster.dtypes[0] != "float32" and float(value).is_integer() else value


def gdal_type(dtype: str) -> str:
    return GDAL_TYPES.get(dtype, dtype.capitalize())
