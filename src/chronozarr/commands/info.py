"""`chronozarr info STORE`: what a store holds, for people or (with --json) for programs."""

from __future__ import annotations

import json

import typer

from ..check import info, info_text
from .options import endpoint_option, store_location

HELP = """Describe STORE (a directory, an http(s) URL or an s3://, gs://, az:// URL): times and cadence, bands with scale,
offset and units, dtype and nodata, temporal encoding, levels, layout, mask and coverage, CRS,
and for a directory the number of objects and bytes.
"""

EPILOG = """\b
Examples:
  chronozarr info my_store
  chronozarr info https://example.org/stores/aoi --json
  chronozarr info s3://my-bucket/aoi/chronozarr-3
  AWS_SKIP_SIGNATURE=true chronozarr info s3://public-bucket/aoi --endpoint https://ACCOUNT.r2.cloudflarestorage.com
"""


def register(app: typer.Typer) -> None:
    app.command("info", help=HELP, epilog=EPILOG, short_help="Describe a store.", no_args_is_help=True)(info_command)


def info_command(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory, http(s) URL or s3://, gs://, az:// URL.", show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print the description as JSON."),
    endpoint: str | None = endpoint_option(),
) -> None:
    summary = info(store_location(store, endpoint))
    typer.echo(json.dumps(summary, indent=2) if as_json else info_text(summary))
