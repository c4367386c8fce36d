"""The store read through a flawed host, so that check 12 of `doctor` judges the store, not the host."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .doctor_http import Answer, HttpDoctor


class HostTolerantSource:
    """The store as a reader that knows this host's flaws reads it: an absent key answered with
    the fallback page or 403 is missing, and a broken HEAD is replaced by a one-byte range read.
    Validation and decoding then judge the store, while checks 1-11 have judged the host."""

    def __init__(self, doctor: HttpDoctor, absent: Answer) -> None:
        from ..read.sources import HttpSource

        self._doctor = doctor
        self._inner = HttpSource(
            doctor.url, headers={"Origin": doctor.origin}, forbidden_is_not_found=absent.status == 403
        )
        self._fallback = absent.body if absent.status == 200 else None
        self.stats = self._inner.stats

    def describe(self, key: str) -> str:
        return self._inner.describe(key)

    def get(self, key: str) -> bytes | None:
        data = self._inner.get(key)
        return None if data is not None and self._fallback is not None and data == self._fallback else data

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self._inner.get_range(key, start, length)

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._inner.get_suffix(key, length)

    def size(self, key: str) -> int | None:
        from ..read.sources import FetchError

        try:
            return self._inner.size(key)
        except FetchError:
            return self._doctor.size_by_range(key)

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()
