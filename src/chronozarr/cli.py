"""The `chronozarr` command: a thin shell over the Python API.

Commands live in `chronozarr.commands`, one module each; adding one is a module with a
`register(app)` function and a line in `COMMANDS`. Errors chronozarr raises on purpose end as
`error: <message>` on stderr with exit status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from . import __version__
from .commands import append, convert, demo, doctor, encode, export_cog, info, publish, series, serve, stac, validate, view
from .errors import ChronozarrError

COMMANDS = (encode, convert, append, serve, validate, info, series, doctor, view, publish, export_cog, stac, demo)
USER_ERROR_STATUS = 2  # what click uses for usage errors: the user can fix both

APP_HELP = """Write chronozarr stores: Zarr v3 raster time series that scrub through time.

\b
Example:
  chronozarr encode scenes.nc my_store --variables B02,B03,B04,B08 --crs EPSG:32631

Run `chronozarr COMMAND --help` for the options of a command.
"""


# typer ships its own copy of click; its UsageError is the base of the BadParameter it exports.
_USAGE_ERROR: Any = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


class _Commands(TyperGroup):
    """The app's group: turns a ChronozarrError from any command into `error: ...` and status 2."""

    def invoke(self, ctx: Any) -> Any:  # click's Context, or typer's own copy of click (typer >= 0.2x)
        try:
            return super().invoke(ctx)
        except ChronozarrError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(USER_ERROR_STATUS) from None
        except _USAGE_ERROR as exc:
            if "unexpected extra argument" in exc.message:
                exc.message += GLOB_HINT
            raise


GLOB_HINT = (
    ". If you typed a glob such as scenes/*.tif, the shell expanded it into many arguments: quote it "
    "('scenes/*.tif') so chronozarr reads the files itself"
)


app = typer.Typer(
    name="chronozarr",
    cls=_Commands,
    help=APP_HELP,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain click help: wraps prose, keeps \b example blocks verbatim
    pretty_exceptions_show_locals=False,  # locals can be whole arrays
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"chronozarr {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    # A callback keeps `encode` a subcommand even while it is the only one.
    pass


for _command in COMMANDS:
    _command.register(app)


def main() -> None:
    """Console-script entry point (`chronozarr`)."""
    app(prog_name="chronozarr")
