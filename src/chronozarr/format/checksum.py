"""The optional crc32c codec after a chunk's compressor (Zarr v3 `crc32c`): four bytes, the crc32c
of the compressed bytes, little-endian. A store written with it lets every reader tell a damaged
chunk (a flipped bit, another chunk's valid frame) from the stored one before decoding it."""

from __future__ import annotations

import google_crc32c

from ..errors import ChunkError

CRC32C = "crc32c"  # the codec's name in a Zarr v3 codecs list
CHECKSUM_BYTES = 4


def with_checksum(data: bytes) -> bytes:
    """The compressed bytes followed by their crc32c."""
    return data + int(google_crc32c.value(data)).to_bytes(CHECKSUM_BYTES, "little")


def verified(data: bytes | memoryview) -> bytes:
    """The compressed bytes without their crc32c; ValueError when it does not match them."""
    if len(data) < CHECKSUM_BYTES:
        raise ChunkError(f"chunk of {len(data)} bytes is shorter than its {CHECKSUM_BYTES}-byte crc32c")
    body = bytes(data[:-CHECKSUM_BYTES])
    if int(google_crc32c.value(body)) != int.from_bytes(data[-CHECKSUM_BYTES:], "little"):
        raise ChunkError("crc32c does not match the chunk's bytes: the chunk is damaged; re-encode or re-upload it")
    return body
