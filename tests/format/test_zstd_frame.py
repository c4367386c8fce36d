"""A zstd frame's prefix (format/zstd_frame.py zstd_prefix) against frames numcodecs writes and
frames built by hand from RFC 8878: it decodes, through numcodecs, to the first bytes of the input,
and is refused for a frame that is not whole or not cut in 128 KiB blocks."""

from __future__ import annotations

import numcodecs
import numpy as np
import pytest
from hostile_stores import streamed_zstd_bomb

from chronozarr.format.zstd_frame import zstd_prefix

BLOCK = 1 << 17
VALUES = np.random.default_rng(2).integers(1, 5000, 4 * BLOCK, endpoint=True).astype("<u2")  # 8 blocks
NBYTES = VALUES.nbytes
FRAME = bytes(numcodecs.Zstd(level=5).encode(VALUES))


def _raw_frame(sizes: list[int]) -> bytes:
    """A frame of raw blocks of `sizes` bytes of 9, declaring no size (RFC 8878 3.1.1.2)."""
    out = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")  # magic; no size, not single segment; 128 KiB window
    for i, size in enumerate(sizes):
        out += ((1 if i == len(sizes) - 1 else 0) | (size << 3)).to_bytes(3, "little") + b"\x09" * size
    return bytes(out)


@pytest.mark.parametrize("upto", [1, 2, BLOCK, BLOCK + 1, 5 * BLOCK + 7, 7 * BLOCK])
def test_a_prefix_decodes_to_the_first_bytes_of_the_chunk_through_the_blocks_that_hold_them(upto):
    frame, size = zstd_prefix(FRAME, NBYTES, upto)
    assert size == -(-upto // BLOCK) * BLOCK
    assert len(frame) < len(FRAME)
    assert bytes(numcodecs.Zstd().decode(frame)) == VALUES.tobytes()[:size]


def test_a_streamed_frame_has_a_prefix_that_declares_its_size():
    frame, size = zstd_prefix(streamed_zstd_bomb(8 * BLOCK), 8 * BLOCK, 3 * BLOCK - 1)
    assert size == 3 * BLOCK
    assert bytes(numcodecs.Zstd().decode(frame)) == b"\x07" * size


@pytest.mark.parametrize(
    ("frame", "nbytes", "why"),
    [
        (FRAME, NBYTES, "the last block holds the byte"),
        (FRAME[:-5], NBYTES, "truncated"),
        (FRAME + b"\0", NBYTES, "bytes after the frame"),
        (FRAME, NBYTES + 2, "declares another size"),
        (_raw_frame([BLOCK - 1, BLOCK, BLOCK, 1]), 3 * BLOCK, "a raw block of less than 128 KiB"),
        (_raw_frame([BLOCK // 2] * 6), 3 * BLOCK, "more blocks than 128 KiB ones"),
    ],
)
def test_no_prefix_of_a_frame_not_whole_or_not_cut_in_128_kib_blocks(frame, nbytes, why):
    upto = nbytes - 1 if why == "the last block holds the byte" else BLOCK + 3
    assert zstd_prefix(frame, nbytes, upto) is None, why
