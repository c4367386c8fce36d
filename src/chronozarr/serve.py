"""A static HTTP server for chronozarr stores and the viewer (spec 9 and 14, docs/hosting.md).

It answers as a good host does: byte ranges, CORS, real 404s, no Content-Encoding, and a
Cache-Control per object class. Each keyword switch of `StoreServer` breaks one of those on purpose,
so that readers and `doctor` can be tested against the hosts people really have. Standard library
only: it backs the tests, `chronozarr serve` and the viewer.
"""

from __future__ import annotations

import email.utils
import gzip
import json
import os
import re
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple
from urllib.parse import quote, unquote

from .spec.caching import IMMUTABLE_CACHE_CONTROL, SHORT_LIVED, chronozarr_block, object_class

IMMUTABLE_CACHE = IMMUTABLE_CACHE_CONTROL
MUTABLE_CACHE = "public, max-age=60"
ASSET_CACHE = "no-cache"
# An error must not outlive an append: the key that is absent today may be written tomorrow.
ERROR_CACHE = "no-store"

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

# One range only. A list of ranges does not match, so it is ignored and answered 200 with the
# whole body, which RFC 9110 (14.2) allows; readers never need multipart/byteranges.
_RANGE = re.compile(r"\s*bytes\s*=\s*([0-9]*)\s*-\s*([0-9]*)\s*", re.IGNORECASE)


class LoggedRequest(NamedTuple):
    """One answered request. `path` is the request target as sent, query included; `bytes_sent`
    is the length of the body the response carries (0 for HEAD and 304)."""

    method: str
    path: str
    range: str | None
    status: int
    bytes_sent: int


@dataclass(frozen=True)
class ServeOptions:
    """How the server behaves. The defaults are a correct host; every other value is a fault."""

    cors: bool = True  # False: no Access-Control-* header at all, OPTIONS answered without them
    expose_headers: bool = True  # False: no Access-Control-Expose-Headers
    timing_allow_origin: bool = True
    ranges: bool = True  # False: Range ignored and no Accept-Ranges, like `python -m http.server`
    # A suffix range (bytes=-N) under a fault: False answers 400, as some hosts do; an int answers
    # that status instead (200 ignores the Range and sends the whole body).
    suffix_ranges: bool | int = True
    range_200: bool = False  # advertises Accept-Ranges, then answers every range 200 + whole body
    wrong_content_range: bool = False  # 206 with a range one byte off the one asked for
    head: bool = True  # False: HEAD answered 405
    gzip: bool = False  # gzip bodies when the client accepts it; ranges cut the gzipped bytes
    spa_fallback: bool = False  # absent keys answered 200 with an HTML page
    index_html: bool = True  # a directory outside any store serves its index.html when present
    short_cache: bool = False  # every object gets `mutable_cache`, immutable ones included
    forbidden: frozenset[str] = frozenset()  # keys starting with one of these answer 403
    missing_status: int = 404  # 403 or 410 imitate hosts that answer so for an absent key
    fail_status: tuple[int, int] | None = None  # (code, count): the first count requests fail
    latency: float = 0.0  # seconds slept before each response
    mutable_cache: str = MUTABLE_CACHE
    immutable_cache: str = IMMUTABLE_CACHE
    asset_cache: str = ASSET_CACHE

    def __post_init__(self) -> None:
        if isinstance(self.forbidden, str):
            raise TypeError(f"forbidden must be a set of key prefixes, got the string {self.forbidden!r}")
        object.__setattr__(self, "forbidden", frozenset(p.strip("/") for p in self.forbidden))
        if self.suffix_ranges is not True and not isinstance(self.suffix_ranges, bool):
            if not isinstance(self.suffix_ranges, int) or not 200 <= self.suffix_ranges <= 599:
                raise ValueError(f"suffix_ranges must be a bool or an HTTP status, got {self.suffix_ranges!r}")
        if self.fail_status is not None:
            code, count = self.fail_status
            if not 400 <= int(code) <= 599 or int(count) < 0:
                raise ValueError(f"fail_status must be (error status, count >= 0), got {self.fail_status!r}")
        if self.latency < 0:
            raise ValueError(f"latency must be >= 0 seconds, got {self.latency!r}")

    def suffix_status(self) -> int | None:
        """None when suffix ranges are honoured, else the status a suffix range is answered with."""
        if self.suffix_ranges is True:
            return None
        return 400 if self.suffix_ranges is False else int(self.suffix_ranges)


class Unsatisfiable(Exception):
    """A range that selects no byte of the object: answered 416."""


def parse_range(value: str, size: int) -> tuple[int, int] | None:
    """Inclusive (first, last) byte of a single `Range: bytes=...` against an object of `size`.

    None means the header is to be ignored (another unit, malformed, several ranges, last < first)
    and the whole body sent with 200. Raises Unsatisfiable for a range past the end, a zero-length
    suffix, or any range of an empty object.
    """
    match = _RANGE.fullmatch(value)
    if match is None:
        return None
    first, last = match.groups()
    if not first:
        if not last:
            return None
        length = int(last)
        if length == 0 or size == 0:
            raise Unsatisfiable(value)
        return max(0, size - length), size - 1
    start = int(first)
    end = int(last) if last else size - 1
    if last and end < start:
        return None
    if start >= size:
        raise Unsatisfiable(value)
    return start, min(end, size - 1)


def is_suffix_range(value: str) -> bool:
    match = _RANGE.fullmatch(value)
    return bool(match and not match.group(1) and match.group(2))


def resolve(root: str, target: str, link_targets: Iterable[str] = ()) -> tuple[str, list[str], bool] | None:
    """(real path, key segments, ends with '/') of a request target, or None when it leaves `root`.

    `root` is a real path. The query is ignored. `..`, NUL and backslashes are refused in any
    encoding, and the real path after symlinks must still be inside `root`, or inside one of the
    real directories `link_targets` that the server was told its symlinks may lead to.
    """
    path = target.split("#", 1)[0].split("?", 1)[0]
    if "://" in path:  # absolute-form target (a proxy request): keep its path
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    try:
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    real = os.path.realpath(os.path.join(root, *parts))
    if not any(real == base or real.startswith(base.rstrip(os.sep) + os.sep) for base in (root, *link_targets)):
        return None
    return real, parts, path.endswith("/")


class _JsonFiles:
    """Parsed JSON documents, re-read when a file's mtime or size changes (an append rewrites them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._docs: dict[str, tuple[tuple[int, int], Any]] = {}

    def get(self, path: str) -> Any:
        try:
            st = os.stat(path)
        except OSError:
            return None
        version = (st.st_mtime_ns, st.st_size)
        with self._lock:
            held = self._docs.get(path)
        if held is not None and held[0] == version:
            return held[1]
        try:
            with open(path, "rb") as f:
                doc = json.loads(f.read())
        except (OSError, ValueError):
            doc = None
        with self._lock:
            self._docs[path] = (version, doc)
        return doc


class CacheClasses:
    """The Cache-Control of each object: short for what an append rewrites in place (spec 14
    "Publishing"), a year for every other store object, revalidation for viewer assets."""

    def __init__(self, root: str, options: ServeOptions) -> None:
        self._root = root
        self._options = options
        self._json = _JsonFiles()

    def store_depth(self, dirs: list[str]) -> int | None:
        """How many of `dirs` lead to the nearest enclosing store root, or None outside any store."""
        for depth in range(len(dirs), -1, -1):
            doc = self._json.get(os.path.join(self._root, *dirs[:depth], "zarr.json"))
            if self._chronozarr(doc) is not None:
                return depth
        return None

    @staticmethod
    def _chronozarr(doc: Any) -> Mapping[str, Any] | None:
        return chronozarr_block(doc)

    def header(self, parts: list[str]) -> str:
        opts = self._options
        if opts.short_cache or parts[-1] == "zarr.json":
            return opts.mutable_cache
        depth = self.store_depth(parts[:-1])
        if depth is None:
            return opts.asset_cache
        return opts.mutable_cache if self.object_class(parts, depth) in SHORT_LIVED else opts.immutable_cache

    def object_class(self, parts: list[str], depth: int) -> str:
        """The spec 14 class of the object at `parts`, in the store whose root is `parts[:depth]`."""
        store = os.path.join(self._root, *parts[:depth])
        block = self._chronozarr(self._json.get(os.path.join(store, "zarr.json")))
        return object_class(parts[depth:], block, lambda path: self._json.get(os.path.join(store, *path.split("/"), "zarr.json")))


class _Server(ThreadingHTTPServer):
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
        super().__init__(address, _Handler)

    def take_failure(self) -> int | None:
        """The status to fail this request with, while `fail_status` has failures left."""
        with self.lock:
            if self.failures_left <= 0:
                return None
            self.failures_left -= 1
        return int(self.options.fail_status[0])  # type: ignore[index]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "chronozarr-serve"
    timeout = 60  # an idle keep-alive connection holds a thread; let it go eventually
    disable_nagle_algorithm = True  # headers and body go out in separate writes: no 40 ms stall
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if self.server.verbose:
            super().log_message(format, *args)

    def end_headers(self) -> None:
        opts = self.server.options
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
        if status not in (204, 304):  # neither may carry a Content-Length of its own
            headers.setdefault("Content-Length", str(length))
        sent = length if send_body and status not in (204, 304) else 0
        request_headers = getattr(self, "headers", None)
        entry = LoggedRequest(
            getattr(self, "command", None) or "",
            getattr(self, "path", None) or "",
            request_headers.get("Range") if request_headers is not None else None,
            status,
            sent,
        )
        with self.server.lock:  # logged before the client can see the answer, so tests need not wait
            self.server.log.append(entry)
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if sent == 0:
                return
            if isinstance(body, bytes):
                self.wfile.write(body[offset : offset + length])
            elif self.connection.sendfile(body, offset, length) < length:  # the file shrank
                self.close_connection = True
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True

    def _plain(self, status: int, message: str = "", headers: dict[str, str] | None = None) -> None:
        body = (message or f"{status}\n").encode()
        all_headers = {"Content-Type": "text/plain; charset=utf-8", "Cache-Control": ERROR_CACHE, **(headers or {})}
        self._send(status, all_headers, body, send_body=getattr(self, "command", None) != "HEAD")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # The base class's errors (bad request line, unknown method) get CORS and a log entry too.
        self.close_connection = True
        self._plain(code, f"{code} {message or ''}\n", {"Connection": "close"})

    def _missing(self) -> None:
        if self.server.options.spa_fallback:
            self._send(200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": ASSET_CACHE}, FALLBACK_PAGE, send_body=self.command != "HEAD")
        else:
            self._plain(self.server.options.missing_status, "not found\n")

    def _intercepted(self) -> bool:
        """Apply the latency and fail_status faults; True when the request was answered."""
        opts = self.server.options
        if opts.latency:
            time.sleep(opts.latency)
        code = self.server.take_failure()
        if code is not None:
            self._plain(code, f"{code} injected failure\n")
            return True
        return False

    # -- methods ---------------------------------------------------------------------------

    def do_OPTIONS(self) -> None:
        if self._intercepted():
            return
        headers = {"Allow": ALLOW_METHODS, "Cache-Control": ERROR_CACHE}
        if self.server.options.cors:
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
        opts = self.server.options
        if self._intercepted():
            return
        if not send_body and not opts.head:
            self._plain(405, "method not allowed\n", {"Allow": "GET, OPTIONS"})
            return
        resolved = resolve(self.server.root, self.path, self.server.link_targets)
        if resolved is None:
            self._plain(404, "not found\n")
            return
        real, parts, trailing_slash = resolved
        key = "/".join(parts)
        if any(key.startswith(prefix) for prefix in opts.forbidden):
            self._plain(403, "forbidden\n")
            return
        if os.path.isdir(real):
            index = os.path.join(real, "index.html")
            if not (opts.index_html and os.path.isfile(index) and self.server.classes.store_depth(parts) is None):
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
        opts = self.server.options
        st = os.fstat(f.fileno())
        body: bytes | BinaryIO = f
        size = st.st_size
        headers = {
            "Content-Type": CONTENT_TYPES.get(os.path.splitext(parts[-1])[1].lower(), "application/octet-stream"),
            "Cache-Control": self.server.classes.header(parts),
            "Last-Modified": email.utils.formatdate(st.st_mtime, usegmt=True),
        }
        if parts[-1] == "zarr.json":
            headers["Content-Type"] = "application/json"
        etag = f'"{st.st_mtime_ns:x}-{size:x}"'
        if opts.gzip and _accepts_gzip(self.headers.get("Accept-Encoding", "")):
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
        except Unsatisfiable:
            headers |= {"Content-Range": f"bytes */{size}", "Cache-Control": ERROR_CACHE, "Content-Type": "text/plain; charset=utf-8"}
            self._send(416, headers, b"", send_body=False)
            return
        if span is None or opts.range_200:
            self._send(200, headers, body, (0, size), send_body)
            return
        first, last = _skewed(*span, size) if opts.wrong_content_range else span
        claimed_size = size + 1 if opts.wrong_content_range and (first, last) == span else size
        headers["Content-Range"] = f"bytes {first}-{last}/{claimed_size}"
        self._send(206, headers, body, (first, last - first + 1), send_body)


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


def _skewed(first: int, last: int, size: int) -> tuple[int, int]:
    """A range one byte off (first, last); the same range when the object leaves no room."""
    if last + 1 < size:
        return first + 1, last + 1
    if first > 0:
        return first - 1, last - 1
    return first, last


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
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def _bind(self) -> _Server:
        if self._server is None:
            self._server = _Server((self.host, self._requested_port), self.root, self.options, self._verbose)
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


def serve_forever(root: str | os.PathLike[str], host: str = "127.0.0.1", port: int = 8000, **switches: Any) -> None:
    """Serve `root` until Ctrl-C, printing its URL (the `chronozarr serve` command)."""
    server = StoreServer(root, host, port, verbose=True, **switches)
    print(f"Serving {server.root} at {server.url}/ (Ctrl-C to stop)", file=sys.stderr, flush=True)
    for store in _stores_near(server.root):
        print(f"  store: {server.url}/{store}", file=sys.stderr, flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass


def serve_command(directory: str | os.PathLike[str], host: str = "127.0.0.1", port: int = 8000) -> int:
    """Entry point for `chronozarr serve DIR [--host] [--port]`; returns the exit status."""
    if not Path(directory).is_dir():
        print(f"error: {directory} is not a directory; give the directory that holds the store(s)", file=sys.stderr)
        return 2
    try:
        serve_forever(directory, host, port)
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
