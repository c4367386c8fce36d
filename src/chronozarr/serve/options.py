"""How the server behaves: a correct host by default; the other values imitate habits of real hosts
(no CORS, no ranges, 403 for an absent key, a single-page-app fallback). Faults of a host that
misbehaves (stalls, lies, cut bodies) are no option: they live with the tests (tests/faulty_host.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SettingError, SettingTypeError
from .cache_control import ASSET_CACHE, IMMUTABLE_CACHE, MUTABLE_CACHE, CachePolicy


@dataclass(frozen=True)
class ServeOptions:
    """How the server behaves. The defaults are a correct host."""

    cors: bool = True  # False: no Access-Control-* header at all, OPTIONS answered without them
    expose_headers: bool = True  # False: no Access-Control-Expose-Headers
    timing_allow_origin: bool = True
    ranges: bool = True  # False: Range ignored and no Accept-Ranges, like `python -m http.server`
    # A suffix range (bytes=-N) under a fault: False answers 400, as some hosts do; an int answers
    # that status instead (200 ignores the Range and sends the whole body).
    suffix_ranges: bool | int = True
    head: bool = True  # False: HEAD answered 405
    gzip: bool = False  # gzip bodies when the client accepts it; ranges cut the gzipped bytes
    spa_fallback: bool = False  # absent keys answered 200 with an HTML page
    index_html: bool = True  # a directory outside any store serves its index.html when present
    listing: bool = False  # `/` lists the stores served, with a link to view each (`chronozarr serve`)
    short_cache: bool = False  # every object gets `mutable_cache`, immutable ones included
    forbidden: frozenset[str] = frozenset()  # keys starting with one of these answer 403
    missing_status: int = 404  # 403 or 410 imitate hosts that answer so for an absent key
    latency: float = 0.0  # seconds slept before each response: a distant host, for benchmarks
    # Limits that keep one client from holding the server:
    max_connections: int = 64  # connections served at once; more wait in the listen queue, idle ones closed first
    idle_timeout: float = 20.0  # seconds a connection may wait for a request or a client may stall
    mutable_cache: str = MUTABLE_CACHE
    immutable_cache: str = IMMUTABLE_CACHE
    asset_cache: str = ASSET_CACHE

    def __post_init__(self) -> None:
        if isinstance(self.forbidden, str):
            raise SettingTypeError(f"forbidden must be a set of key prefixes, got the string {self.forbidden!r}")
        object.__setattr__(self, "forbidden", frozenset(p.strip("/") for p in self.forbidden))
        if self.suffix_ranges is not True and not isinstance(self.suffix_ranges, bool):
            if not isinstance(self.suffix_ranges, int) or not 200 <= self.suffix_ranges <= 599:
                raise SettingError(f"suffix_ranges must be a bool or an HTTP status, got {self.suffix_ranges!r}")
        if self.latency < 0:
            raise SettingError(f"latency must be >= 0 seconds, got {self.latency!r}")
        if self.max_connections < 1 or not self.idle_timeout > 0:
            raise SettingError(f"max_connections must be >= 1 and idle_timeout > 0, got {self.max_connections!r}, {self.idle_timeout!r}")

    def cache_policy(self) -> CachePolicy:
        """The Cache-Control values these options give each class of object."""
        return CachePolicy(mutable=self.mutable_cache, immutable=self.immutable_cache, asset=self.asset_cache, short_only=self.short_cache)

    def suffix_status(self) -> int | None:
        """None when suffix ranges are honoured, else the status a suffix range is answered with."""
        if self.suffix_ranges is True:
            return None
        return 400 if self.suffix_ranges is False else int(self.suffix_ranges)
