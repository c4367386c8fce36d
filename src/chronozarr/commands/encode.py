"""`chronozarr encode INPUT OUT`: open a NetCDF file, Zarr store or dated GeoTIFF glob and write a new store from it."""

from __future__ import annotations

from typing import Any

import typer

from ..write.encode import encode
from .inputs import open_input
from .options import INPUT_OPTIONS, WRITER_OPTIONS, input_arguments, with_options, writer_arguments
from .raster_options import RASTER_OPTIONS, raster_arguments

HELP = """Write a new chronozarr store OUT from a NetCDF file, a Zarr store (v2 or v3), or a glob of
dated GeoTIFF files ('scenes/*.tif', quoted so the shell leaves it alone).

The series is one (time, band, y, x) variable, found on its own when the input has exactly one,
or several (time, y, x) variables stacked as bands with --variables. Spatial dims may be y/x,
lat/lon or latitude/longitude; south-up grids are flipped. The CRS comes from --crs (the CRS of an
input declaring none; one declaring a CRS not equivalent to it is refused), else from its CF grid_mapping; lat/lon grids default to
EPSG:4326. A CRS without an EPSG code is recorded as the EPSG CRS equivalent to it, and the
summary says which. OUT must be new or empty. A quoted glob of NetCDF or HDF5 granules, one file
per timestep, is read as convert reads it (--time-from, --mask-valid).

A glob's files are dated by their names: an ISO date (2024-03-01) or YYYYMMDD, optionally with a
time; --date-format says where the date is when a name holds two (Landsat, Sentinel-2). The files
are read as `convert` reads a manifest's, with the same options (--grid, --resampling, ...).

Values are stored as the input stores them: a CF fill value (_FillValue, missing_value) becomes
the nodata and CF packing (scale_factor, add_offset) each band's scale and offset; --cast reads
the decoded values instead. A chronozarr store as INPUT is read reconstructed (--group: level).

OUT is a directory or an s3://, gs:// or az:// prefix. Memory is bounded by one block of cells,
whatever the area; with a dask.distributed client the blocks run on the cluster. A run that was
stopped (killed, disk full, network down) is completed by the same command with --resume.
"""

EPILOG = """\b
Examples:
  chronozarr encode scenes.nc my_store --variables B02,B03,B04,B08 --crs EPSG:32631
  chronozarr encode cube.zarr my_store --variable reflectance --encoding none --shard
  chronozarr encode sst.nc sst_store --variable sst --cast float32 --mask-variable valid
  chronozarr encode 'scenes/*.tif' my_store
  chronozarr encode 'S2/*.tif' my_store --date-format 'MSIL2A_%Y%m%dT%H%M%S_*'
  chronozarr encode mosaic.zarr s3://my-bucket/mosaic.zarr --variable data --resume
  chronozarr encode scenes.nc my_store --history
  chronozarr encode scenes.nc my_store --history --history-time 256
"""


def register(app: typer.Typer) -> None:
    app.command(
        "encode", help=HELP, epilog=EPILOG, short_help="Write a store from a NetCDF file, Zarr store or dated GeoTIFF glob.",
        no_args_is_help=True,
    )(encode_command)


@with_options(INPUT_OPTIONS, RASTER_OPTIONS, WRITER_OPTIONS)
def encode_command(
    input: str = typer.Argument(..., metavar="INPUT", help="NetCDF file, Zarr store (directory or URL) or 'glob/*.tif'.", show_default=False),
    out: str = typer.Argument(
        ..., metavar="OUT", help="New store: a directory that is absent or empty, or an s3://, gs://, az:// prefix.", show_default=False
    ),
    **options: Any,
) -> None:
    writer = writer_arguments(options)
    with open_input(input, **input_arguments(options), rasters=raster_arguments(options)) as source:
        writer["provenance"] = source.provenance(writer.get("provenance"))
        summary = encode(source.data, out, **(source.encode_arguments() | writer))
    typer.echo("\n".join([str(summary), *(f"note: {n}" for n in source.notes)]))
