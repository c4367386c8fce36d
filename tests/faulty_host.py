"""A host that misbehaves on purpose, for testing readers and `doctor` against it: silence before the
answer or in the middle of a body, bodies cut short, a Content-Length that lies, ranges answered
200 or with the wrong bytes, 206 without Content-Range, compression nobody asked for, redirects that
never end, and a run of error statuses.

The package's server is a correct host; this module gives it a request handler that overrides its
hooks. Most faults apply only to requests whose path contains `fault_keys` (every request when it is
empty), so a store can open and then meet the fault where a read needs it.

    with faulty_server(root, stall_headers=5, fault_keys="/c/") as server: ...
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any, BinaryIO

from chronozarr.serve import ERROR_CACHE, StoreServer
from chronozarr.serve.handler import RequestHandler


@dataclass
class Faults:
    """What the host does wrong; the defaults do nothing wrong."""

    range_200: bool = False  # advertises Accept-Ranges, then answers every range 200 + whole body
    wrong_content_range: bool = False  # 206 with a range one byte off the one asked for
    fail_status: tuple[int, int] | None = None  # (code, count): the first count requests fail
    stall_headers: float = 0.0  # seconds of silence before the status line
    stall_body: float = 0.0  # seconds of silence after half the body, then the rest
    short_body: bool = False  # half the body, then the connection closes; Content-Length says all
    length_offset: int = 0  # added to every Content-Length; the body is sent as it is
    content_range: bool = True  # False: 206 answers carry no Content-Range
    gzip_always: bool = False  # bodies gzipped whatever the client accepts
    redirect_loop: bool = False  # every request answered 302 with its own URL as the Location
    fault_keys: str = ""
    failures_left: int = field(default=0, init=False)
    lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.fail_status is not None:
            code, count = self.fail_status
            if not 400 <= int(code) <= 599 or int(count) < 0:
                raise ValueError(f"fail_status must be (error status, count >= 0), got {self.fail_status!r}")
            self.failures_left = int(count)
        if self.stall_headers < 0 or self.stall_body < 0:
            raise ValueError("stalls must be >= 0 seconds")

    def take_failure(self) -> int | None:
        """The status to fail this request with, while `fail_status` has failures left."""
        with self.lock:
            if self.fail_status is None or self.failures_left <= 0:
                return None
            self.failures_left -= 1
            return int(self.fail_status[0])


FAULT_NAMES = frozenset(f.name for f in fields(Faults) if f.init)


def skewed_range(first: int, last: int, size: int) -> tuple[int, int]:
    """A range one byte off (first, last); the same range when the object leaves no room."""
    if last + 1 < size:
        return first + 1, last + 1
    if first > 0:
        return first - 1, last - 1
    return first, last


class FaultyHandler(RequestHandler):
    """The package's handler with its hooks answering as `faults` says."""

    faults: Faults = Faults()

    def _applies(self) -> bool:
        return self.faults.fault_keys in (getattr(self, "path", None) or "")

    def intercept(self) -> bool:
        if self.faults.stall_headers and self._applies():
            time.sleep(self.faults.stall_headers)
        if self.faults.redirect_loop and self._applies():
            self._send(302, {"Location": self.path, "Cache-Control": ERROR_CACHE})
            return True
        code = self.faults.take_failure()
        if code is not None:
            self._plain(code, f"{code} injected failure\n")
            return True
        return False

    def declared_length(self, length: int) -> int:
        if self.faults.length_offset and self._applies():
            return max(0, length + self.faults.length_offset)
        return length

    def write_body(self, body: bytes | BinaryIO, offset: int, length: int) -> None:
        """Half the body, then silence for `stall_body` seconds and the rest, or (`short_body`) a
        closed connection where the rest should be."""
        if not ((self.faults.short_body or self.faults.stall_body) and self._applies()):
            super().write_body(body, offset, length)
            return
        if isinstance(body, bytes):
            data = body[offset : offset + length]
        else:
            body.seek(offset)
            data = body.read(length)
        half = len(data) // 2
        self.wfile.write(data[:half])
        self.wfile.flush()
        if self.faults.short_body:
            self.close_connection = True
            return
        time.sleep(self.faults.stall_body)
        self.wfile.write(data[half:])

    def forced_gzip(self) -> bool:
        return self.faults.gzip_always and self._applies()

    def range_answer(self, span: tuple[int, int], size: int) -> tuple[tuple[int, int] | None, str | None]:
        if self.faults.range_200:
            return None, None
        sent = skewed_range(*span, size) if self.faults.wrong_content_range else span
        claimed_size = size + 1 if self.faults.wrong_content_range and sent == span else size
        if not self.faults.content_range and self._applies():
            return sent, None
        return sent, f"bytes {sent[0]}-{sent[1]}/{claimed_size}"


def faulty_handler(faults: Faults) -> type[RequestHandler]:
    """A handler class answering with `faults`, one per server (fail_status counts per server)."""
    return type("FaultyHandler", (FaultyHandler,), {"faults": faults})


def faulty_server(root: str | os.PathLike[str], **switches: Any) -> StoreServer:
    """A `StoreServer` of `root` whose switches may also name faults (the fields of `Faults`)."""
    faults = Faults(**{k: v for k, v in switches.items() if k in FAULT_NAMES})
    options = {k: v for k, v in switches.items() if k not in FAULT_NAMES}
    return StoreServer(root, handler=faulty_handler(faults), **options)
