"""`chronozarr encode INPUT OUT`: open a NetCDF file or Zarr store and write a new store from it."""

from __future__ import annotations

from typing import Any

import typer

from ..write.encode import encode
from .inputs import open_input
from .options import INPUT_OPTIONS, WRITER_OPTIONS, input_arguments, with_options, writer_arguments

HELP = """Write a new chronozarr store OUT from a NetCDF file or Zarr store (v2 or v3).

The series is one (time, band, y, x) variable, found on its own when the input has exactly one,
or several (time, y, x) variables stacked as bands with --variables. Spatial dims may be y/x,
lat/lon or latitude/longitude; south-up grids are flipped. The CRS comes from --crs, else from
the input's CF grid_mapping; lat/lon grids default to EPSG:4326. OUT must be new or empty.

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
  chronozarr encode mosaic.zarr s3://my-bucket/mosaic.zarr --variable data --resume
"""


def register(app: typer.Typer) -> None:
    app.command(
        "encode", help=HELP, epilog=EPILOG, short_help="Write a store from a NetCDF file or Zarr store.", no_args_is_help=True
    )(encode_command)


@with_options(INPUT_OPTIONS, WRITER_OPTIONS)
def encode_command(
    input: str = typer.Argument(..., metavar="INPUT", help="NetCDF file or Zarr store (directory or URL).", show_default=False),
    out: str = typer.Argument(
        ..., metavar="OUT", help="New store: a directory that is absent or empty, or an s3://, gs://, az:// prefix.", show_default=False
    ),
    **options: Any,
) -> None:
    writer = writer_arguments(options)
    with open_input(input, **input_arguments(options)) as source:
        summary = encode(source.data, out, **(source.encode_arguments() | writer))
    typer.echo(str(summary))
