"""A thread's reused buffers (read/buffers.py) start on a page, where the kernel copies a file's
pages fastest, whatever the size asked for, and keep their contents for the next request."""

from __future__ import annotations

import numpy as np
import pytest

from chronozarr.read.buffers import ThreadBuffers

PAGE = 4096


@pytest.mark.parametrize("nbytes", [1, 4095, 1_263_749, 2 * 2**20 + 17])
def test_a_buffer_starts_on_a_page_and_holds_the_bytes_asked_for(nbytes):
    buffers = ThreadBuffers()
    raw = buffers.raw("object", nbytes)
    assert raw.ctypes.data % PAGE == 0 and raw.nbytes >= nbytes and raw.dtype == np.uint8
    cells = buffers.array("cells", (3, 5, 7), np.dtype("<u2"))
    assert cells.ctypes.data % PAGE == 0 and cells.shape == (3, 5, 7)


def test_a_smaller_request_reuses_the_buffer():
    buffers = ThreadBuffers()
    first = buffers.raw("chunk", 1 << 20)
    first[:4] = [1, 2, 3, 4]
    again = buffers.raw("chunk", 1000)
    assert again.ctypes.data == first.ctypes.data and list(again[:4]) == [1, 2, 3, 4]
