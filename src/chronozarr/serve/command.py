"""`chronozarr serve DIR`: serve a directory in the foreground, naming the stores it holds."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from .listing import stores_near, view_link, viewer_mounts
from .server import StoreServer


def serve_forever(root: str | os.PathLike[str], host: str = "127.0.0.1", port: int = 8000, log: bool = False, **switches: Any) -> None:
    """Serve `root` until Ctrl-C, printing its URL (the `chronozarr serve` command), which lists
    the stores with a link to view each; with `log`, one line per request on stderr, dropped
    rather than waited for when stderr is not read."""
    mounts = viewer_mounts(os.path.realpath(root))
    server = StoreServer(root, host, port, log=sys.stderr if log else None, mounts=mounts, listing=True, **switches)
    print(f"Serving {server.root} at {server.url}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
    for store in stores_near(server.root):
        view = f"   view: {server.url}{view_link(store)}" if "viewer" in mounts else ""
        print(f"  store: {server.url}/{store}{view}", file=sys.stderr, flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass


def serve_command(directory: str | os.PathLike[str], host: str = "127.0.0.1", port: int = 8000, log: bool = False) -> int:
    """Entry point for `chronozarr serve DIR [--host] [--port] [--log]`; returns the exit status."""
    if not Path(directory).is_dir():
        print(f"error: {directory} is not a directory; give the directory that holds the store(s)", file=sys.stderr)
        return 2
    try:
        serve_forever(directory, host, port, log=log)
    except OSError as err:  # port taken, address not available
        print(f"error: cannot listen on {host}:{port}: {err.strerror or err}; try --port 0 for a free port", file=sys.stderr)
        return 1
    return 0

