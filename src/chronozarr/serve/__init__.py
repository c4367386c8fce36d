"""A static HTTP server for chronozarr stores and the viewer (spec 9 and 14, docs/hosting.md).

It answers as a good host does: byte ranges, CORS, real 404s, no Content-Encoding, and a
Cache-Control per object class. The keyword switches of `StoreServer` imitate the habits of hosts
people really have (no CORS, no ranges, 403 for an absent key), and its `handler` lets the tests
answer as a host that misbehaves, so readers and `doctor` are tested against both. Standard library
only: it backs the tests, `chronozarr serve` and the viewer.

`ranges` parses the Range header, `paths` maps a request to a file, `cache_control` gives each object
its Cache-Control, `options` holds the switches, `handler` answers one request, `server` runs the
server on a thread, and `command` is `chronozarr serve`.
"""

from ..errors import RangeNotSatisfiable
from .cache_control import ASSET_CACHE, ERROR_CACHE, IMMUTABLE_CACHE, MUTABLE_CACHE, CacheClasses
from .command import serve_command, serve_forever
from .handler import ALLOW_HEADERS, ALLOW_METHODS, CONTENT_TYPES, EXPOSE_HEADERS, FALLBACK_PAGE, PREFLIGHT_MAX_AGE, LoggedRequest
from .options import ServeOptions
from .paths import resolve
from .ranges import is_suffix_range, parse_range
from .server import StoreServer

__all__ = [
    "ALLOW_HEADERS",
    "ALLOW_METHODS",
    "ASSET_CACHE",
    "CONTENT_TYPES",
    "ERROR_CACHE",
    "EXPOSE_HEADERS",
    "FALLBACK_PAGE",
    "IMMUTABLE_CACHE",
    "MUTABLE_CACHE",
    "PREFLIGHT_MAX_AGE",
    "CacheClasses",
    "LoggedRequest",
    "ServeOptions",
    "StoreServer",
    "RangeNotSatisfiable",
    "is_suffix_range",
    "parse_range",
    "resolve",
    "serve_command",
    "serve_forever",
]
