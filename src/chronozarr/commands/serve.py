"""`chronozarr serve DIR`: a local static server with ranges, CORS and per-object cache headers."""

from __future__ import annotations

from pathlib import Path

import typer

from ..serve import serve_command

HELP = """Serve DIR (stores, and the viewer) over HTTP on 127.0.0.1. The URL it prints lists the
stores with a link to view each in the viewer (served at /viewer/).

Answers GET and HEAD with byte ranges (206 + Content-Range), CORS for browsers, 404 for absent
keys, no compression, and the cache headers a host should send for each kind of object. It
serves at most 64 connections at once (more wait their turn, and connections idle for 0.5 s
are closed first to make room), closes a connection that stays idle for 20 s, and logs
requests only with --log.
"""

EPILOG = """\b
Examples:
  chronozarr serve demo-output            # http://127.0.0.1:8000/demo.zarr/
  chronozarr serve stores --port 0        # any free port, printed at start
  chronozarr serve stores --log           # one line per request on stderr
"""


def register(app: typer.Typer) -> None:
    app.command("serve", help=HELP, epilog=EPILOG, short_help="Serve stores over HTTP for local viewing.")(serve)


def serve(
    directory: Path = typer.Argument(..., metavar="DIR", help="Directory holding one or more stores.", show_default=False),
    port: int = typer.Option(8000, help="Port to listen on; 0 picks a free one."),
    host: str = typer.Option("127.0.0.1", help="Address to bind; the default keeps it on this machine."),
    log: bool = typer.Option(False, "--log", help="Write one line per request to stderr (dropped, never waited for, when stderr is not read)."),
) -> None:
    raise typer.Exit(serve_command(directory, host=host, port=port, log=log))
