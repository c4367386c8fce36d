"""`chronozarr convert SOURCE OUT`: a manifest of raster files, a NetCDF file or a Zarr store into a new store."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from ..io.convert import convert
from .options import INPUT_OPTIONS, WRITER_OPTIONS, input_arguments, with_options, writer_arguments

HELP = """Write a new chronozarr store OUT from SOURCE: a manifest of raster files, one per date, or
a NetCDF file or Zarr store (read as `encode` reads them, with the same options).

A manifest is a CSV file with a header uri,datetime (and optionally bands, names separated by
commas) or a JSON list of {"uri", "datetime", "bands"} objects, or an object {"items": [...],
"bounds": [west, south, east, north]}. Rows may come in any order; dates are ISO dates or
datetimes and must differ. Relative URIs are read from the manifest's folder, http(s) URIs
through GDAL. Files are GeoTIFF, COG, PNG or JPEG, read with GDAL (pip install 'chronozarr[geo]').

Every file must have the same size, bands, data type, nodata, scale, offset, geotransform and
CRS: convert never resamples. A PNG or JPEG frame is located by a world file (.pgw, .wld; needs
--crs), an .aux.xml sidecar, or --crs with --bounds (its outer edges). Values are stored as the
files hold them: GDAL nodata becomes the store's nodata (none if the files declare none), band
descriptions, scales and offsets become the bands (the manifest's bands replace the names), an
alpha band becomes the mask (valid where alpha is not 0) and red, green, blue channels are bands
of those names. Palette PNGs are refused. OUT must be new or empty.
"""

EPILOG = """\b
Examples:
  chronozarr convert scenes.csv my_store --dry-run
  chronozarr convert scenes.csv my_store --encoding none --chunk-size 256
  chronozarr convert frames/manifest.csv frames_store --crs EPSG:32718
  chronozarr convert frames/manifest.json frames_store --crs EPSG:32718 --bounds 498450,9151960,508690,9162200
  chronozarr convert floats.csv my_store --cast float32
  chronozarr convert cube.zarr my_store --variable reflectance
"""


def register(app: typer.Typer) -> None:
    app.command(
        "convert", help=HELP, epilog=EPILOG, short_help="Write a store from a manifest of GeoTIFF/COG/PNG files, NetCDF or Zarr.",
        no_args_is_help=True,
    )(convert_command)


@with_options(INPUT_OPTIONS, WRITER_OPTIONS)
def convert_command(
    source: str = typer.Argument(..., metavar="SOURCE", help="Manifest (.csv, .json), NetCDF file or Zarr store.", show_default=False),
    out: Path = typer.Argument(..., metavar="OUT", help="New store directory; must not exist or be empty.", show_default=False),
    bounds: Optional[str] = typer.Option(
        None, metavar="W,S,E,N", help="Outer edges of every file, in --crs units, for files with no georeferencing."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Check everything and print what would be written; write nothing."),
    **options: Any,
) -> None:
    writer = writer_arguments(options)
    inputs = input_arguments(options)
    crs, cast = inputs.pop("crs"), inputs.pop("cast")
    result = convert(source, out, crs=crs, bounds=bounds, cast=cast, source_options=inputs, dry_run=dry_run, **writer)
    typer.echo(str(result))
