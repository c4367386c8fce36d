"""`chronozarr append STORE INPUT`: add the timesteps of a NetCDF file or Zarr store to a store."""

from __future__ import annotations

import typer

from ..write.append import AppendSummary, append
from ..write.existing import open_existing
from ..write.output import open_output
from .inputs import open_input
from .options import endpoint_option, progress_option, split_names

HELP = """Append the timesteps of INPUT (NetCDF file, Zarr store, or a quoted glob of NetCDF/HDF5
granules, one timestep each) to the end of STORE, in place.

INPUT is read like encode's input and must match the store: grid, bands, dtype, CRS, nodata,
mask and coverage exactly when the store has them, and times strictly after the store's last.
Only the objects that gain data and the metadata are written, the root zarr.json last. An append
killed part way leaves the old store intact, or a journal that running the same append again
completes. Publish with the root zarr.json last (docs/append.md). STORE may be an s3://, gs://
or az:// store (run one append at a time on it: an object store has no lock).
"""

EPILOG = """\b
Examples:
  chronozarr append my_store new_month.nc --variables B02,B03,B04,B08
  chronozarr append my_store new_month.zarr --dry-run
  chronozarr append s3://my-bucket/store.zarr new_month.nc --endpoint https://r2.example.com
"""


def register(app: typer.Typer) -> None:
    app.command(
        "append", help=HELP, epilog=EPILOG, short_help="Add timesteps to the end of a store.", no_args_is_help=True
    )(append_command)


def append_command(
    store: str = typer.Argument(..., metavar="STORE", help="Existing chronozarr store: a directory or s3://, gs://, az://.", show_default=False),
    input: str = typer.Argument(..., metavar="INPUT", help="NetCDF file, Zarr store or 'granules/*.nc' with the new timesteps.", show_default=False),
    crs: str | None = typer.Option(None, metavar="EPSG:CODE", help="CRS of the input grid; default: the input's, else the store's."),
    variable: str | None = typer.Option(None, metavar="NAME", help="The (time, band, y, x) variable; default: the only 4-D one."),
    variables: str | None = typer.Option(None, metavar="A,B,...", help="Comma-separated (time, y, x) variables stacked as bands."),
    mask_variable: str | None = typer.Option(None, metavar="NAME", help="(time, y, x) validity variable (when the store has a mask)."),
    mask_valid: str | None = typer.Option(None, metavar="V,W,...", help="The values of --mask-variable that mean valid (quality flags)."),
    coverage_variable: str | None = typer.Option(None, metavar="NAME", help="(time, y, x) observation counts (when the store has coverage)."),
    group: str | None = typer.Option(None, metavar="PATH", help="Group inside the input that holds the variables."),
    time_from: str | None = typer.Option(
        None, metavar="ATTR|/PATH", help="A glob of granules: each file's date from this attribute or /path/to/variable.",
    ),
    cast: str | None = typer.Option(None, metavar="DTYPE", help="Convert the data to the store's dtype first (exact casts only)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List every object the append would write, with its class; write nothing."),
    workers: int | None = typer.Option(None, min=1, help="Compression threads; default: all cores."),
    progress: bool | None = progress_option(),
    endpoint: str | None = endpoint_option(),
) -> None:
    options = {"endpoint": endpoint} if endpoint else None
    store_crs = open_existing(open_output(store, options), options).meta.crs
    with open_input(input, variable, split_names(variables), mask_variable, coverage_variable, group, crs, cast, store_crs,
                    mask_valid=mask_valid, time_from=time_from) as source:
        summary = append(
            store, source.data, **source.encode_arguments(), workers=workers, progress=progress, dry_run=dry_run, storage_options=options
        )
    _report(summary)


def _report(summary: AppendSummary) -> None:
    """One line per object (dry run), then the totals."""
    if summary.dry_run:
        for obj in summary.objects:
            typer.echo(f"{obj.kind:<10} {obj.key}")
        if summary.resumed:
            typer.echo("an interrupted append is pending: the next append completes it first")
    typer.echo(str(summary))
