"""`chronozarr doctor TARGET`: is a store served the way browsers and readers need it?"""

from __future__ import annotations

import json

import typer

from ..check.doctor import DEFAULT_ORIGIN, doctor

HELP = """Check how TARGET is served: the hosting checklist for an http(s) URL (CORS, byte and suffix
ranges, preflight, HEAD, cache headers, 404 for absent keys, no Content-Encoding), then validation
and decoding of every level, with one pixel read through plain zarr-python compared to chronozarr's
decode. For a directory only validation and decoding run.

Prints one line per check (ok, FAIL, warn, info) and a summary. Exit status 1 only when a check
fails; warnings and info lines do not.
"""

EPILOG = """\b
Examples:
  chronozarr doctor https://data.example.org/aoi/chronozarr-3
  chronozarr doctor https://data.example.org/aoi/chronozarr-3 --origin https://maps.example.org --json
  chronozarr doctor demo-output/demo.zarr
"""


def register(app: typer.Typer) -> None:
    app.command("doctor", help=HELP, epilog=EPILOG, short_help="Check how a store is hosted.", no_args_is_help=True)(
        doctor_command
    )


def doctor_command(
    target: str = typer.Argument(..., metavar="TARGET", help="Store URL (http/https) or directory.", show_default=False),
    origin: str = typer.Option(DEFAULT_ORIGIN, "--origin", help="Origin header sent with every request: the page that will read the store."),
    as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
) -> None:
    report = doctor(target, origin=origin)
    typer.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.to_text())
    raise typer.Exit(0 if report.ok else 1)
