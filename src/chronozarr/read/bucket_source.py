"""A store in an object store (s3://, gs://, az://) as an object source for the reader.

The same answers as the directory and HTTP sources: None for an absent key (404, decoded as fill),
an error for anything else (403, a missing bucket, refused or missing credentials), exactly the
bytes asked for or an error, and no object larger than `max_object_bytes` read into memory. The
requests themselves, their retries and the errors' wording are `chronozarr.buckets`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..buckets import Bucket
from .object_source import DEFAULT_MAX_OBJECT_BYTES, RequestStats


class BucketSource:
    """A store at an object-store URL; thread-safe, so the reader's 16 requests run at once."""

    def __init__(
        self,
        url: str,
        *,
        max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES,
        concurrency: int = 16,
        config: Mapping[str, Any] | None = None,
        **bucket_options: Any,
    ) -> None:
        """`bucket_options` are Bucket's: endpoint, region, anonymous."""
        # Keep as many connections open as the reader has requests in flight.
        settings = {"client_options": {"pool_max_idle_per_host": str(max(1, concurrency))}, **(config or {})}
        self.bucket = Bucket(url, config=settings, **bucket_options)
        self.max_object_bytes = max_object_bytes
        self.stats = RequestStats()

    def describe(self, key: str) -> str:
        return self.bucket.describe(key)

    def _counted(self, kind: str, data: bytes | None) -> bytes | None:
        self.stats.count("missing" if data is None else kind, 0 if data is None else len(data))
        return data

    def get(self, key: str) -> bytes | None:
        return self._counted("get", self.bucket.get(key, max_bytes=self.max_object_bytes))

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self._counted("range", self.bucket.get_range(key, start, length))

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._counted("suffix", self.bucket.get_suffix(key, length))

    def size(self, key: str) -> int | None:
        size = self.bucket.size(key)
        self.stats.count("missing" if size is None else "head")
        return size
