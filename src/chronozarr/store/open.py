"""The store a path or URL names: a directory, an http(s) URL (read-only), or s3://, gs://, az://."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..buckets import is_bucket_url
from ..errors import StoreError
from .interface import ObjectStore

# The options a directory takes; HTTP and object stores take their own (timeouts, endpoint, ...).
DIRECTORY_OPTIONS = ("max_object_bytes",)


DIRECTORY, HTTP, BUCKET, OTHER = "directory", "http", "bucket", "other"


@dataclass(frozen=True)
class Location:
    """What a path or URL names, decided here for every side (the reader's open_object_store and
    the writer's open_output): a directory (a path or file://), an http(s) host, an object store
    (s3://, gs://, az://), or a URL of another scheme."""

    kind: str
    text: str
    scheme: str | None  # the URL's scheme, lower-cased; None for a plain path

    @property
    def path(self) -> Path:
        """The directory a DIRECTORY location names (file:// taken off)."""
        return Path(self.text[len("file://") :] if self.text.startswith("file://") else self.text)


def locate(location: str | os.PathLike[str]) -> Location:
    """The kind of store `location` names; a URL is never taken for a local path."""
    text = os.fspath(location)
    scheme = text.split("://", 1)[0].lower() if "://" in text else None
    if text.startswith(("http://", "https://")):
        return Location(HTTP, text, scheme)
    if is_bucket_url(text):
        return Location(BUCKET, text, scheme)
    return Location(DIRECTORY if scheme is None or text.startswith("file://") else OTHER, text, scheme)


def open_object_store(location: str | os.PathLike[str], **options: Any) -> ObjectStore:
    """DirectoryStore for a path (or file:// URL), HttpStore for http(s), BucketStore for s3://,
    gs://, az://; any other scheme is an error naming the ones we read."""
    found = locate(location)
    if found.kind == HTTP:
        from .http import HttpStore

        return HttpStore(found.text, **options)
    if found.kind == BUCKET:
        from .bucket import BucketStore

        return BucketStore(found.text, **{"concurrency": 16, **options})
    if found.kind == OTHER:
        raise StoreError(f"{found.text!r}: unsupported URL scheme; a store is a directory, an http(s):// URL or s3://, gs://, az://")
    from .directory import DirectoryStore

    return DirectoryStore(found.path, **{k: v for k, v in options.items() if k in DIRECTORY_OPTIONS})


def is_remote(location: object) -> bool:
    """An http(s) or object-store URL, as opposed to a directory."""
    return isinstance(location, (str, os.PathLike)) and locate(os.fspath(location)).kind in (HTTP, BUCKET)


def not_a_directory(path: str | os.PathLike[str]) -> str:
    """Why a local path that is not a directory holds no store: a file there is named as one."""
    if os.path.isfile(path):
        return "it is a file, not a store (a store is a directory with a zarr.json at its top)"
    return "the directory does not exist"
