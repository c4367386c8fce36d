"""From a request target to the file it names, never outside the served root."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from urllib.parse import unquote


def resolve(
    root: str, target: str, link_targets: Iterable[str] = (), mounts: Mapping[str, str] | None = None
) -> tuple[str, list[str], bool] | None:
    """(real path, key segments, ends with '/') of a request target, or None when it leaves `root`.

    `root` is a real path. The query is ignored. `..`, NUL and backslashes are refused in any
    encoding, and the real path after symlinks must still be inside `root`, or inside one of the
    real directories `link_targets` that the server was told its symlinks may lead to. A first
    segment named in `mounts` (URL name -> real directory) is looked up in that directory instead.
    """
    path = target.split("#", 1)[0].split("?", 1)[0]
    if "://" in path:  # absolute-form target (a proxy request): keep its path
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    try:
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\x00" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    mounted = (mounts or {}).get(parts[0]) if parts else None
    real = os.path.realpath(os.path.join(mounted, *parts[1:]) if mounted else os.path.join(root, *parts))
    if not any(real == base or real.startswith(base.rstrip(os.sep) + os.sep) for base in (mounted or root, *link_targets)):
        return None
    return real, parts, path.endswith("/")
