"""`chronozarr validate STORE`: check a store against the spec; exit 1 when a MUST is broken."""

from __future__ import annotations

import typer

from ..check import validate
from .options import endpoint_option, store_location
from .reports import finish_with

HELP = """Check STORE (a directory, an http(s) URL or an s3://, gs://, az:// URL) against every MUST of the chronozarr spec.

Prints one line per finding (severity, spec section, object key or attribute, message) and a
summary line. Exit status 1 when any rule fails, 0 otherwise (warnings do not fail).
"""

EPILOG = """\b
Examples:
  chronozarr validate my_store
  chronozarr validate https://example.org/stores/aoi --json
  chronozarr validate my_store --no-sample-pyramid
  chronozarr validate my_store --sample 200
  chronozarr validate s3://my-bucket/aoi/chronozarr-3
"""


def register(app: typer.Typer) -> None:
    app.command("validate", help=HELP, epilog=EPILOG, short_help="Check a store against the spec.", no_args_is_help=True)(
        validate_command
    )


def validate_command(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory, http(s) URL or s3://, gs://, az:// URL.", show_default=False),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    sample_pyramid: bool = typer.Option(
        True, "--sample-pyramid/--no-sample-pyramid", help="Read a few cells per level to check the pyramid reductions."
    ),
    sample: int | None = typer.Option(
        None, "--sample", min=1, metavar="N",
        help="Compare N inner chunks of the history array, chosen at random, with level 0; default: every one.",
    ),
    endpoint: str | None = endpoint_option(),
) -> None:
    finish_with(validate(store_location(store, endpoint), sample_pyramid=sample_pyramid, sample=sample), as_json)
