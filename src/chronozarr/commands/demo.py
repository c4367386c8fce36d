"""`chronozarr demo [DIR]`: the demo store, built, validated and served in the viewer."""

from __future__ import annotations

from pathlib import Path

import typer

from ..demo.command import FULL, SMALL, build_demo, serve_demo
from ..demo.scene import BANDS
from ..format.geometry import size_text
from .options import Encoding

HELP = f"""Generate a synthetic 10-year river series ({FULL['n_time']} monthly dates, {len(BANDS)} bands,
{size_text(FULL['width'], FULL['height'])}),
encode it into DIR/demo.zarr (DIR defaults to demo-output), validate it, read level 0 back bit for
bit, then serve it in the browser viewer on 127.0.0.1 and print the URL, until Ctrl-C.

Running it again replaces the demo store it made before and refuses to touch anything else.
Works from an installed package: the viewer ships with it.
"""

SMALL_SIZE = size_text(SMALL["width"], SMALL["height"])
EPILOG = """\b
Examples:
  chronozarr demo
  chronozarr demo /tmp/demo --port 8001
  chronozarr demo /tmp/demo --small --no-serve
"""


def register(app: typer.Typer) -> None:
    app.command("demo", help=HELP, epilog=EPILOG, short_help="Build the demo store and open it in the viewer.")(demo_command)


def demo_command(
    directory: Path = typer.Argument(Path("demo-output"), metavar="DIR", help="Directory for demo.zarr; made when missing."),
    small: bool = typer.Option(False, "--small", help=f"A tiny series ({SMALL['n_time']} dates, {SMALL_SIZE}), built in a second."),
    encoding: Encoding = typer.Option(Encoding.auto, help="Temporal encoding; auto keeps star-delta where it saves bytes."),
    seed: int = typer.Option(0, "--seed", help="Random seed of the scene."),
    serve: bool = typer.Option(True, "--serve/--no-serve", help="Serve the store in the viewer until Ctrl-C."),
    port: int = typer.Option(8000, "--port", help="Port to serve on (a free one when it is taken)."),
) -> None:
    store = build_demo(directory, small=small, encoding=encoding.value, seed=seed, out=typer.echo)
    if not serve:
        typer.echo(f"viewer: `chronozarr view {store}` serves it in the browser viewer")
        return
    raise typer.Exit(serve_demo(store, port, typer.echo))
