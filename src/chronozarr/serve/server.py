"""The server's lifecycle: bind, serve on a background thread, log requests, stop cleanly."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .cache_control import CacheClasses
from .handler import LoggedRequest, RequestHandler
from .options import ServeOptions


class HttpServer(ThreadingHTTPServer):
    """What every request handler shares: the root, the options, the cache classes, the request
    log, and the open connections `StoreServer.stop` must close."""

    daemon_threads = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], root: str, options: ServeOptions, verbose: bool) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.root = root
        self.link_targets: tuple[str, ...] = ()  # real directories symlinks in root may lead to
        self.options = options
        self.verbose = verbose
        self.classes = CacheClasses(root, options)
        self.log: list[LoggedRequest] = []
        self.lock = threading.Lock()
        self.connections: set[socket.socket] = set()
        self.failures_left = options.fail_status[1] if options.fail_status else 0
        super().__init__(address, RequestHandler)

    def take_failure(self) -> int | None:
        """The status to fail this request with, while `fail_status` has failures left."""
        with self.lock:
            if self.failures_left <= 0:
                return None
            self.failures_left -= 1
        return int(self.options.fail_status[0])  # type: ignore[index]


class StoreServer:
    """A static server for a directory of stores and viewer files, on a background thread.

    >>> with StoreServer("data/stores", port=0) as srv:   # doctest: +SKIP
    ...     open_store(f"{srv.url}/aoi/chronozarr-3")

    Keyword switches (see `ServeOptions`) default to a correct host; `requests` lists what was
    answered, for tests that count requests.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        verbose: bool = False,
        link_targets: Iterable[str | os.PathLike[str]] = (),
        **switches: Any,
    ) -> None:
        path = Path(root)
        if not path.is_dir():
            raise NotADirectoryError(f"cannot serve {str(root)!r}: it is not a directory")
        self.root = os.path.realpath(path)
        self.host = host
        self.options = ServeOptions(**switches)
        self._verbose = verbose
        self._requested_port = port
        self._link_targets: tuple[str, ...] = ()
        for target in link_targets:
            self.allow_links_to(target)
        self._server: HttpServer | None = None
        self._thread: threading.Thread | None = None

    def _bind(self) -> HttpServer:
        if self._server is None:
            self._server = HttpServer((self.host, self._requested_port), self.root, self.options, self._verbose)
            self._server.link_targets = self._link_targets
        return self._server

    def allow_links_to(self, directory: str | os.PathLike[str]) -> None:
        """Let symlinks inside the root lead into `directory` (by default nothing outside the
        root is served). `view` lays out the viewer and a store as links in a temporary root."""
        real = os.path.realpath(directory)
        if not os.path.isdir(real):
            raise NotADirectoryError(f"cannot allow links to {os.fspath(directory)!r}: it is not a directory")
        if real not in self._link_targets:
            self._link_targets = (*self._link_targets, real)
        if self._server is not None:
            self._server.link_targets = self._link_targets

    @property
    def port(self) -> int:
        return int(self._bind().server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def requests(self) -> list[LoggedRequest]:
        server = self._bind()
        with server.lock:
            return list(server.log)

    def clear_log(self) -> None:
        server = self._bind()
        with server.lock:
            server.log.clear()

    def start(self) -> StoreServer:
        server = self._bind()
        if self._thread is None:
            # A short poll makes stop() quick: tests start and stop many servers.
            self._thread = threading.Thread(
                target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"chronozarr-serve:{self.port}", daemon=True
            )
            self._thread.start()
        return self

    def run(self) -> None:
        """Serve in the calling thread until interrupted."""
        try:
            self._bind().serve_forever()
        finally:
            self.stop()

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        if self._thread is not None:
            server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        with server.lock:  # idle keep-alive connections would otherwise hold their threads
            open_connections = list(server.connections)
        for conn in open_connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        server.server_close()

    def __enter__(self) -> StoreServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
