"""`chronozarr append STORE INPUT`: add the timesteps of a NetCDF file or Zarr store to a store."""

from __future__ import annotations

from typing import Any

import typer

from ..convert import append_composite
from ..write.append import AppendSummary, append
from ..write.existing import open_existing
from ..write.output import open_output
from .composite_options import COMPOSITE_OPTIONS, composite_arguments
from .inputs import open_input
from .options import endpoint_option, progress_option, split_names, with_options
from .raster_options import RASTER_OPTIONS, raster_arguments

HELP = """Append the timesteps of INPUT (NetCDF file, Zarr store, or a quoted glob of NetCDF/HDF5
granules, one timestep each) to the end of STORE, in place.

With --composite, INPUT is scenes (STAC items, a glob of dated files, a manifest) composited as
`convert --composite` does, each new period one new timestep: a monthly job appends its months.
Fixed NND periods count from the store's first date (or --period-start); --gap-fill carry-forward
carries the store's last timestep into the first new period. --reducer and --gap-fill default to
the store's (its provenance); another period, reducer, gap fill or mask rule is refused, so one
series keeps one definition. The raster options (--grid, --resolution, --resampling, --assets,
...) put the scenes on the store's grid.

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
  chronozarr append monthly april_items.json --assets B02,B03,B04,B08 --composite month \\
      --reducer median --valid scl:4,5,6,7,11 --gap-fill carry-forward
  chronozarr append monthly 'scenes/S2_202405*.tif' --composite month --valid scl:4,5,6,7,11 --dry-run
"""


def register(app: typer.Typer) -> None:
    app.command(
        "append", help=HELP, epilog=EPILOG, short_help="Add timesteps to the end of a store.", no_args_is_help=True
    )(append_command)


@with_options(RASTER_OPTIONS, COMPOSITE_OPTIONS)
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
    **chosen: Any,
) -> None:
    options = {"endpoint": endpoint} if endpoint else None
    composite = composite_arguments(chosen)
    if composite["composite"] is not None:
        rasters = raster_arguments(chosen) | ({"crs": crs} if crs else {})
        result = append_composite(store, input, **composite, cast=cast, storage_options=options, dry_run=dry_run, rasters=rasters,
                                  workers=workers, progress=progress)
        assert isinstance(result.result, AppendSummary)
        _report(result.result)
        for line in (*result.periods, *(f"note: {n}" for n in result.notes)):
            typer.echo(line)
        return
    store_crs = open_existing(open_output(store, options), options).meta.crs
    rasters = raster_arguments(chosen)
    with open_input(input, variable, split_names(variables), mask_variable, coverage_variable, group, crs, cast, store_crs, rasters,
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
