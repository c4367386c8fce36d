"""Buffers a thread reuses from one chunk to the next.

A fresh array for every chunk costs as much in page faults (the kernel maps and zeroes each page
on first touch) as decoding or compressing the chunk; a buffer kept by the thread is already mapped.
The reader decodes chunks into them, the writer assembles and compares cells in them.
"""

from __future__ import annotations

import math
import threading

import numpy as np

KEPT_BYTES = 64 * 2**20  # a thread keeps buffers up to this size; a larger request gets a fresh one
# Buffers start on a page, as the page cache's pages do: the kernel copied a file into a buffer
# starting 8, 16 or 24 bytes into a page 5x slower than into one starting on it (0.5 ms against 0.09
# ms for a 1.26 MB chunk; Linux 6.18 on AMD EPYC), and a large np.empty starts 16 bytes into a page.
ALIGN = 4096


class ThreadBuffers(threading.local):
    """uint8 buffers of the calling thread, by purpose, grown to the largest size asked for."""

    def __init__(self) -> None:
        self.kept: dict[str, np.ndarray] = {}

    def raw(self, purpose: str, nbytes: int) -> np.ndarray:
        """At least `nbytes` bytes, valid until this thread asks for `purpose` again."""
        kept = self.kept.get(purpose)
        if kept is not None and kept.nbytes >= nbytes:
            return kept
        block = np.empty(nbytes + ALIGN, dtype=np.uint8)
        start = -block.ctypes.data % ALIGN
        fresh = block[start : start + nbytes]
        if nbytes <= KEPT_BYTES:
            self.kept[purpose] = fresh
        return fresh

    def array(self, purpose: str, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """An uninitialised C-contiguous array of `shape` and `dtype` in the `purpose` buffer."""
        nbytes = math.prod(shape) * dtype.itemsize
        return self.raw(purpose, nbytes)[:nbytes].view(dtype).reshape(shape)
