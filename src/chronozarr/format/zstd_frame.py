"""zstd frame headers and blocks read without decoding (RFC 8878), so that a decoder is never
asked to produce more than a chunk may hold: a streamed frame declares no size and would make it
grow its output without bound."""

from __future__ import annotations

from ..errors import ChunkError

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BLOCK_MAX = 1 << 17  # no block decodes to more than 128 KiB (RFC 8878 3.1.1.2.3)
RLE, COMPRESSED, RESERVED = 1, 2, 3  # block types (0 is raw)


def _size_field(data: bytes | memoryview) -> tuple[int, int]:
    """(offset, length) of the header's content size field, after the magic, the descriptor, the
    window (absent in a single-segment frame) and the dictionary id; length 0 when it has none."""
    if len(data) < 6 or data[:4] != ZSTD_MAGIC:
        raise ChunkError("chunk is not a zstd frame (bad magic number)")
    descriptor = data[4]
    single_segment = bool(descriptor & 0x20)
    start = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 0x03]
    return start, (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]


def zstd_content_size(data: bytes | memoryview) -> int | None:
    """The content size a zstd frame header declares, None when the frame does not say (RFC 8878
    3.1.1.1); ValueError for bytes that are not a zstd frame."""
    start, size_bytes = _size_field(data)
    if size_bytes == 0:
        return None
    if len(data) < start + size_bytes:
        raise ChunkError("zstd frame header is truncated")
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
            raise ChunkError(f"zstd frame holds {declared} bytes, expected {nbytes}")
        return data
    fields, _ = _size_field(data)
    if len(data) < fields:
        raise ChunkError("zstd frame header is truncated")
    return bytes(data[:4]) + bytes([data[4] | 0xC0]) + bytes(data[5:fields]) + nbytes.to_bytes(8, "little") + bytes(data[fields:])


def zstd_size_bound(data: bytes) -> int:
    """The most bytes one zstd frame can decode to: its declared size, or the sum of its blocks'
    sizes (a raw or RLE block's exactly, a compressed one's at most 128 KiB); ValueError for a
    frame that is not one, or that has bytes after it."""
    declared = zstd_content_size(data)
    if declared is not None:
        return declared
    return sum(BLOCK_MAX if kind == COMPRESSED else size for _, kind, size in _blocks(data))


def zstd_prefix(data: bytes | memoryview, nbytes: int, upto: int) -> tuple[bytes, int] | None:
    """(frame, size): a frame of the first blocks of a chunk of `nbytes` bytes that decodes to its
    first `size` >= `upto` bytes and declares that size, so a read of the start of a chunk (one
    pixel of every band) decodes only that far.

    None when that takes the whole frame, when the frame is not whole (the full decode says what
    is wrong), or when its blocks are not the 128 KiB ones an encoder cuts (only their count tells
    that before decoding). A block that decodes to other than 128 KiB still fails the decoder's
    check of the declared size, never gives bytes from the wrong place.
    """
    count, k = -(-nbytes // BLOCK_MAX), (upto - 1) // BLOCK_MAX  # k: the block holding byte upto - 1
    if k >= count - 1 or zstd_content_size(data) not in (None, nbytes):
        return None
    try:
        blocks = _blocks(data)
    except ValueError:
        return None
    if len(blocks) != count or any(kind != COMPRESSED and size != BLOCK_MAX for _, kind, size in blocks[: k + 1]):
        return None
    at, kind, length = blocks[k]
    size = (k + 1) * BLOCK_MAX
    fields, _ = _size_field(data)
    # an 8-byte content size and no checksum (the frame ends early); single segment and dictionary id kept
    header = bytes(data[:4]) + bytes([data[4] & 0x23 | 0xC0]) + bytes(data[5:fields]) + size.to_bytes(8, "little")
    last = (int.from_bytes(data[at : at + 3], "little") | 1).to_bytes(3, "little")
    body = memoryview(data)
    return b"".join((header, body[blocks[0][0] : at], last, body[at + 3 : at + 3 + (1 if kind == RLE else length)])), size


def _blocks(data: bytes | memoryview) -> list[tuple[int, int, int]]:
    """(offset, type, size field) of every block of a frame; ValueError when the blocks do not
    end where the frame does (after its checksum, if it has one)."""
    start, size_bytes = _size_field(data)
    at = start + size_bytes
    blocks = []
    while True:
        if at + 3 > len(data):
            raise ChunkError("zstd frame is truncated: it ends before its last block")
        header = int.from_bytes(data[at : at + 3], "little")
        kind, size = (header >> 1) & 3, header >> 3
        if kind == RESERVED:
            raise ChunkError("zstd frame has a block of the reserved type")
        blocks.append((at, kind, size))
        at += 3 + (1 if kind == RLE else size)
        if header & 1:
            break
    at += 4 if data[4] & 0x04 else 0
    if at != len(data):
        raise ChunkError(f"zstd frame takes {min(at, len(data))} of the chunk's {len(data)} bytes: the chunk is damaged")
    return blocks
