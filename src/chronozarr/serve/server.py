"""The server's lifecycle: bind, serve on a background thread, log requests, stop cleanly."""

from __future__ import annotations

import os
import queue
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

from ..errors import DirectoryError
from .cache_control import CacheClasses
from .handler import LoggedRequest, RequestHandler
from .options import ServeOptions

REQUEST_LOG_LIMIT = 100_000  # answered requests kept for `StoreServer.requests`; older ones are dropped
SLOT_WAIT = 0.1  # seconds the accepting thread waits for a free slot before it looks again
IDLE_BEFORE_CLOSE = 0.5  # seconds without a request after which a connection may be closed to make room


class AccessLog:
    """Request lines written to a stream by a thread of their own, so that a stream nobody reads
    (a pipe whose reader went away or stalled) never stops the server: lines that find the queue
    full are dropped and counted instead of waiting."""

    def __init__(self, stream: TextIO, capacity: int = 1024) -> None:
        self.dropped = 0
        self._stream = stream
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=capacity)
        threading.Thread(target=self._drain, name="chronozarr-serve-log", daemon=True).start()

    def write(self, line: str) -> None:
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            self.dropped += 1

    def close(self) -> None:
        try:
            self._lines.put_nowait(None)
        except queue.Full:
            pass

    def _drain(self) -> None:
        while (line := self._lines.get()) is not None:
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError):  # the stream is gone: keep draining, write nothing
                pass


class HttpServer(ThreadingHTTPServer):
    """What every request handler shares: the root, the options, the cache classes, the request
    log, and the open connections `StoreServer.stop` must close. At most `max_connections` are
    served at once: each holds a thread, and a client that opens thousands must not exhaust them.
    A connection beyond the cap waits in the listen queue until one ends, and connections that
    sit idle (no request for IDLE_BEFORE_CLOSE) are closed first to make room: held sockets never
    keep a real client out, and a burst (zarrita sends hundreds of requests at once) is queued."""

    daemon_threads = True
    request_queue_size = 1024

    def __init__(
        self,
        address: tuple[str, int],
        root: str,
        options: ServeOptions,
        access_log: AccessLog | None,
        mounts: Mapping[str, str],
        handler: type[RequestHandler] = RequestHandler,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.root = root
        self.link_targets: tuple[str, ...] = ()  # real directories symlinks in root may lead to
        self.mounts = dict(mounts)  # URL name -> real directory served under it
        self.options = options
        self.access_log = access_log
        self.classes = CacheClasses(root, options.cache_policy())
        self.log: deque[LoggedRequest] = deque(maxlen=REQUEST_LOG_LIMIT)
        self.lock = threading.Lock()
        self.connections: dict[socket.socket, float | None] = {}  # each open one, and since when it waits for a request
        self.closed_idle = 0
        self._slots = threading.BoundedSemaphore(options.max_connections)
        super().__init__(address, handler)

    def get_request(self) -> tuple[Any, Any]:
        """Accept a connection only once a slot is free for it; until then it waits in the listen
        queue (serve_forever asks again, and sees a shutdown in between)."""
        if not self._slots.acquire(blocking=False):
            self._close_idle()
            if not self._slots.acquire(timeout=SLOT_WAIT):
                raise OSError("every connection slot is busy")  # _handle_request_noblock lets it pass
        try:
            return super().get_request()
        except BaseException:
            self._slots.release()
            raise

    def _close_idle(self) -> None:
        """Close the connection that has waited longest for a request, if it waited long enough:
        its thread ends and frees its slot."""
        now = time.monotonic()
        with self.lock:
            waiting = [(since, conn) for conn, since in self.connections.items() if since is not None and now - since >= IDLE_BEFORE_CLOSE]
        if not waiting:
            return
        _, conn = min(waiting, key=lambda pair: pair[0])
        self.closed_idle += 1
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def waiting(self, conn: socket.socket, idle: bool) -> None:
        """Record that a connection waits for its next request (idle) or is being answered."""
        with self.lock:
            if conn in self.connections:
                self.connections[conn] = time.monotonic() if idle else None

    def process_request(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that resets or drops its connection is no error of ours: no traceback for it."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class StoreServer:
    """A static server for a directory of stores and viewer files, on a background thread.

    >>> with StoreServer("data/stores", port=0) as srv:   # doctest: +SKIP
    ...     open_dataset(f"{srv.url}/aoi/chronozarr-3")

    Keyword switches (see `ServeOptions`) default to a correct host; `requests` lists what was
    answered, for tests that count requests. `log` is a stream for one line per request, written
    without ever blocking the server (none by default). `mounts` serves other directories under
    top-level names (the viewer beside the stores of `chronozarr serve`). `handler` is the class
    that answers each request: tests give a subclass that misbehaves on purpose.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        log: TextIO | None = None,
        link_targets: Iterable[str | os.PathLike[str]] = (),
        mounts: Mapping[str, str | os.PathLike[str]] | None = None,
        handler: type[RequestHandler] = RequestHandler,
        **switches: Any,
    ) -> None:
        path = Path(root)
        if not path.is_dir():
            raise DirectoryError(f"cannot serve {str(root)!r}: it is not a directory")
        self.root = os.path.realpath(path)
        self.host = host
        self.options = ServeOptions(**switches)
        self._handler = handler
        self._log_stream = log
        self._mounts = {name: os.path.realpath(path) for name, path in (mounts or {}).items()}
        self._requested_port = port
        self._link_targets: tuple[str, ...] = ()
        self._server: HttpServer | None = None
        self._thread: threading.Thread | None = None
        for target in link_targets:
            self.allow_links_to(target)

    def _bind(self) -> HttpServer:
        if self._server is None:
            access_log = AccessLog(self._log_stream) if self._log_stream is not None else None
            self._server = HttpServer((self.host, self._requested_port), self.root, self.options, access_log, self._mounts, self._handler)
            self._server.link_targets = self._link_targets
        return self._server

    def allow_links_to(self, directory: str | os.PathLike[str]) -> None:
        """Let symlinks inside the root lead into `directory` (by default nothing outside the
        root is served). `view` lays out the viewer and a store as links in a temporary root."""
        real = os.path.realpath(directory)
        if not os.path.isdir(real):
            raise DirectoryError(f"cannot allow links to {os.fspath(directory)!r}: it is not a directory")
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
        if server.access_log is not None:
            server.access_log.close()

    def __enter__(self) -> StoreServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
