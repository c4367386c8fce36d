"""The faults of hosts that misbehave, for testing readers and `doctor` against them: silence before
the answer or in the middle of a body, bodies cut short, Content-Length that lies, 206 without
Content-Range, compression nobody asked for, and redirects that never end.

Each applies only to requests whose path contains `ServeOptions.fault_keys` (every request when it
is empty), so a store can open and then meet the fault where a read needs it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from .handler import RequestHandler
    from .options import ServeOptions


def applies(options: ServeOptions, path: str) -> bool:
    """True when the body and header faults apply to the request for `path`."""
    return options.fault_keys in path


def declared_length(options: ServeOptions, path: str, length: int) -> int:
    """The Content-Length sent for a body of `length` bytes: a lie when `length_offset` says so."""
    if options.length_offset and applies(options, path):
        return max(0, length + options.length_offset)
    return length


def cuts_body(options: ServeOptions, path: str) -> bool:
    return bool(options.short_body or options.stall_body) and applies(options, path)


def write_cut_body(handler: RequestHandler, body: bytes | BinaryIO, offset: int, length: int) -> None:
    """Half the body, then silence for `stall_body` seconds and the rest, or (`short_body`) a
    closed connection where the rest should be."""
    options = handler.server.options
    if isinstance(body, bytes):
        data = body[offset : offset + length]
    else:
        body.seek(offset)
        data = body.read(length)
    half = len(data) // 2
    handler.wfile.write(data[:half])
    handler.wfile.flush()
    if options.short_body:
        handler.close_connection = True
        return
    time.sleep(options.stall_body)
    handler.wfile.write(data[half:])
