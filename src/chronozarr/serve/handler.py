"""One request answered: byte ranges, CORS, 404, conditional GETs and the host habits `ServeOptions`
asks for. The methods under "hooks" are where a test host that misbehaves changes the answer
(tests/faulty_host.py); the package itself never misbehaves."""

from __future__ import annotations

import email.utils
import gzip
import os
import socket
import stat
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, Protocol, cast
from urllib.parse import quote

from ..errors import RangeNotSatisfiable
from .cache_control import ASSET_CACHE, ERROR_CACHE, CacheClasses
from .listing import index_page
from .paths import resolve
from .ranges import is_suffix_range, parse_range

if TYPE_CHECKING:
    from .options import ServeOptions

ALLOW_METHODS = "GET, HEAD, OPTIONS"
ALLOW_HEADERS = ("Range", "Content-Type")
EXPOSE_HEADERS = "Content-Range, Content-Length, Accept-Ranges, ETag"
PREFLIGHT_MAX_AGE = "86400"

CONTENT_TYPES = {
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".wasm": "application/wasm",
    ".map": "application/json",
    ".txt": "text/plain; charset=utf-8",
}
FALLBACK_PAGE = b"<!doctype html><html><body><div id=app></div></body></html>\n"


class LoggedRequest(NamedTuple):
    """One answered request. `path` is the request target as sent, query included; `bytes_sent`
    is the length of the body the response carries (0 for HEAD and 304)."""

    method: str
    path: str
    range: str | None
    status: int
    bytes_sent: int


class LineSink(Protocol):
    def write(self, line: str) -> None: ...


class Host(Protocol):
    """What a request handler needs of the server that runs it (server.HttpServer)."""

    options: ServeOptions
    root: str
    link_targets: tuple[str, ...]
    mounts: dict[str, str]
    classes: CacheClasses
    access_log: LineSink | None
    log: deque[LoggedRequest]
    lock: threading.Lock
    connections: dict[socket.socket, float | None]

    def waiting(self, conn: socket.socket, idle: bool) -> None: ...


class RequestHandler(BaseHTTPRequestHandler):
    """Answers GET, HEAD and OPTIONS as a good static host does, with the habits the options ask for."""

    protocol_version = "HTTP/1.1"
    server_version = "chronozarr-serve"
    disable_nagle_algorithm = True  # headers and body go out in separate writes: no 40 ms stall

    @property
    def host(self) -> Host:
        """The server running this handler, as the handler sees it."""
        return cast(Host, self.server)

    def setup(self) -> None:
        # An idle keep-alive connection, or a client that stops reading, holds a thread: every
        # read and write of the connection gives up after idle_timeout seconds.
        self.request.settimeout(self.host.options.idle_timeout)  # what setup does with a class timeout
        super().setup()
        with self.host.lock:
            self.host.connections[self.connection] = None

    def finish(self) -> None:
        with self.host.lock:
            self.host.connections.pop(self.connection, None)
        super().finish()

    def handle_one_request(self) -> None:
        self.host.waiting(self.connection, idle=True)  # until the request line is in (parse_request)
        super().handle_one_request()

    def parse_request(self) -> bool:
        self.host.waiting(self.connection, idle=False)
        return super().parse_request()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.host.access_log is not None:
            self.host.access_log.write(f"{self.address_string()} - [{self.log_date_time_string()}] {format % args}")

    def end_headers(self) -> None:
        opts = self.host.options
        if opts.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
            if opts.expose_headers:
                self.send_header("Access-Control-Expose-Headers", EXPOSE_HEADERS)
        if opts.timing_allow_origin:
            self.send_header("Timing-Allow-Origin", "*")
        super().end_headers()

    # -- sending ---------------------------------------------------------------------------

    def _send(
        self,
        status: int,
        headers: dict[str, str],
        body: bytes | BinaryIO = b"",
        span: tuple[int, int] | None = None,
        send_body: bool = True,
    ) -> None:
        """Answer with `status`; the body is `body` (bytes or an open file) cut to `span`."""
        if span is None:
            span = (0, len(body) if isinstance(body, bytes) else 0)
        offset, length = span
        # A request line that does not parse is answered before the base class sets path or command.
        path = getattr(self, "path", None) or ""
        if status not in (204, 304):  # neither may carry a Content-Length of its own
            headers.setdefault("Content-Length", str(self.declared_length(length)))
        sent = length if send_body and status not in (204, 304) else 0
        request_headers = getattr(self, "headers", None)
        entry = LoggedRequest(
            getattr(self, "command", None) or "",
            path,
            request_headers.get("Range") if request_headers is not None else None,
            status,
            sent,
        )
        with self.host.lock:  # logged before the client can see the answer, so tests need not wait
            self.host.log.append(entry)
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if sent == 0:
                return
            self.write_body(body, offset, length)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def _plain(self, status: int, message: str = "", headers: dict[str, str] | None = None) -> None:
        body = (message or f"{status}\n").encode()
        all_headers = {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": ERROR_CACHE, **(headers or {})}
        self._send(status, all_headers, body, send_body=getattr(self, "command", None) != "HEAD")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # The base class's errors (bad request line, unknown method) get CORS and a log entry too,
        # and a status line even when the request line was too broken to name an HTTP version.
        self.close_connection = True
        if getattr(self, "request_version", "HTTP/0.9") == "HTTP/0.9":
            self.request_version = "HTTP/1.0"
        self._plain(code, f"{code} {message or ''}\n", {"Connection": "close"})

    def _missing(self) -> None:
        if self.host.options.spa_fallback:
            self._send(200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": ASSET_CACHE}, FALLBACK_PAGE, send_body=self.command != "HEAD")
        else:
            self._plain(self.host.options.missing_status, "not found\n")

    def _intercepted(self) -> bool:
        """Wait the options' latency, then give `intercept` its turn; True when the request was answered."""
        if self.host.options.latency:
            time.sleep(self.host.options.latency)
        return self.intercept()

    # -- hooks: a correct host here; a test host overrides them --------------------------------

    def intercept(self) -> bool:
        """Answer the request before it is served, returning True; a correct host never does."""
        return False

    def declared_length(self, length: int) -> int:
        """The Content-Length sent for a body of `length` bytes."""
        return length

    def write_body(self, body: bytes | BinaryIO, offset: int, length: int) -> None:
        """Send `length` bytes of `body` from `offset`."""
        if isinstance(body, bytes):
            self.wfile.write(body[offset : offset + length])
        elif self.connection.sendfile(body, offset, length) < length:  # the file shrank
            self.close_connection = True

    def forced_gzip(self) -> bool:
        """True to gzip the body whatever the client accepts; a correct host never does."""
        return False

    def range_answer(self, span: tuple[int, int], size: int) -> tuple[tuple[int, int] | None, str | None]:
        """For a satisfiable range `span` (first, last) of an object of `size` bytes: the span to
        send with 206 (None: 200 and the whole object) and the Content-Range to send with it."""
        return span, f"bytes {span[0]}-{span[1]}/{size}"

    # -- methods ---------------------------------------------------------------------------

    def do_OPTIONS(self) -> None:
        if self._intercepted():
            return
        headers = {"Allow": ALLOW_METHODS, "Cache-Control": ERROR_CACHE}
        if self.host.options.cors:
            asked = [h.strip() for h in self.headers.get("Access-Control-Request-Headers", "").split(",") if h.strip()]
            known = {h.lower() for h in ALLOW_HEADERS}
            allowed = list(ALLOW_HEADERS) + [h for h in asked if h.lower() not in known]
            headers |= {
                "Access-Control-Allow-Methods": ALLOW_METHODS,
                "Access-Control-Allow-Headers": ", ".join(allowed),
                "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
            }
        self._send(204, headers)

    def do_GET(self) -> None:
        self._serve_file(send_body=True)

    def do_HEAD(self) -> None:
        self._serve_file(send_body=False)

    def _refuse_method(self) -> None:
        self._plain(405, "method not allowed\n", {"Allow": ALLOW_METHODS})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse_method

    def _serve_file(self, send_body: bool) -> None:
        opts = self.host.options
        if self._intercepted():
            return
        if not send_body and not opts.head:
            self._plain(405, "method not allowed\n", {"Allow": "GET, OPTIONS"})
            return
        resolved = resolve(self.host.root, self.path, self.host.link_targets, self.host.mounts)
        if resolved is None:
            self._plain(404, "not found\n")
            return
        real, parts, trailing_slash = resolved
        key = "/".join(parts)
        if any(key.startswith(prefix) for prefix in opts.forbidden):
            self._plain(403, "forbidden\n")
            return
        if os.path.isdir(real) and not parts and opts.listing:
            page = index_page(self.host.root, "viewer" in self.host.mounts)
            self._send(200, {"Content-Type": CONTENT_TYPES[".html"], "Cache-Control": ERROR_CACHE}, page, send_body=send_body)
            return
        if os.path.isdir(real):
            index = os.path.join(real, "index.html")
            if not (opts.index_html and os.path.isfile(index) and self.host.classes.store_depth(parts) is None):
                self._missing()
                return
            if not trailing_slash:  # relative asset URLs in the page need the slash
                query = self.path.partition("?")[2]
                location = "/" + quote(key) + "/" + ("?" + query if query else "")
                self._send(301, {"Location": location, "Cache-Control": ERROR_CACHE})
                return
            real, parts = index, parts + ["index.html"]
        try:
            st = os.stat(real)
            if not stat.S_ISREG(st.st_mode):  # never open a fifo or a device
                raise FileNotFoundError(real)
            f = open(real, "rb")
        except OSError:
            self._missing()
            return
        with f:
            self._answer_with(f, parts, send_body)

    def _answer_with(self, f: BinaryIO, parts: list[str], send_body: bool) -> None:
        opts = self.host.options
        st = os.fstat(f.fileno())
        body: bytes | BinaryIO = f
        size = st.st_size
        headers = {
            "Content-Type": CONTENT_TYPES.get(os.path.splitext(parts[-1])[1].lower(), "application/octet-stream"),
            "Cache-Control": self.host.classes.header(parts),
            "Last-Modified": email.utils.formatdate(st.st_mtime, usegmt=True),
        }
        if parts[-1] == "zarr.json":
            headers["Content-Type"] = "application/json"
        etag = f'"{st.st_mtime_ns:x}-{size:x}"'
        if self.forced_gzip() or (opts.gzip and _accepts_gzip(self.headers.get("Accept-Encoding", ""))):
            body = gzip.compress(f.read(), mtime=0)
            size = len(body)
            etag = etag[:-1] + '-gz"'
            headers |= {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
        headers["ETag"] = etag
        if opts.ranges:
            headers["Accept-Ranges"] = "bytes"

        if _matches(self.headers.get("If-None-Match"), etag):
            self._send(304, {k: v for k, v in headers.items() if k in ("ETag", "Cache-Control", "Last-Modified")}, send_body=False)
            return
        wanted = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if wanted is None or not opts.ranges or (if_range is not None and if_range not in (etag, headers["Last-Modified"])):
            self._send(200, headers, body, (0, size), send_body)
            return
        suffix_status = opts.suffix_status()
        if suffix_status is not None and is_suffix_range(wanted):
            if suffix_status != 200:
                self._plain(suffix_status, "suffix ranges are not supported\n")
                return
            wanted = ""  # ignored: 200 with the whole body
        try:
            span = parse_range(wanted, size)
        except RangeNotSatisfiable:
            headers |= {"Content-Range": f"bytes */{size}", "Cache-Control": ERROR_CACHE, "Content-Type": "text/plain; charset=utf-8"}
            self._send(416, headers, b"", send_body=False)
            return
        sent, content_range = self.range_answer(span, size) if span is not None else (None, None)
        if sent is None:
            self._send(200, headers, body, (0, size), send_body)
            return
        if content_range is not None:
            headers["Content-Range"] = content_range
        self._send(206, headers, body, (sent[0], sent[1] - sent[0] + 1), send_body)


def _accepts_gzip(accept_encoding: str) -> bool:
    for item in accept_encoding.split(","):
        coding, _, params = item.partition(";")
        if coding.strip().lower() in ("gzip", "x-gzip", "*") and params.replace(" ", "") != "q=0":
            return True
    return False


def _matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
    return "*" in tags or etag in tags
