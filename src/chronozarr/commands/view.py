"""`chronozarr view STORE`: serve a store with the browser viewer and print the URL."""

from __future__ import annotations

import typer

from ..view import view_command

HELP = """Serve STORE (a directory) on 127.0.0.1 together with the viewer page, and print the viewer's
URL; STORE may also be an http(s) URL, which is read from where it is (only the page is served).
Runs until Ctrl-C. In a notebook, `chronozarr.view(store)` shows the same viewer inline.
"""

EPILOG = """\b
Examples:
  chronozarr view demo-output/demo.zarr
  chronozarr view my_store --port 8001 --open
  chronozarr view https://data.example.org/aoi/chronozarr-3
"""


def register(app: typer.Typer) -> None:
    app.command("view", help=HELP, epilog=EPILOG, short_help="Look at a store in the browser viewer.", no_args_is_help=True)(
        view
    )


def view(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory or http(s) URL.", show_default=False),
    port: int = typer.Option(0, "--port", help="Port to listen on; 0 picks a free one."),
    open_browser: bool = typer.Option(False, "--open/--no-browser", help="Open the URL in a browser (not by default)."),
) -> None:
    raise typer.Exit(view_command(store, port=port, open_browser=open_browser, echo=typer.echo))
