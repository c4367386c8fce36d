"""Where listings (manifests, STAC item collections) come from and how their hrefs reach GDAL.

A listing is a local file or an http(s) URL; a relative href is read against the listing's own
folder or URL. GDAL reads http(s) through /vsicurl/ (range requests), s3:// through /vsis3/ and
gs:// through /vsigs/, with its usual credentials and AWS_S3_ENDPOINT settings.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ..errors import InputError, StoreError

REMOTE = ("http://", "https://")
_VSI = {"s3://": "/vsis3/", "gs://": "/vsigs/", "az://": "/vsiaz/"}
MAX_LISTING_BYTES = 256 << 20


def is_remote(location: str) -> bool:
    return location.startswith(REMOTE)


def suffix(location: str) -> str:
    """The lower-case suffix of a path or of a URL's path (its query left out)."""
    path = urlsplit(location).path if is_remote(location) else location
    return posixpath.splitext(path)[1].lower()


def fetch_text(location: str | os.PathLike[str], what: str) -> str:
    """The text of the listing at `location`; `what` names it in errors ("manifest")."""
    text = os.fspath(location)
    if not is_remote(text):
        try:
            return Path(text).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise InputError(f"cannot read the {what} {text}: {exc.strerror or exc}") from None
    from ..store.http import HttpStore

    base, _, name = text.partition("?")[0].rpartition("/")
    query = text.partition("?")[2]
    try:
        body = HttpStore(base + ("?" + query if query else ""), retries=1, max_object_bytes=MAX_LISTING_BYTES).get(name)
    except StoreError as exc:
        status = getattr(exc, "status", None)
        hint = " (the host refuses it: a private bucket or an expired signed URL)" if status == 403 else ""
        raise InputError(f"cannot fetch the {what} {text}: {exc}{hint}; check the URL or download the file") from None
    if body is None:
        raise InputError(f"cannot fetch the {what} {text}: the server answers 404 (not found); check the URL")
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"the {what} {text} is not UTF-8 text; is the URL the right file?") from None


def gdal_path(href: str, listing: str | os.PathLike[str]) -> str:
    """What GDAL opens for `href`, a relative one read against the listing's folder or URL."""
    href = href.strip()
    base = os.fspath(listing)
    if is_remote(href):
        return f"/vsicurl/{href}"
    for scheme, prefix in _VSI.items():
        if href.startswith(scheme):
            return prefix + href[len(scheme):]
    if href.startswith("file://"):
        return href[len("file://"):]
    if href.startswith("/vsi") or os.path.isabs(href):
        return href
    if is_remote(base):
        return f"/vsicurl/{urljoin(base, href)}"
    return str(Path(base).parent / href)
