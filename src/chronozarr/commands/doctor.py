"""`chronozarr doctor TARGET`: is a store served the way browsers and readers need it?"""

from __future__ import annotations

import typer

from ..check.doctor import DEFAULT_ORIGIN, doctor
from ..check.doctor.client import DEFAULT_TOTAL_TIMEOUT
from ..store.http import DEFAULT_TIMEOUT
from .options import endpoint_option, store_location
from .reports import finish_with

HELP = """Check how TARGET is served: the hosting checklist for an http(s) URL (CORS, byte and suffix
ranges, preflight, HEAD, cache headers, 404 for absent keys, no Content-Encoding), then validation
and decoding of every level, with one pixel read through plain zarr-python compared to chronozarr's
decode. For a directory or an s3://, gs://, az:// URL only validation and decoding run.

Prints one line per check (ok, FAIL, warn, info) and a summary. Exit status 1 only when a check
fails; warnings and info lines do not. A host that does not answer, stalls in a body, cuts a body
short or redirects in a loop is a finding of its own; each wait gives up after --timeout seconds
and the checks stop after --total-timeout seconds in all.
"""

EPILOG = """\b
Examples:
  chronozarr doctor https://data.example.org/aoi/chronozarr-3
  chronozarr doctor https://data.example.org/aoi/chronozarr-3 --origin https://maps.example.org --json
  chronozarr doctor demo-output/demo.zarr
  chronozarr doctor s3://my-bucket/aoi/chronozarr-3
  chronozarr doctor https://slow.example.org/store --timeout 30 --total-timeout 600
"""


def register(app: typer.Typer) -> None:
    app.command("doctor", help=HELP, epilog=EPILOG, short_help="Check how a store is hosted.", no_args_is_help=True)(
        doctor_command
    )


def doctor_command(
    target: str = typer.Argument(..., metavar="TARGET", help="Store directory, http(s) URL or s3://, gs://, az:// URL.", show_default=False),
    origin: str = typer.Option(DEFAULT_ORIGIN, "--origin", help="Origin header sent with every request: the page that will read the store."),
    as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
    endpoint: str | None = endpoint_option(),
    timeout: float = typer.Option(DEFAULT_TIMEOUT, "--timeout", min=0.001, help=(
        "Seconds one wait may take: connecting, the first byte of an answer, a pause in a body."
    )),
    total_timeout: float = typer.Option(DEFAULT_TOTAL_TIMEOUT, "--total-timeout", min=0.001, help="Seconds all the checks may take together."),
) -> None:
    finish_with(doctor(store_location(target, endpoint), origin=origin, timeout=timeout, total_timeout=total_timeout), as_json)
