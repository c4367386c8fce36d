"""`chronozarr serve DIR`: serve a directory in the foreground, naming the stores it holds."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .cache_control import CacheClasses
from .options import ServeOptions
from .server import StoreServer


def serve_forever(root: str | os.PathLike[str], host: str = "127.0.0.1", port: int = 8000, log: bool = False, **switches: Any) -> None:
    """Serve `root` until Ctrl-C, printing its URL (the `chronozarr serve` command); with `log`,
    one line per request on stderr, dropped rather than waited for when stderr is not read."""
    server = StoreServer(root, host, port, log=sys.stderr if log else None, **switches)
    print(f"Serving {server.root} at {server.url}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
    for store in _stores_near(server.root):
        print(f"  store: {server.url}/{store}", file=sys.stderr, flush=True)
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


def _stores_near(root: str, depth: int = 2) -> Iterable[str]:
    """Store prefixes at most `depth` directories below root (and root itself), for the banner."""
    classes = CacheClasses(root, ServeOptions())
    frontier: list[list[str]] = [[]]
    for _ in range(depth + 1):
        below: list[list[str]] = []
        for dirs in frontier:
            if classes.store_depth(dirs) == len(dirs):
                yield "/".join(dirs) + ("/" if dirs else "")
                continue
            try:
                names = sorted(e.name for e in os.scandir(os.path.join(root, *dirs)) if e.is_dir() and not e.name.startswith("."))
            except OSError:
                continue
            below.extend(dirs + [n] for n in names)
        frontier = below
