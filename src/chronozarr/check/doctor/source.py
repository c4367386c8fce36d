"""The store read through a flawed host, so that check 12 of `doctor` judges the store, not the host."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ...errors import FetchError, StoreError, TimeUp
from ...store import StoreWrapper
from ...store.deadline import call_deadline
from ...store.http import HttpStore
from .client import Answer, DoctorClient

T = TypeVar("T")


class HostTolerantStore(StoreWrapper):
    """The store as a reader that knows this host's flaws reads it: an absent key answered with
    the fallback page or 403 is missing, and a broken HEAD is replaced by a one-byte range read.
    Validation and decoding then judge the store, while checks 1-11 have judged the host.

    Every request keeps to doctor's timeout and is asked once more at most, and none starts once
    doctor's time limit is spent: the reads fail fast instead, each a finding of check 12.
    """

    def __init__(self, url: str, client: DoctorClient, absent: Answer) -> None:
        super().__init__(HttpStore(
            url, headers={"Origin": client.origin}, forbidden_is_not_found=absent.status == 403,
            timeout=client.timeout, retries=1,
        ))
        self._client = client
        self._fallback = absent.body if absent.status == 200 else None

    def _bounded(self, call: Callable[[], T]) -> T:
        """The request, its retry included, under what is left of doctor's time limit."""
        try:
            left = self._client.remaining()
        except TimeUp as exc:
            raise StoreError(str(exc)) from None
        with call_deadline(left):
            return call()

    def get(self, key: str, *, max_bytes: int | None = None) -> bytes | None:
        data = self._bounded(lambda: self.inner.get(key, max_bytes=max_bytes))
        return None if data is not None and self._fallback is not None and data == self._fallback else data

    def get_range(self, key: str, start: int, length: int) -> bytes | None:
        return self._bounded(lambda: self.inner.get_range(key, start, length))

    def get_suffix(self, key: str, length: int) -> bytes | None:
        return self._bounded(lambda: self.inner.get_suffix(key, length))

    def size(self, key: str) -> int | None:
        try:
            return self._bounded(lambda: self.inner.size(key))
        except FetchError:
            return self._client.size_by_range(key)
