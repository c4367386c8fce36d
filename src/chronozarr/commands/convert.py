"""`chronozarr convert SOURCE OUT`: raster files (a manifest, STAC items, a dated glob), a NetCDF file
or a Zarr store into a new store."""

from __future__ import annotations

from typing import Any

import typer

from ..convert import convert
from .composite_options import COMPOSITE_OPTIONS, composite_arguments
from .options import INPUT_OPTIONS, WRITER_OPTIONS, input_arguments, with_options, writer_arguments
from .raster_options import RASTER_OPTIONS, raster_arguments

HELP = """Write a new chronozarr store OUT from SOURCE: raster files, one per date, listed by a
manifest, by STAC items or by a glob of dated file names; or a NetCDF file or Zarr store (read as
`encode` reads them, with the same options).

A manifest is a CSV file (or URL) with a header uri,datetime (and optionally bands, names separated
by commas) or a JSON list of {"uri", "datetime", "bands"} objects, or an object {"items": [...],
"bounds": [west, south, east, north]}. Rows may come in any order; dates must differ. Relative URIs
are read from the manifest's folder or URL; http(s) and s3:// URIs through GDAL. Files are GeoTIFF,
COG, PNG or JPEG, read with GDAL (pip install 'chronozarr[geo]').

A JSON file holding a GeoJSON FeatureCollection of STAC items (a saved STAC API search) gives one
timestep per item, with --assets naming the assets that become bands; --group-by day mosaics the
items of one day, first valid pixel in the listed order. A glob ('scenes/*.tif', quoted) dates
each file by the ISO date or YYYYMMDD in its name (--date-format when a name holds two).

--composite PERIOD makes each period (day, ISO week, month, quarter, year, or N days as 16D) one
timestep labelled with its start, each pixel reduced by --reducer over the period's valid
observations: a scene covers it, no band is nodata there, and its mask assets allow it (--valid
scl:4,5,6,7,11 keeps SCL classes, --mask-bits qa_pixel:cloud,shadow refuses Landsat QA bits; a mask
at another resolution is read by nearest neighbour and not stored; a dated file's mask is its sibling
<name>_scl.tif, a manifest row's the column named after the asset). coverage counts the valid
observations, mask is 1 where there was one; --gap-fill carry-forward keeps the last valid value
there (coverage 0). Integer medians of an even count and means round half to even. A Sentinel-2
series spanning processing baseline 04.00 (2022-01-25) is stored on its -1000 DN convention: older
scenes shifted by +1000 DN where valid, bands' scale 0.0001 and offset -0.1 (--harmonize none keeps
values as delivered). The summary lists each period's scenes, valid share and gap-filled pixels.

Every file must have the same bands, data type, nodata, scale and offset. Without --grid or
--resampling every file must also be on one grid, the first file's: values are never resampled
silently. --grid first|union|EPSG:CODE (with --resolution, --bounds, --tap) sets the store's grid; a file on
its pixel lattice is read exactly where it lands, any other is warped by GDAL with --resampling;
pixels no file covers are invalid (mask), and the warp is recorded in the store's provenance.

A CRS the files declare without an EPSG code is recorded as the EPSG CRS equivalent to it (the
summary says which). --crs is the store's CRS and the CRS of files declaring none; files declaring
another are relabelled only when it is equivalent (said in a note), else warped with --resampling. A PNG or
JPEG frame is located by a world file (.pgw, .wld; needs --crs), an .aux.xml sidecar, or --crs
with --bounds (its outer edges). Values are stored as the files hold them: nodata becomes the
store's nodata, band descriptions, scales and offsets the bands, an alpha band the mask (valid
where alpha is not 0). Palette PNGs are refused. OUT must be new or empty.

A quoted glob of NetCDF or HDF5 granules ('granules/*.nc': SWOT rasters, NISAR GCOV), one file per
timestep without a time dimension, is one series: each file dated by --time-from (a global
attribute or /path/to/variable), else its time_coverage_start, all on one grid. --mask-variable
FLAG --mask-valid 0,1 makes the flag's listed values valid and every other value invalid.
"""

EPILOG = """\b
Examples:
  chronozarr convert scenes.csv my_store --dry-run
  chronozarr convert scenes.csv my_store --encoding none --chunk-size 256
  chronozarr convert https://example.org/series/manifest.csv my_store
  chronozarr convert 'scenes/*.tif' my_store
  chronozarr convert 'landsat/*.tif' my_store --date-format 'L2SP_*_%Y%m%d_*'
  chronozarr convert items.json my_store --assets B02,B03,B04,B08 --group-by day \\
      --grid EPSG:32632 --resolution 10 --resampling nearest
  chronozarr convert items.json monthly --assets B02,B03,B04,B08 --composite month --reducer median \\
      --valid scl:4,5,6,7,11 --gap-fill carry-forward --dry-run
  chronozarr convert landsat.json yearly --assets red,nir08 --composite year --reducer medoid \\
      --mask-bits qa_pixel:fill,dilated,cirrus,cloud,shadow,snow
  chronozarr convert 'scenes/*.tif' fortnights --composite 16D --period-start 2024-01-01 --reducer mean
  chronozarr convert 'scenes/S2_*.tif' monthly --composite month --valid scl:4,5,6,7,11 --dry-run
  chronozarr convert scenes.csv quarterly --composite quarter --reducer mean --valid scl:4,5,6,7,11 \\
      --skip-unreadable
  chronozarr convert shifted.csv my_store --grid union
  chronozarr convert dem.csv dem_store --crs EPSG:31985
  chronozarr convert frames/manifest.json frames_store --crs EPSG:32718 --bounds 498450,9151960,508690,9162200
  chronozarr convert 'granules/SWOT_L2_HR_Raster_*.nc' swot --variables wse,water_frac \\
      --mask-variable wse_qual --mask-valid 0,1
  chronozarr convert floats.csv my_store --cast float32
  chronozarr convert cube.zarr my_store --variable reflectance
  chronozarr convert scenes.csv my_store --read-ahead 4 --resume
  chronozarr convert scenes.csv my_store --history
"""


def register(app: typer.Typer) -> None:
    app.command(
        "convert", help=HELP, epilog=EPILOG,
        short_help="Write a store from GeoTIFF/COG/PNG files (manifest, STAC items, glob), NetCDF or Zarr.",
        no_args_is_help=True,
    )(convert_command)


@with_options(INPUT_OPTIONS, RASTER_OPTIONS, COMPOSITE_OPTIONS, WRITER_OPTIONS)
def convert_command(
    source: str = typer.Argument(..., metavar="SOURCE", help="Manifest (.csv, .json), STAC items (.json), 'glob/*.tif', NetCDF or Zarr.", show_default=False),
    out: str = typer.Argument(
        ..., metavar="OUT", help="New store: a directory that is absent or empty, or an s3://, gs://, az:// prefix.", show_default=False
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Check everything and print what would be written; write nothing."),
    **options: Any,
) -> None:
    writer = writer_arguments(options)
    inputs = input_arguments(options)
    crs, cast, lossy = inputs.pop("crs"), inputs.pop("cast"), inputs.pop("lossy")
    rasters = raster_arguments(options) | composite_arguments(options)
    result = convert(source, out, crs=crs, cast=cast, lossy=lossy, **rasters, source_options=inputs, dry_run=dry_run, **writer)
    typer.echo(str(result))
