"""`chronozarr export-cog STORE OUT_DIR`: true-value Cloud Optimized GeoTIFFs, one per timestep."""

from __future__ import annotations

from pathlib import Path

import typer

from ..export.cog import export_cog
from ..export.times import SYNTAX
from .options import endpoint_option, progress_option, store_location

HELP = """Write one Cloud Optimized GeoTIFF per timestep of STORE (a directory, an http(s) URL or an s3://, gs://, az:// URL)
into OUT_DIR, named L<level>_<YYYY-MM-DD>.tif (with the time of day when two timesteps share a
date). Values are the store's true values: star-delta timesteps are reconstructed, nothing is
rescaled or resampled.

Each file is DEFLATE-compressed (predictor 2, or 3 for float32) in 512 x 512 pixel-interleaved
tiles with AVERAGE overviews at 2, 4 and 8, and carries the store's CRS, transform and nodata,
band names as descriptions, and each band's scale, offset and units. Pixels the store's mask marks
invalid are written as nodata when the store has one, and the mask is kept as the file's mask band.

Files that already exist are refused unless --overwrite; other files in OUT_DIR are left alone.
Each file appears under its name only once it is complete. Needs the geo extra (rasterio).
"""

EPILOG = """\b
Examples:
  chronozarr export-cog my_store cogs/
  chronozarr export-cog my_store cogs/ --level 1 --times 2024-01..2024-06
  chronozarr export-cog https://example.org/stores/aoi cogs/ --times 0,-1
  chronozarr export-cog s3://my-bucket/aoi/chronozarr-3 cogs/ --times -1
"""


def register(app: typer.Typer) -> None:
    app.command(
        "export-cog", help=HELP, epilog=EPILOG, short_help="Export true-value COGs, one per timestep.", no_args_is_help=True
    )(export_cog_command)


def export_cog_command(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory, http(s) URL or s3://, gs://, az:// URL.", show_default=False),
    out_dir: Path = typer.Argument(..., metavar="OUT_DIR", help="Directory for the GeoTIFFs; made when missing.", show_default=False),
    level: int = typer.Option(0, "--level", help="Pyramid level to export (0 is full resolution)."),
    times: str | None = typer.Option(None, "--times", metavar="SELECTION", help=f"Timesteps to export: {SYNTAX}; default: all."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace files of the same names in OUT_DIR."),
    progress: bool | None = progress_option(),
    endpoint: str | None = endpoint_option(),
) -> None:
    typer.echo(str(export_cog(store_location(store, endpoint), out_dir, level=level, times=times, overwrite=overwrite, progress=progress)))
