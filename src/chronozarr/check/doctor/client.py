"""The requests `doctor` sends: each wait bounded by one timeout, the whole run by a time limit,
and every way a host fails to answer recorded as a finding of its own (doctor_http reports them).

A check never sees an exception from the transport: it gets an `Answer`, whose `failure` says
what went wrong when there was no usable answer, so one stalling object costs one timeout and one
finding, and the checks after it still run.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import urllib3

from ...errors import ChronozarrError, TimeUp
from ...store.http import DEFAULT_DEADLINE, DEFAULT_TIMEOUT, MAX_REDIRECTS, Transport

# Seconds for the whole of doctor's checks: the readers' deadline (one constant, store/http.py),
# so every default ends within a minute. The old name stays for its importers.
DEFAULT_TOTAL_TIMEOUT = DEFAULT_DEADLINE
RETRIED = 1  # a 5xx or dropped connection is asked once more, to tell a flaky host from a broken one

# Kinds of failure, each the name of the finding that reports it.
TIMEOUTS = "timeouts"
BODIES = "complete bodies"
REDIRECTS = "redirects"
CONNECTION = "connection"
TRANSIENT = "transient errors"


def is_url(target: str) -> bool:
    """True for the http(s) URLs doctor checks over HTTP; anything else is a directory."""
    return target.startswith(("http://", "https://"))


@dataclass
class Answer:
    """A response as the checks see it: status, headers, and at most the body they asked for.
    With no usable response, status is 0 and `failure` says why."""

    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes
    failure: str | None = None
    kind: str | None = None  # which finding the failure belongs to

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def what(self) -> str:
        """The status for a message: "HTTP 503", or what happened instead of an answer."""
        return self.failure if self.failure else f"HTTP {self.status}"


@dataclass
class Problem:
    """The first request that failed in one way, and how many did."""

    key: str
    message: str
    count: int = 1


class DoctorClient:
    """Requests to one store URL with the Origin of the page that would read it."""

    def __init__(self, base: str, query: str, origin: str, timeout: float = DEFAULT_TIMEOUT, total_timeout: float = DEFAULT_TOTAL_TIMEOUT) -> None:
        self.base, self.query, self.origin = base, query, origin
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.deadline = time.monotonic() + total_timeout
        self.problems: dict[str, Problem] = {}
        self.http = Transport(concurrency=1)  # doctor asks one request at a time

    def key_url(self, key: str) -> str:
        return f"{self.base}/{key}" + (f"?{self.query}" if self.query else "")

    def remaining(self) -> float:
        """Seconds left of the time limit; TimeUp when none are."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeUp(f"doctor's time limit of {self.total_timeout:g} s is spent")
        return left

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    def wait(self) -> float:
        """The timeout of the next wait: the configured one, or what is left of the time limit."""
        return min(self.timeout, self.remaining())

    def size_by_range(self, key: str) -> int | None:
        """An object's length from a one-byte range read, for hosts whose HEAD is broken."""
        answer = self.request("GET", key, {"Range": "bytes=0-0"}, limit=1 << 16)
        if answer.status in (404, 410):
            return None
        span = content_range(answer.header("Content-Range"))
        if answer.status == 206 and span is not None and span[2] is not None:
            return span[2]
        length = answer.header("Content-Length")
        if answer.status == 200 and length is not None and length.strip().isdigit():
            return int(length)
        raise ChronozarrError(f"cannot learn the length of {self.key_url(key)}: {answer.what}")

    def request(self, method: str, key: str, headers: Mapping[str, str] | None = None, limit: int = 1 << 20) -> Answer:
        """One request (asked again once after a 5xx or a dropped connection); reads at most
        `limit` bytes of the body. Raises TimeUp when the time limit is spent."""
        answer = self._attempt(method, key, headers, limit)
        if answer.status >= 500 or answer.kind == CONNECTION:
            first = answer
            for _ in range(RETRIED):
                answer = self._attempt(method, key, headers, limit)
                if answer.status < 500 and answer.failure is None:
                    self._record(TRANSIENT, key, f"{first.what}, then {answer.what} when asked again")
                    break
        return answer

    def _attempt(self, method: str, key: str, headers: Mapping[str, str] | None, limit: int) -> Answer:
        all_headers = {"Origin": self.origin, **(headers or {})}
        wait = self.wait()
        try:
            response = self.http.send(method, self.key_url(key), all_headers, wait, decode_content=False)
        except urllib3.exceptions.HTTPError as exc:
            return self._failed(key, exc, wait, None)
        received = 0
        complete = method == "HEAD"
        try:
            body = b"" if complete else response.read(limit, decode_content=False)
            received = len(body)
            complete = complete or not response.read(1, decode_content=False)
        except urllib3.exceptions.HTTPError as exc:
            return self._failed(key, exc, wait, (response, received))
        finally:
            if not complete:
                response.close()  # the rest of a body we will not read: drop the connection
            response.release_conn()
        return Answer(response.status, _lower(response.headers), body)

    def _failed(self, key: str, exc: BaseException, wait: float, partial: tuple[Any, int] | None) -> Answer:
        """An Answer without a response (or with a body that broke off), the failure recorded."""
        reason = exc.reason if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason else exc
        if isinstance(exc, urllib3.exceptions.MaxRetryError) and (isinstance(reason, urllib3.exceptions.ResponseError) or "redirect" in str(reason).lower()):
            kind, message = REDIRECTS, f"more than {MAX_REDIRECTS} redirects (a redirect loop): readers give up on the key"
        elif partial is not None:
            response, received = partial
            declared = response.headers.get("Content-Length")
            of = f" of the {declared} its Content-Length declares" if declared else ""
            if isinstance(reason, (urllib3.exceptions.ReadTimeoutError, TimeoutError)):
                kind, message = BODIES, f"the body stalled for {wait:g} s after {received} bytes{of}: readers time out"
            else:
                kind, message = BODIES, f"the connection closed after {received} bytes{of} ({type(reason).__name__}): the body is cut short"
        elif isinstance(reason, urllib3.exceptions.ConnectTimeoutError):
            kind, message = TIMEOUTS, f"no connection within {wait:g} s"
        elif isinstance(reason, (urllib3.exceptions.ReadTimeoutError, TimeoutError)):
            kind, message = TIMEOUTS, f"no answer within {wait:g} s: the host accepted the request and stayed silent"
        else:
            kind, message = CONNECTION, f"the connection failed ({type(reason).__name__}: {reason})"
        self._record(kind, key, message)
        return Answer(0, {}, b"", failure=message, kind=kind)

    def _record(self, kind: str, key: str, message: str) -> None:
        if kind in self.problems:
            self.problems[kind].count += 1
        else:
            self.problems[kind] = Problem(key, message)

    def close(self) -> None:
        self.http.close()


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


_CONTENT_RANGE = re.compile(r"\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*", re.IGNORECASE)


def content_range(value: str | None) -> tuple[int, int, int | None] | None:
    """(first, last, total or None for `*`) of a Content-Range header, or None when it is not one."""
    match = _CONTENT_RANGE.fullmatch(value or "")
    if match is None:
        return None
    total = None if match.group(3) == "*" else int(match.group(3))
    return int(match.group(1)), int(match.group(2)), total
