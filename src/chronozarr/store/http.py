"""A store published over HTTP(S), read-only, with the rules of static hosting as it is: 404 and 410 are
missing, 403 is an error unless told otherwise, a range must come back 206 with the Content-Range
asked for, a 200 to a range is cut locally, every wait is bounded by one timeout, 5xx, timeouts and
cut bodies are retried, redirects are followed a few times, and a signed URL's query goes with
every request.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import FetchError, StoreError
from ..limits import CALL_DEADLINE_SECONDS, REQUEST_TIMEOUT_SECONDS
from .deadline import call_deadline, time_left
from .interface import DEFAULT_MAX_OBJECT_BYTES, ReadOnlyWrites, bound, check_key, check_object_size, read_only

DEFAULT_TIMEOUT = REQUEST_TIMEOUT_SECONDS  # connecting, the first byte of an answer, any pause in its body
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.25
DEFAULT_DEADLINE = CALL_DEADLINE_SECONDS  # all the requests of one call: a read of many objects ends within a minute
MAX_REDIRECTS = 5
SMALL_BODY = 64 * 2**10  # an error answer up to this size is read to keep its connection


class Transport:
    """The package's one HTTP client: a pool of connections (up to `concurrency` kept per host)
    that follows at most MAX_REDIRECTS redirects, to another host too, and bounds each wait
    (connecting, the first byte, any pause in the body) by the timeout a request gives. HttpStore
    reads stores through it and doctor checks hosts through it; each adds its own retries."""

    def __init__(self, concurrency: int = 16) -> None:
        import urllib3

        self._pool = urllib3.PoolManager(maxsize=max(concurrency, 1), block=False, retries=False)
        self._redirects = urllib3.Retry(total=None, connect=0, read=0, status=0, other=0, redirect=MAX_REDIRECTS, raise_on_redirect=True)

    def send(self, method: str, url: str, headers: Mapping[str, str], timeout: float, decode_content: bool = True) -> Any:
        """The urllib3 response with its body unread (the caller reads, drains or closes it);
        urllib3's HTTPError for a failed connection or wait, MaxRetryError past the redirects."""
        import urllib3

        return self._pool.request(
            method, url, headers=dict(headers), timeout=urllib3.Timeout(connect=timeout, read=timeout),
            preload_content=False, decode_content=decode_content, retries=self._redirects,
        )

    def close(self) -> None:
        self._pool.clear()


class HttpStore(ReadOnlyWrites):
    """A store published over HTTP(S), read-only; thread-safe, pooled connections.

    `timeout` bounds each wait of a request: for the connection, for the first byte of the answer,
    and between any two reads of its body. A failed attempt (a timeout, a dropped connection, a
    body shorter than its Content-Length, a 5xx) is retried `retries` times after `backoff`,
    2 * `backoff`, ... seconds, so with the defaults a server that never answers is given up on
    after about 4 x 10 + 1.75 = 42 seconds. `deadline` bounds all the requests of one call of the
    store (every object a read needs, their retries and backoffs; 50 s), so no call waits longer
    whatever the number of objects; None leaves each request bounded only by its own waits.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF,
        deadline: float | None = DEFAULT_DEADLINE,
        forbidden_is_not_found: bool = False,
        max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES,
        concurrency: int = 16,
        headers: dict[str, str] | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise StoreError(f"not an HTTP(S) URL: {url!r}")
        if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise StoreError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if deadline is not None and not (isinstance(deadline, (int, float)) and 0 < deadline < float("inf")):
            raise StoreError(f"deadline must be a positive number of seconds or None, got {deadline!r}")
        self._base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        self._query = parts.query
        self.timeout = float(timeout)
        self.retries = retries
        self.backoff = backoff
        self.deadline = None if deadline is None else float(deadline)
        self.forbidden_is_not_found = forbidden_is_not_found
        self.max_object_bytes = max_object_bytes
        self.headers = dict(headers or {})
        self.events: Any = None  # RequestStats for retries and ranges answered whole (wrappers.CountingStore)
        self._transport = Transport(concurrency)

    local_root: Path | None = None
    writable = False
    listable = False  # a host answers for keys, it has no listing
    parallel_puts = False

    def _event(self, kind: str, nbytes: int = 0) -> None:
        if self.events is not None:
            self.events.count(kind, nbytes)

    def describe(self, key: str) -> str:
        url = f"{self._base}/{quote(key)}"
        return f"{url}?{self._query}" if self._query else url

    def _request(self, method: str, key: str, headers: dict[str, str], limit: int | None = None) -> tuple[int, dict[str, str], bytes] | None:
        """One request under the call's deadline (its own when no call set one); a body over `limit`
        bytes (the store's limit on one object unless given) is refused."""
        with call_deadline(self.deadline):
            return self._retried(method, check_key(key), headers, self.max_object_bytes if limit is None else limit)

    def _retried(self, method: str, key: str, headers: dict[str, str], limit: int) -> tuple[int, dict[str, str], bytes] | None:
        """One request with bounded retries on 5xx and network errors; None for a missing key."""
        url = self.describe(key)
        attempt = 0
        while True:
            status, reason, answer = self._attempt(method, url, headers, self._wait(url, 0.0), limit)
            if answer is not None or status in (404, 410) or (status == 403 and self.forbidden_is_not_found):
                return answer
            if attempt >= self.retries:
                raise FetchError(url, status, f"{reason}, gave up after {attempt + 1} attempts")
            attempt += 1
            self._event("retries")
            pause = self.backoff * 2 ** (attempt - 1)
            self._wait(url, pause, f"{reason}; ")
            time.sleep(pause)

    def _wait(self, url: str, needed: float, why: str = "") -> float:
        """The longest the next wait may last: the timeout, or what is left of the call's deadline;
        FetchError when less than `needed` is left."""
        left = time_left()
        if left is None:
            return self.timeout
        seconds, given = left
        if seconds <= needed:
            raise FetchError(url, None, f"{why}gave up when the call's {given:g} s deadline ran out (the deadline option sets it)")
        return min(self.timeout, seconds)

    def _attempt(
        self, method: str, url: str, headers: dict[str, str], timeout: float, limit: int
    ) -> tuple[int | None, str, tuple[int, dict[str, str], bytes] | None]:
        """(status, why it failed, the answer when it did not): one request and its whole body,
        every wait bounded by `timeout`. Raises FetchError for what no retry can change."""
        import urllib3

        status: int | None = None
        try:
            response = self._transport.send(method, url, {**self.headers, **headers}, timeout)
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
            body = self._body(response, url, limit)  # a HEAD has none; reading it returns the connection to the pool
            return status, "", (status, headers_seen, body)
        except urllib3.exceptions.MaxRetryError as exc:
            if isinstance(exc.reason, urllib3.exceptions.ResponseError) or "redirect" in str(exc.reason).lower():
                raise FetchError(url, status, f"more than {MAX_REDIRECTS} redirects (a redirect loop?); give the store's final URL") from None
            return status, _failure(exc.reason or exc, timeout), None
        except urllib3.exceptions.HTTPError as exc:
            return status, _failure(exc, timeout), None

    def _body(self, response: Any, url: str, limit: int) -> bytes:
        """The whole body, refusing more than max_object_bytes whether or not Content-Length says so."""
        try:
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit():
                check_object_size(int(length), limit, url)
            chunks, total = [], 0
            for piece in response.stream(1 << 20, decode_content=False):
                total += len(piece)
                check_object_size(total, limit, url)
                chunks.append(piece)
                self._wait(url, 0.0, f"{total} bytes of the body arrived; ")
            return b"".join(chunks)
        except BaseException:
            response.close()  # a body left unread must not go back to the pool
            raise
        finally:
            response.release_conn()

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        answer = self._request("GET", key, {}, bound(self.max_object_bytes, max_bytes))
        if answer is None:
            return None
        status, headers, body = answer
        self._refuse_transformed(status, headers, key)
        if status != 200:
            raise FetchError(self.describe(key), status, "unexpected status for a GET")
        return body

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        end = start + length - 1
        return self._ranged(
            key, f"bytes={start}-{end}",
            cut=lambda whole: whole[start : end + 1] if len(whole) > end else None,
            expected=lambda total: f"bytes {start}-{end}/",
        )

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._ranged(
            key, f"bytes=-{length}",
            cut=lambda whole: whole[-length:] if len(whole) >= length else None,
            expected=lambda total: f"bytes {total - length}-{total - 1}/" if total is not None else "bytes ?",
        )

    def _ranged(
        self,
        key: str,
        spec: str,
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
            part = cut(body)
            if part is None:
                raise FetchError(self.describe(key), status, f"object of {len(body)} bytes is shorter than the range {spec}")
            self._event("range_answered_whole", len(body) - len(part))  # the bytes fetched beyond the part
            return part
        total = _content_range_total(headers.get("content-range", ""))
        self._check_partial(status, headers, body, key, expected(total))
        return body

    def size(self, key: str) -> int | None:
        answer = self._request("HEAD", key, {})
        if answer is None:
            return None
        status, headers, _ = answer
        length = headers.get("content-length")
        if status != 200 or length is None or not length.isdigit():
            raise FetchError(self.describe(key), status, "HEAD gave no Content-Length")
        return int(length)

    def list(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        raise StoreError(f"{self.describe(prefix)}: an HTTP host cannot be listed; read the store's documents instead")

    def delete(self, keys: str | Sequence[str]) -> None:
        raise read_only(self._base)

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


def _discard(response: Any) -> None:
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
