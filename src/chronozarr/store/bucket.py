"""A store in an object store (s3://, gs://, az://), through obstore, with the rules of
interface.py: None for an absent key (404), an error naming the object for anything else (403, a
missing bucket, refused or missing credentials, an object shorter than the range asked for), and
no object larger than `max_object_bytes` read into memory. Opening the obstore store and the
wording of what the store answers are `chronozarr.buckets`'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ..buckets import EXTRA, MULTIPART_CHUNK, absent, bucket_error, obstore_for, parse_bucket_url
from ..errors import StoreError
from ..extras import import_extra
from .interface import DEFAULT_MAX_OBJECT_BYTES, bound, check_key, check_object_size, suffix_past_start

T = TypeVar("T")
DELETE_BATCH = 1000  # the most keys one bulk delete takes (S3's limit)


class BucketStore:
    """A prefix of a bucket (container); thread-safe (obstore is), so many requests run at once."""

    local_root: ClassVar[Path | None] = None
    writable: ClassVar[bool] = True
    listable: ClassVar[bool] = True
    parallel_puts: ClassVar[bool] = True  # a PUT waits on the network: several overlap

    def __init__(
        self,
        url: str,
        *,
        endpoint: str | None = None,
        region: str | None = None,
        anonymous: bool = False,
        config: Mapping[str, Any] | None = None,
        concurrency: int | None = None,
        max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES,
        obstore: Any = None,
    ) -> None:
        """`obstore` is an already configured obstore store (tests, custom credentials) used
        instead of opening one; `concurrency` keeps that many connections open for the requests
        a reader has in flight."""
        self.url = parse_bucket_url(url).url
        settings = dict(config or {})
        if concurrency is not None:
            settings = {"client_options": {"pool_max_idle_per_host": str(max(1, concurrency))}, **settings}
        self.obstore = obstore if obstore is not None else obstore_for(
            url, endpoint=endpoint, region=region, anonymous=anonymous, config=settings
        )
        self.max_object_bytes = max_object_bytes
        self._api = import_extra("obstore", EXTRA, f"reading or writing {self.url}")

    def describe(self, key: str) -> str:
        return f"{self.url}/{key}" if key else self.url

    def _answer(self, key: str, call: Callable[[], T]) -> T | None:
        """What `call` returns, None for a missing key, and any other failure as our error."""
        try:
            return call()
        except StoreError:
            raise
        except FileNotFoundError as exc:
            absent(exc, self.describe(key))
            return None
        except Exception as exc:
            raise bucket_error(exc, self.describe(key)) from None

    # -- reads ---------------------------------------------------------------------------------

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        """The object; one over the bound is refused from its size, before its body is read."""
        limit = bound(self.max_object_bytes, max_bytes)

        def whole() -> bytes:
            result = self._api.get(self.obstore, check_key(key))
            check_object_size(int(result.meta["size"]), limit, self.describe(key))
            return bytes(result.bytes())

        return self._answer(key, whole)

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        """Exactly bytes start..start+length-1; a shorter object is an error, not a short read."""
        data = self._answer(key, lambda: bytes(self._api.get_range(self.obstore, check_key(key), start=start, length=length)))
        if data is not None and len(data) != length:
            raise StoreError(
                f"{self.describe(key)}: asked for bytes {start}-{start + length - 1}, the store sent {len(data)} bytes "
                "(the object is shorter than the store's metadata says)"
            )
        return data

    def get_suffix(self, key: str, length: int) -> bytes | None:
        """The last `length` bytes; an object shorter than that is an error."""
        def suffix() -> bytes:
            try:
                return bytes(self._api.get(self.obstore, check_key(key), options={"range": {"suffix": length}}).bytes())
            except self._api.exceptions.NotSupportedError:  # Azure Blob Storage has no suffix ranges
                return self._suffix_by_range(key, length)

        data = self._answer(key, suffix)
        if data is not None and len(data) != length:
            raise suffix_past_start(self.describe(key), len(data), length)
        return data

    def _suffix_by_range(self, key: str, length: int) -> bytes:
        """A suffix read as a HEAD and a range, for stores without suffix ranges."""
        size = self.size(key)
        if size is None:
            raise FileNotFoundError(f"{key} not found")
        if size < length:
            raise suffix_past_start(self.describe(key), size, length)
        return self.get_range(key, size - length, length) or b""

    def size(self, key: str) -> int | None:
        return self._answer(key, lambda: int(self._api.head(self.obstore, check_key(key))["size"]))

    def list(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        """(key, size) of every object below `prefix`, relative to the store's prefix."""
        try:
            for batch in self._api.list(self.obstore, prefix or None, chunk_size=1000):
                for entry in batch:
                    yield entry["path"], int(entry["size"])
        except Exception as exc:
            raise bucket_error(exc, self.describe(prefix)) from None

    # -- writes --------------------------------------------------------------------------------

    def put(self, key: str, data: bytes | memoryview, *, atomic: bool = False, attributes: Mapping[str, str] | None = None) -> None:
        """A PUT, atomic on every object store (`atomic` changes nothing here); `attributes` are the
        HTTP headers stored with the object (Cache-Control, Content-Type)."""
        self._upload(key, bytes(data), attributes)

    def put_file(self, key: str, path: Path, *, keep: bool = False, attributes: Mapping[str, str] | None = None) -> None:
        """The file uploaded in parts (multipart above MULTIPART_CHUNK), then removed unless `keep`."""
        try:
            self._upload(key, path, attributes)
        finally:
            if not keep:
                path.unlink(missing_ok=True)

    def _upload(self, key: str, data: bytes | Path, attributes: Mapping[str, str] | None) -> None:
        try:
            self._api.put(self.obstore, check_key(key), data, attributes=dict(attributes or {}) or None, chunk_size=MULTIPART_CHUNK)
        except Exception as exc:
            raise bucket_error(exc, self.describe(key)) from None

    def copy(self, source: str, target: str) -> None:
        """A copy made by the store (no bytes pass through this machine)."""
        try:
            self._api.copy(self.obstore, check_key(source), check_key(target))
        except Exception as exc:
            raise bucket_error(exc, self.describe(target)) from None

    def move(self, source: str, target: str) -> bool:
        """A copy made by the store (a PUT of the whole object: readers see the old or the new one);
        the source stays until it is deleted, so a repeated move lands the same bytes."""
        if self.size(source) is None:
            return False
        self.copy(source, target)
        return True

    def delete(self, keys: str | Sequence[str]) -> None:
        """Remove the objects; one that is not there is nothing to do."""
        try:
            self._api.delete(self.obstore, keys if isinstance(keys, str) else list(keys))
        except FileNotFoundError:
            # GCS and Azure stop a many-key delete at a missing key: the rest one by one.
            if not isinstance(keys, str) and len(keys) > 1:
                for key in keys:
                    self.delete(key)
        except Exception as exc:
            raise bucket_error(exc, self.describe(keys if isinstance(keys, str) else "")) from None

    def delete_prefix(self, prefix: str) -> None:
        """Every object below `prefix/`, and the object named `prefix` itself."""
        keys = [key for key, _ in self.list(prefix)]
        if prefix and self.size(prefix) is not None:
            keys.append(prefix)
        for start in range(0, len(keys), DELETE_BATCH):
            self.delete(keys[start : start + DELETE_BATCH])

