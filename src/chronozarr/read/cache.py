"""A thread-safe least-recently-used cache bounded by bytes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

import numpy as np


class ByteLRU:
    """Keeps decoded arrays up to `budget` bytes, evicting the least recently used first."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self.evictions = 0
        self._items: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> np.ndarray | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: np.ndarray) -> None:
        nbytes = int(value.nbytes)
        if nbytes > self.budget:
            return
        value.flags.writeable = False
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.size -= int(old.nbytes)
            self._items[key] = value
            self.size += nbytes
            while self.size > self.budget:
                _, dropped = self._items.popitem(last=False)
                self.size -= int(dropped.nbytes)
                self.evictions += 1

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.size = 0
