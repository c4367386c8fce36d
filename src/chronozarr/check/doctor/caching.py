"""doctor's caching checks over HTTP: the lifetime of objects that never change (checklist 9) and
what an edge cache says (11). A short lifetime is a warning only on a prefix that looks versioned."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ...format.caching import TRAILING, object_class
from .client import Answer, is_url
from .report import DoctorReport

ONE_DAY = 86_400
_VERSIONED = re.compile(r"(?:^|[-_.])v?\d+(?:\.\d+)*$", re.IGNORECASE)
_MAX_AGE = re.compile(r"(?:^|[,\s])max-age\s*=\s*\"?(\d+)", re.IGNORECASE)


def looks_versioned(url_or_path: str) -> bool:
    """True when the store's last path segment ends in a version or a date (`chronozarr-2`)."""
    path = urlsplit(url_or_path).path if is_url(url_or_path) else os.fspath(url_or_path)
    segments = [s for s in path.split("/") if s]
    return bool(segments) and _VERSIONED.search(segments[-1]) is not None


def cache_control_finding(r: DoctorReport, base: str, key: str, answer: Answer, block: Mapping[str, Any], docs: Mapping[str, Any]) -> None:
    """Check 9: objects that never change are cached for a day or more, or immutable, on a versioned prefix."""
    name = "cache-control"
    value = answer.header("Cache-Control")
    match = _MAX_AGE.search(value or "")
    long_lived = bool(value) and ("immutable" in (value or "").lower() or (match is not None and int(match.group(1)) >= ONE_DAY))
    if long_lived:
        r.passed("9", name, f"Cache-Control: {value}")
        return
    got = f"Cache-Control: {value}" if value else "no Cache-Control"
    note = ""
    if object_class(key, block, lambda path: docs.get(path)) == TRAILING:
        note = " (this is the trailing shard of a store with one time shard: an append rewrites it, so a short lifetime is expected here)"
    if looks_versioned(base):
        r.warn("9", name, f"{got} on a versioned prefix: objects that never change should be immutable or cached a day or more{note}")
    else:
        r.info("9", name, f"{got}; the prefix does not look versioned, so short lifetimes may be deliberate{note}")


def edge_cache_finding(r: DoctorReport, answer: Answer) -> None:
    """Check 11: what an edge cache in front of the host says of the probe object."""
    status = answer.header("cf-cache-status")
    if status:
        note = ": the edge does not cache it (see the hosting guide, Cloudflare rules)" if status.upper() in ("DYNAMIC", "BYPASS") else ""
        r.info("11", "edge cache", f"cf-cache-status: {status}{note}")
        return
    seen = [f"{h}: {answer.header(h)}" for h in ("x-cache", "age", "via") if answer.header(h)]
    r.info("11", "edge cache", ", ".join(seen) if seen else "no edge cache header (cf-cache-status, x-cache, age)")
