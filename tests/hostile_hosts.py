"""Hosts that misbehave, as `StoreServer` switches, for both readers and `doctor`.

Each fault applies to chunk and shard objects only (`fault_keys`), so a store opens and then meets
the fault where a read needs it. A read through any of them must give the stored values or the
reader's own error, within its timeout; `doctor` must name each in a finding of its own (the
`finding` is the name of the check that reports it and a fragment of what it says).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHUNKS = "/c/"
STALL = 30.0  # seconds a stalling host stays silent: longer than any test waits, so only a timeout ends the wait
CLIENT_TIMEOUT = 1.0


@dataclass(frozen=True)
class Host:
    switches: dict[str, Any]
    finding: tuple[str, str]  # (doctor check name prefix, fragment of its detail)
    sharded_only: bool = False  # the fault concerns range answers, which an unsharded read never asks for


HOSTS: dict[str, Host] = {
    "range_answered_200": Host(dict(range_200=True), ("byte range", "200 with the whole object")),
    "wrong_content_range": Host(dict(wrong_content_range=True), ("byte range", "the wrong bytes"), sharded_only=True),
    "missing_content_range": Host(dict(content_range=False), ("byte range", "without a valid Content-Range"), sharded_only=True),
    "short_body": Host(dict(short_body=True), ("complete bodies", "closed")),
    "content_length_too_long": Host(dict(length_offset=100), ("complete bodies", "stalled")),
    "content_length_too_short": Host(dict(length_offset=-7), ("content-length", "Content-Length")),
    "forbidden": Host(dict(forbidden=frozenset({"s/0/data/c"})), ("byte range", "HTTP 403")),
    "server_error_500": Host(dict(fail_status=(500, 10**6)), ("root zarr.json", "HTTP 500")),
    "unavailable_then_ok": Host(dict(fail_status=(503, 1)), ("transient errors", "503")),
    "stall_before_headers": Host(dict(stall_headers=STALL), ("timeouts", "no answer")),
    "stall_mid_body": Host(dict(stall_body=STALL), ("complete bodies", "stalled")),
    "gzip_content_encoding": Host(dict(gzip_always=True), ("no content-encoding", "Content-Encoding: gzip")),
    "redirect_loop": Host(dict(redirect_loop=True), ("redirects", "redirect")),
    "html_for_absent_keys": Host(dict(spa_fallback=True), ("absent key 404", "fallback page")),
}


# What each host does, in words, for docs/reliability.md.
ABOUT: dict[str, str] = {
    "range_answered_200": "answers a range with 200 and the whole object",
    "wrong_content_range": "answers a range with the bytes one off and a Content-Range to match",
    "missing_content_range": "answers a range with 206 and no Content-Range",
    "short_body": "sends half the body, then closes the connection",
    "content_length_too_long": "declares 100 bytes more than it sends, then keeps the connection open",
    "content_length_too_short": "declares 7 bytes fewer than it sends",
    "forbidden": "answers 403 for every chunk",
    "server_error_500": "answers 500 to everything",
    "unavailable_then_ok": "answers 503 once, then correctly",
    "stall_before_headers": "accepts the request and stays silent for 30 s",
    "stall_mid_body": "sends half the body, then stays silent for 30 s",
    "gzip_content_encoding": "gzips every body whatever the client asks",
    "redirect_loop": "redirects every request to itself",
    "html_for_absent_keys": "answers absent keys with 200 and an HTML page",
}
assert ABOUT.keys() == HOSTS.keys()


def switches(name: str) -> dict[str, Any]:
    """The StoreServer switches of host `name`, its faults limited to chunk and shard objects."""
    return {"fault_keys": CHUNKS, **HOSTS[name].switches}
