"""Where a store's objects come from: a directory or an HTTP(S) base URL.

Both answer the same four questions (whole object, byte range, last bytes, size) and return None
for a key that is not there, which readers decode as fill. The HTTP rules follow static hosting
as it is: 404 and 410 are missing, 403 is an error unless told otherwise, a range must come back
206 with the Content-Range asked for, a 200 to a range is cut locally, 5xx and timeouts are
retried, and a signed URL's query goes with every request.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import BinaryIO, Protocol
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import StoreError

DEFAULT_MAX_OBJECT_BYTES = 4 * 2**30
DEFAULT_TIMEOUT = 10.0  # seconds: connecting, the first byte of an answer, any pause in its body
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.25
MAX_REDIRECTS = 5
SMALL_BODY = 64 * 2**10  # an error answer up to this size is read to keep its connection


class FetchError(StoreError):
    """An HTTP request failed in a way that is not a missing key; names the URL and status."""

    def __init__(self, url: str, status: int | None, reason: str) -> None:
        self.url = url
        self.status = status
        super().__init__(f"{reason}: {url}" + (f" (HTTP {status})" if status is not None else ""))


@dataclass
class RequestStats:
    """Requests by kind, for tests and benchmarks that count them."""

    get: int = 0
    range: int = 0
    suffix: int = 0
    head: int = 0
    missing: int = 0
    range_answered_whole: int = 0
    retries: int = 0
    bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, kind: str, nbytes: int = 0) -> None:
        with self._lock:
            setattr(self, kind, getattr(self, kind) + 1)
            self.bytes += nbytes

    @property
    def requests(self) -> int:
        return self.get + self.range + self.suffix + self.head

    def reset(self) -> None:
        with self._lock:
            for name in ("get", "range", "suffix", "head", "missing", "range_answered_whole", "retries", "bytes"):
                setattr(self, name, 0)


class ObjectSource(Protocol):
    stats: RequestStats

    def describe(self, key: str) -> str: ...
    def get(self, key: str) -> bytes | None: ...
    def get_range(self, key: str, start: int, length: int) -> bytes | None: ...
    def get_suffix(self, key: str, length: int) -> bytes | None: ...
    def size(self, key: str) -> int | None: ...


class LocalSource:
    """A store directory on disk."""

    def __init__(self, root: str | os.PathLike[str], max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> None:
        self.root = Path(root)
        self.max_object_bytes = max_object_bytes
        self.stats = RequestStats()

    def describe(self, key: str) -> str:
        return str(self.root / key)

    def _path(self, key: str) -> Path:
        if key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"refusing key outside the store: {key!r}")
        return self.root / key

    def _read(self, key: str, kind: str, read: Callable[[BinaryIO, int], bytes]) -> bytes | None:
        """Open the key's file and read from it; None (counted) when it is not there.

        Only a regular file is an object. The file is opened without blocking and checked before
        a byte is read: a FIFO would block the read forever and a device such as /dev/zero (or a
        link to one) would feed it without end.
        """
        try:
            fd = os.open(self._path(key), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            self.stats.count("missing")
            return None
        except OSError as exc:
            raise StoreError(f"{self.describe(key)} cannot be read ({exc.strerror or exc}): check its permissions") from None
        with open(fd, "rb", closefd=True) as handle:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                self.stats.count("missing")
                return None
            self._refuse_special(key, info.st_mode)
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            data = read(handle, info.st_size)
        self.stats.count(kind, len(data))
        return data

    def _refuse_special(self, key: str, mode: int) -> None:
        if not stat.S_ISREG(mode):
            raise StoreError(
                f"{self.describe(key)} is not a regular file (a FIFO, socket or device, or a link to one): "
                "store objects must be regular files; replace it with the object's bytes"
            )

    def get(self, key: str) -> bytes | None:
        def whole(f: BinaryIO, size: int) -> bytes:
            _check_size(size, self.max_object_bytes, self.describe(key))
            return f.read(size)

        return self._read(key, "get", whole)

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        def part(f: BinaryIO, size: int) -> bytes:
            if start + length > size:
                raise StoreError(f"{self.describe(key)} has {size} bytes, fewer than the range {start}-{start + length - 1}")
            f.seek(start)
            return f.read(length)

        return self._read(key, "range", part)

    def get_suffix(self, key: str, length: int) -> bytes | None:
        def tail(f: BinaryIO, size: int) -> bytes:
            if size < length:
                raise StoreError(f"{self.describe(key)} has {size} bytes, fewer than the {length} asked for")
            f.seek(size - length)
            return f.read(length)

        return self._read(key, "suffix", tail)

    def size(self, key: str) -> int | None:
        try:
            info = self._path(key).stat()
        except (FileNotFoundError, NotADirectoryError):
            self.stats.count("missing")
            return None
        if stat.S_ISDIR(info.st_mode):
            self.stats.count("missing")
            return None
        self._refuse_special(key, info.st_mode)
        self.stats.count("head")
        return info.st_size


def _check_size(size: int, limit: int, where: str) -> None:
    if size > limit:
        raise StoreError(f"{where} is {size} bytes, more than the {limit}-byte limit on one object")


class HttpSource:
    """A store published over HTTP(S); thread-safe, pooled connections.

    `timeout` bounds each wait of a request: for the connection, for the first byte of the answer,
    and between any two reads of its body. A failed attempt (a timeout, a dropped connection, a
    body shorter than its Content-Length, a 5xx) is retried `retries` times after `backoff`,
    2 * `backoff`, ... seconds, so with the defaults a server that never answers is given up on
    after about 4 x 10 + 1.75 = 42 seconds.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        forbidden_is_not_found: bool = False,
        max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES,
        concurrency: int = 16,
        headers: dict[str, str] | None = None,
    ) -> None:
        import urllib3

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise StoreError(f"not an HTTP(S) URL: {url!r}")
        if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise StoreError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self._base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        self._query = parts.query
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = backoff
        self.forbidden_is_not_found = forbidden_is_not_found
        self.max_object_bytes = max_object_bytes
        self.headers = dict(headers or {})
        self.stats = RequestStats()
        self._pool = urllib3.PoolManager(maxsize=max(concurrency, 1), block=False, retries=False)
        # urllib3 follows redirects itself (to another host too), at most MAX_REDIRECTS per request
        self._redirects = urllib3.Retry(total=None, connect=0, read=0, status=0, other=0, redirect=MAX_REDIRECTS, raise_on_redirect=True)

    def describe(self, key: str) -> str:
        url = f"{self._base}/{quote(key)}"
        return f"{url}?{self._query}" if self._query else url

    def _request(self, method: str, key: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes] | None:
        """One request with bounded retries on 5xx and network errors; None for a missing key."""
        url = self.describe(key)
        attempt = 0
        while True:
            status, reason, answer = self._attempt(method, url, headers)
            if answer is not None or status in (404, 410) or (status == 403 and self.forbidden_is_not_found):
                if answer is None:
                    self.stats.count("missing")
                return answer
            if attempt >= self.retries:
                raise FetchError(url, status, f"{reason}, gave up after {attempt + 1} attempts")
            attempt += 1
            self.stats.count("retries")
            time.sleep(self.backoff * 2 ** (attempt - 1))

    def _attempt(self, method: str, url: str, headers: dict[str, str]) -> tuple[int | None, str, tuple[int, dict[str, str], bytes] | None]:
        """(status, why it failed, the answer when it did not): one request and its whole body,
        every wait bounded by the timeout. Raises FetchError for what no retry can change."""
        import urllib3

        status: int | None = None
        try:
            response = self._pool.request(
                method,
                url,
                headers={**self.headers, **headers},
                timeout=urllib3.Timeout(connect=self.timeout, read=self.timeout),
                preload_content=False,
                retries=self._redirects,
            )
            status = response.status
            if status in (404, 410) or (status == 403 and self.forbidden_is_not_found):
                _discard(response)
                return status, "missing", None
            if status == 403:
                _discard(response)
                raise FetchError(
                    url, status, "access forbidden; the host refuses this key (a private bucket, or one that "
                    "answers 403 for absent keys: pass forbidden_is_not_found=True for that)"
                )
            if status >= 500:
                _discard(response)
                return status, "server error", None
            headers_seen = {k.lower(): v for k, v in response.headers.items()}
            return status, "", (status, headers_seen, b"" if method == "HEAD" else self._body(response, url))
        except urllib3.exceptions.MaxRetryError as exc:
            if isinstance(exc.reason, urllib3.exceptions.ResponseError) or "redirect" in str(exc.reason).lower():
                raise FetchError(url, status, f"more than {MAX_REDIRECTS} redirects (a redirect loop?); give the store's final URL") from None
            return status, _failure(exc.reason or exc, self.timeout), None
        except urllib3.exceptions.HTTPError as exc:
            return status, _failure(exc, self.timeout), None

    def _body(self, response, url: str) -> bytes:  # type: ignore[no-untyped-def]
        """The whole body, refusing more than max_object_bytes whether or not Content-Length says so."""
        try:
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit():
                _check_size(int(length), self.max_object_bytes, url)
            chunks, total = [], 0
            for piece in response.stream(1 << 20, decode_content=False):
                total += len(piece)
                _check_size(total, self.max_object_bytes, url)
                chunks.append(piece)
            return b"".join(chunks)
        except BaseException:
            response.close()  # a body left unread must not go back to the pool
            raise
        finally:
            response.release_conn()

    def get(self, key: str) -> bytes | None:
        answer = self._request("GET", key, {})
        if answer is None:
            return None
        status, headers, body = answer
        self._refuse_transformed(status, headers, key)
        if status != 200:
            raise FetchError(self.describe(key), status, "unexpected status for a GET")
        self.stats.count("get", len(body))
        return body

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        end = start + length - 1
        return self._ranged(
            key, f"bytes={start}-{end}", "range",
            cut=lambda whole: whole[start : end + 1] if len(whole) > end else None,
            expected=lambda total: f"bytes {start}-{end}/",
        )

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._ranged(
            key, f"bytes=-{length}", "suffix",
            cut=lambda whole: whole[-length:] if len(whole) >= length else None,
            expected=lambda total: f"bytes {total - length}-{total - 1}/" if total is not None else "bytes ?",
        )

    def _ranged(
        self,
        key: str,
        spec: str,
        kind: str,
        cut: Callable[[bytes], bytes | None],
        expected: Callable[[int | None], str],
    ) -> bytes | None:
        """A range request: a 206 must carry the Content-Range asked for; a 200 is cut locally."""
        answer = self._request("GET", key, {"Range": spec})
        if answer is None:
            return None
        status, headers, body = answer
        self._refuse_transformed(status, headers, key)
        if status == 200:
            self.stats.count("range_answered_whole")
            part = cut(body)
            if part is None:
                raise FetchError(self.describe(key), status, f"object of {len(body)} bytes is shorter than the range {spec}")
            self.stats.count(kind, len(body))
            return part
        total = _content_range_total(headers.get("content-range", ""))
        self._check_partial(status, headers, body, key, expected(total))
        self.stats.count(kind, len(body))
        return body

    def size(self, key: str) -> int | None:
        answer = self._request("HEAD", key, {})
        if answer is None:
            return None
        status, headers, _ = answer
        length = headers.get("content-length")
        if status != 200 or length is None or not length.isdigit():
            raise FetchError(self.describe(key), status, "HEAD gave no Content-Length")
        self.stats.count("head")
        return int(length)

    def _check_partial(self, status: int, headers: dict[str, str], body: bytes, key: str, expected_prefix: str) -> None:
        url = self.describe(key)
        if status == 416:
            raise FetchError(url, status, "byte range outside the object (the store's metadata does not match it)")
        if status != 206:
            raise FetchError(url, status, "unexpected status for a range request")
        content_range = headers.get("content-range", "")
        if not content_range.startswith(expected_prefix):
            raise FetchError(
                url, status, f"the server answered Content-Range {content_range!r} to a request for {expected_prefix}..."
            )
        first, last = (int(v) for v in content_range.split(" ")[1].split("/")[0].split("-"))
        if len(body) != last - first + 1:
            raise FetchError(url, status, f"the body has {len(body)} bytes but Content-Range says {last - first + 1}")

    def _refuse_transformed(self, status: int, headers: dict[str, str], key: str) -> None:
        encoding = headers.get("content-encoding", "identity").lower()
        if encoding not in ("identity", ""):
            raise FetchError(
                self.describe(key), status,
                f"the server sent Content-Encoding {encoding}; chunks and shards must be served as stored "
                "(spec 9), so byte offsets would not match",
            )


def _discard(response) -> None:  # type: ignore[no-untyped-def]
    """Let go of an answer whose body is not wanted: a small one is read so its connection can be
    reused, anything else (a large body, one of unknown length, one that stalls) is dropped."""
    import urllib3

    length = response.headers.get("Content-Length")
    try:
        if length is not None and length.isdigit() and int(length) <= SMALL_BODY:
            response.drain_conn()
        else:
            response.close()
    except urllib3.exceptions.HTTPError:
        response.close()
    finally:
        response.release_conn()


def _failure(exc: BaseException, timeout: float) -> str:
    """What went wrong with an attempt, in words that say which wait ran out."""
    import urllib3

    if isinstance(exc, urllib3.exceptions.ConnectTimeoutError):
        return f"no connection within the {timeout:g} s timeout"
    if isinstance(exc, (urllib3.exceptions.ReadTimeoutError, TimeoutError)):
        return f"the server sent nothing for the {timeout:g} s timeout (no answer, or a body that stalled)"
    if isinstance(exc, urllib3.exceptions.ProtocolError) and "IncompleteRead" in repr(exc):
        return "the connection closed before the whole body arrived (a body shorter than its Content-Length)"
    return f"request failed ({type(exc).__name__}: {exc})"


def _content_range_total(value: str) -> int | None:
    try:
        total = value.split("/")[1]
    except IndexError:
        return None
    return int(total) if total.isdigit() else None


def open_source(location: str | os.PathLike[str], **options: object) -> ObjectSource:
    """LocalSource for a path, HttpSource for an http(s) URL."""
    text = os.fspath(location)
    if text.startswith(("http://", "https://")):
        return HttpSource(text, **options)  # type: ignore[arg-type]
    path = Path(text[len("file://") :] if text.startswith("file://") else text)
    local_options = {k: v for k, v in options.items() if k == "max_object_bytes"}
    return LocalSource(path, **local_options)  # type: ignore[arg-type]
