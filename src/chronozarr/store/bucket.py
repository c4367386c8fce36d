"""A store in an object store (s3://, gs://, az://), through obstore. The requests, their retries
and the wording of the store's answers are `chronozarr.buckets`'; this class keeps the rules of
interface.py on top: None for an absent key, an error for anything else, exact ranges, and no
object larger than `max_object_bytes` read into memory."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ..buckets import Bucket
from .interface import DEFAULT_MAX_OBJECT_BYTES, bound, check_key

DELETE_BATCH = 1000  # the most keys one bulk delete takes (S3's limit)


class BucketStore:
    """A prefix of a bucket (container); thread-safe, so the reader's requests run at once."""

    local_root: ClassVar[Path | None] = None
    writable: ClassVar[bool] = True
    parallel_puts: ClassVar[bool] = True  # a PUT waits on the network: several overlap

    def __init__(
        self,
        url: str,
        *,
        max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES,
        concurrency: int | None = None,
        config: Mapping[str, Any] | None = None,
        bucket: Bucket | None = None,
        **bucket_options: Any,
    ) -> None:
        """`bucket_options` are Bucket's: endpoint, region, anonymous; `concurrency` keeps that many
        connections open for the requests a reader has in flight."""
        settings = dict(config or {})
        if concurrency is not None:
            settings = {"client_options": {"pool_max_idle_per_host": str(max(1, concurrency))}, **settings}
        self.bucket = bucket if bucket is not None else Bucket(url, config=settings, **bucket_options)
        self.url = self.bucket.url
        self.max_object_bytes = max_object_bytes

    def describe(self, key: str) -> str:
        return self.bucket.describe(key)

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        return self.bucket.get(check_key(key), max_bytes=bound(self.max_object_bytes, max_bytes))

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self.bucket.get_range(check_key(key), start, length)

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self.bucket.get_suffix(check_key(key), length)

    def size(self, key: str) -> int | None:
        return self.bucket.size(check_key(key))

    def list(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        return self.bucket.list(prefix)

    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False) -> None:
        """A PUT is atomic on every object store: `atomic` changes nothing here."""
        self.bucket.put(check_key(key), bytes(data))

    def put_file(self, key: str, path: Path, *, keep: bool = False) -> None:
        """The file uploaded in parts (multipart), then removed unless `keep`."""
        try:
            self.bucket.put(check_key(key), path)
        finally:
            if not keep:
                path.unlink(missing_ok=True)

    def copy(self, source: str, target: str) -> None:
        self.bucket.copy(source, target)

    def move(self, source: str, target: str) -> bool:
        """A copy made by the store; the source stays, so a repeated move lands the same bytes."""
        if self.size(source) is None:
            return False
        self.copy(source, target)
        return True

    def delete(self, keys: str | Sequence[str]) -> None:
        self.bucket.delete(keys)

    def delete_prefix(self, prefix: str) -> None:
        """Every object below `prefix/`, and the object named `prefix` itself."""
        keys = [key for key, _ in self.list(prefix)]
        if prefix and self.size(prefix) is not None:
            keys.append(prefix)
        for start in range(0, len(keys), DELETE_BATCH):
            self.bucket.delete(keys[start : start + DELETE_BATCH])
