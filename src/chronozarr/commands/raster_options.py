"""The options of raster-file inputs (manifests, STAC items, dated globs), which `convert` and
`encode` share: the target grid and warp, STAC asset choice and grouping, dates in file names,
and skipping unreadable files. Defined once, in the form of commands/options.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import typer

from ..inputs.grid import RESAMPLING
from .options import _option, split_names

RASTER_OPTIONS = (
    _option("bounds", str | None, typer.Option(
        None, metavar="W,S,E,N",
        help="Outer edges of the store's grid: of files with no georeferencing (in --crs units), or with --grid its extent.",
    )),
    _option("grid", str | None, typer.Option(
        None, metavar="first|union|EPSG:CODE",
        help="Put every file on one grid: the first file's, one covering every file (on their own pixel lattice when "
        "they share one), or one in this CRS (pixel size --resolution, else gdalwarp's default).",
    )),
    _option("tap", bool, typer.Option(
        False, "--tap", help="Target-aligned pixels (as gdalwarp -tap): the grid's edges on whole multiples of the pixel size.",
    )),
    _option("resolution", float | None, typer.Option(
        None, metavar="R", help="Pixel size of the --grid, in its CRS units; without it, in another CRS, the finest of GDAL's suggested warp sizes.",
    )),
    _option("resampling", str | None, typer.Option(
        None, metavar="|".join(RESAMPLING), help="Warp files that are off the grid with GDAL's resampling of this name.",
    )),
    _option("assets", str | None, typer.Option(None, metavar="A,B,...", help="STAC items: the asset keys that become bands.")),
    _option("group_by", str | None, typer.Option(None, metavar="day", help="STAC items: one timestep per UTC day, mosaicked.")),
    _option("date_format", str | None, typer.Option(
        None, metavar="FORMAT", help="Glob: where the date is in a name, e.g. '*_%Y%m%d_*' (strftime codes, * any text).",
    )),
    _option("skip_unreadable", bool, typer.Option(
        False, "--skip-unreadable", help="Leave out files GDAL cannot read, and list them in the summary and provenance.",
    )),
)


def raster_arguments(options: Mapping[str, Any]) -> dict[str, Any]:
    """convert's keyword arguments for raster files, from the raster options."""
    args = {p.name: options[p.name] for p in RASTER_OPTIONS}
    return args | {"grid": _grid(options["grid"]), "assets": split_names(options["assets"])}


def _grid(value: str | None) -> str | None:
    """'first', 'union', or the EPSG code of --grid."""
    if value is None or value.strip().lower() in ("first", "union"):
        return None if value is None else value.strip().lower()
    from ..crs import epsg

    return epsg(value, "--grid")
