"""The store a path or URL names: a directory, an http(s) URL (read-only), or s3://, gs://, az://."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..buckets import is_bucket_url
from ..errors import StoreError
from .interface import ObjectStore

# The options a directory takes; HTTP and object stores take their own (timeouts, endpoint, ...).
DIRECTORY_OPTIONS = ("max_object_bytes",)


def open_object_store(location: str | os.PathLike[str], **options: Any) -> ObjectStore:
    """DirectoryStore for a path (or file:// URL), HttpStore for http(s), BucketStore for s3://,
    gs://, az://; any other scheme is an error naming the ones we read."""
    text = os.fspath(location)
    if text.startswith(("http://", "https://")):
        from .http import HttpStore

        return HttpStore(text, **options)
    if is_bucket_url(text):
        from .bucket import BucketStore

        return BucketStore(text, **{"concurrency": 16, **options})
    if "://" in text and not text.startswith("file://"):
        raise StoreError(f"{text!r}: unsupported URL scheme; a store is a directory, an http(s):// URL or s3://, gs://, az://")
    from .directory import DirectoryStore

    path = Path(text[len("file://") :] if text.startswith("file://") else text)
    return DirectoryStore(path, **{k: v for k, v in options.items() if k in DIRECTORY_OPTIONS})


def is_remote(location: object) -> bool:
    """An http(s) or object-store URL, as opposed to a directory."""
    text = os.fspath(location) if isinstance(location, (str, os.PathLike)) else ""
    return isinstance(text, str) and (text.startswith(("http://", "https://")) or is_bucket_url(text))


def not_a_directory(path: str | os.PathLike[str]) -> str:
    """Why a local path that is not a directory holds no store: a file there is named as one."""
    if os.path.isfile(path):
        return "it is a file, not a store (a store is a directory with a zarr.json at its top)"
    return "the directory does not exist"
