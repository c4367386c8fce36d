"""How the server behaves: a correct host by default, one fault for each other value."""

from __future__ import annotations

from dataclasses import dataclass

from .cache_control import ASSET_CACHE, IMMUTABLE_CACHE, MUTABLE_CACHE, CachePolicy


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
    listing: bool = False  # `/` lists the stores served, with a link to view each (`chronozarr serve`)
    short_cache: bool = False  # every object gets `mutable_cache`, immutable ones included
    forbidden: frozenset[str] = frozenset()  # keys starting with one of these answer 403
    missing_status: int = 404  # 403 or 410 imitate hosts that answer so for an absent key
    fail_status: tuple[int, int] | None = None  # (code, count): the first count requests fail
    latency: float = 0.0  # seconds slept before each response
    # Faults of a host that misbehaves (serve/faults.py), on requests whose path contains
    # `fault_keys` (every request when it is empty):
    stall_headers: float = 0.0  # seconds of silence before the status line
    stall_body: float = 0.0  # seconds of silence after half the body, then the rest
    short_body: bool = False  # half the body, then the connection closes; Content-Length says all
    length_offset: int = 0  # added to every Content-Length; the body is sent as it is
    content_range: bool = True  # False: 206 answers carry no Content-Range
    gzip_always: bool = False  # bodies gzipped whatever the client accepts
    redirect_loop: bool = False  # every request answered 302 with its own URL as the Location
    fault_keys: str = ""
    # Limits that keep one client from holding the server:
    max_connections: int = 64  # connections served at once; more wait in the listen queue, idle ones closed first
    idle_timeout: float = 20.0  # seconds a connection may wait for a request or a client may stall
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
        for name in ("latency", "stall_headers", "stall_body"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0 seconds, got {getattr(self, name)!r}")
        if self.max_connections < 1 or not self.idle_timeout > 0:
            raise ValueError(f"max_connections must be >= 1 and idle_timeout > 0, got {self.max_connections!r}, {self.idle_timeout!r}")

    def cache_policy(self) -> CachePolicy:
        """The Cache-Control values these options give each class of object."""
        return CachePolicy(mutable=self.mutable_cache, immutable=self.immutable_cache, asset=self.asset_cache, short_only=self.short_cache)

    def suffix_status(self) -> int | None:
        """None when suffix ranges are honoured, else the status a suffix range is answered with."""
        if self.suffix_ranges is True:
            return None
        return 400 if self.suffix_ranges is False else int(self.suffix_ranges)
