"""zstd frame headers and blocks read without decoding (RFC 8878), so that a decoder is never
asked to produce more than a chunk may hold: a streamed frame declares no size and would make it
grow its output without bound."""

from __future__ import annotations

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def zstd_content_size(data: bytes | memoryview) -> int | None:
    """The content size a zstd frame header declares, None when the frame does not say (RFC 8878
    3.1.1.1); ValueError for bytes that are not a zstd frame."""
    if len(data) < 6 or data[:4] != ZSTD_MAGIC:
        raise ValueError("chunk is not a zstd frame (bad magic number)")
    descriptor = data[4]
    single_segment = bool(descriptor & 0x20)
    size_bytes = (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
    if size_bytes == 0:
        return None
    start = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 0x03]
    if len(data) < start + size_bytes:
        raise ValueError("zstd frame header is truncated")
    size = int.from_bytes(data[start : start + size_bytes], "little")
    return size + 256 if size_bytes == 2 else size


def zstd_with_size(data: bytes | memoryview, nbytes: int) -> bytes | memoryview:
    """The frame, declaring `nbytes` as its content size when it declared none.

    A streamed frame (no size in its header) makes a decoder grow its output without bound, so
    the size the array implies is written into the header: the decoder then allocates exactly
    that and fails if the frame holds more or less. A frame that declares another size is refused.
    """
    declared = zstd_content_size(data)
    if declared is not None:
        if declared != nbytes:
            raise ValueError(f"zstd frame holds {declared} bytes, expected {nbytes}")
        return data
    descriptor = data[4]
    fields = 6 + (0, 1, 2, 4)[descriptor & 0x03]  # magic, descriptor, window, dictionary id
    if len(data) < fields:
        raise ValueError("zstd frame header is truncated")
    return bytes(data[:4]) + bytes([descriptor | 0xC0]) + bytes(data[5:fields]) + nbytes.to_bytes(8, "little") + bytes(data[fields:])


BLOCK_MAX = 1 << 17  # no block decodes to more than 128 KiB (RFC 8878 3.1.1.2.3)


def zstd_size_bound(data: bytes) -> int:
    """The most bytes one zstd frame can decode to: its declared size, or the sum of its blocks'
    sizes (a raw or RLE block's exactly, a compressed one's at most 128 KiB); ValueError for a
    frame that is not one, or that has bytes after it."""
    declared = zstd_content_size(data)
    if declared is not None:
        return declared
    descriptor = data[4]
    at = 6 + (0, 1, 2, 4)[descriptor & 0x03]
    total = 0
    while True:
        if at + 3 > len(data):
            raise ValueError("zstd frame is truncated: it ends before its last block")
        header = int.from_bytes(data[at : at + 3], "little")
        kind, size = (header >> 1) & 3, header >> 3
        if kind == 3:
            raise ValueError("zstd frame has a block of the reserved type")
        at += 3 + (1 if kind == 1 else size)
        total += BLOCK_MAX if kind == 2 else size
        if header & 1:
            break
    at += 4 if descriptor & 0x04 else 0
    if at != len(data):
        raise ValueError(f"zstd frame takes {min(at, len(data))} of the chunk's {len(data)} bytes: the chunk is damaged")
    return total
