"""The compression codecs a store may use (spec 8), as Zarr v3 JSON and as numcodecs objects.

Encoding is deterministic (gzip carries no timestamp), so one input gives the same bytes on every
run. Decoding is bounded by the chunk's shape: `CodecSpec.decode` never produces or allocates more
than the bytes the caller expects, whatever the stored bytes claim, and refuses a chunk whose
headers disagree with the array's codec settings rather than decode it into wrong values.
"""

from __future__ import annotations

import functools
import struct
import zlib
from dataclasses import dataclass, replace
from typing import Any

import numcodecs
import numpy as np

from ..errors import ChunkError, DocumentError, SettingError
from ..limits import BLOSC_CNAMES, BLOSC_SHUFFLES  # what spec 8 allows of blosc in a level's arrays
from .checksum import CRC32C, verified, with_checksum
from .zstd_frame import zstd_content_size, zstd_prefix, zstd_size_bound, zstd_with_size


@dataclass(frozen=True)
class CodecRule:
    """What spec 8 allows of one compression codec: the configuration field holding its level,
    the levels allowed, and the level a configuration without the field means."""

    level_key: str
    levels: tuple[int, int]
    implied_level: int

    def level_problem(self, name: str, value: Any) -> str | None:
        """Why `value` is not a level of this codec, or None when it is one."""
        low, high = self.levels
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"{name} {self.level_key} must be an integer from {low} to {high}, got {value!r}"
        return None


# The one codec table: the writer, reader, validator and CLI options read it; a codec is one entry
# here plus its to_json, compressor and decode branches. A chunk may carry the crc32c codec after
# its compressor (CodecSpec.checksum; format/checksum.py), and nothing else.
CODECS = {
    "zstd": CodecRule("level", (-131072, 22), 0),
    "blosc": CodecRule("clevel", (0, 9), 5),
    "gzip": CodecRule("level", (1, 9), 5),
}
CODEC_NAMES = tuple(CODECS)
DEFAULT_CODEC = "zstd"
DEFAULT_LEVEL = 5
BITSHUFFLE = "bitshuffle"  # blosc's bit shuffle: the history array's codec only (docs/format-history.md)


@dataclass(frozen=True)
class CodecSpec:
    """One compression codec with its settings; `bytes` little-endian always comes first."""

    name: str = "zstd"
    level: int = 5
    cname: str = "zstd"
    shuffle: str = "noshuffle"
    checksum: bool = False  # the crc32c codec follows the compressor

    def __post_init__(self) -> None:
        if self.name not in CODEC_NAMES:
            raise SettingError(f"codec must be one of {', '.join(CODEC_NAMES)}, got {self.name!r}")
        low, high = CODECS[self.name].levels
        if not low <= self.level <= high:
            raise SettingError(f"{self.name} level must be between {low} and {high}, got {self.level}")
        if self.name == "blosc":
            if self.cname not in BLOSC_CNAMES:
                raise SettingError(f"blosc cname must be zstd or lz4, got {self.cname!r}")
            if self.shuffle not in (*BLOSC_SHUFFLES, BITSHUFFLE):
                raise SettingError(f"blosc shuffle must be noshuffle, shuffle or bitshuffle, got {self.shuffle!r}")

    @classmethod
    def create(cls, name: str = "zstd", level: int | None = None, checksum: bool = False, **blosc: str) -> CodecSpec:
        """A codec with the default level (DEFAULT_LEVEL) unless one is given."""
        return cls(name=name, level=DEFAULT_LEVEL if level is None else level, checksum=checksum, **blosc)

    def to_json(self, dtype: np.dtype) -> dict[str, Any]:
        """The Zarr v3 codec entry for data of this dtype."""
        if self.name == "zstd":
            return {"name": "zstd", "configuration": {"level": self.level, "checksum": False}}
        if self.name == "gzip":
            return {"name": "gzip", "configuration": {"level": self.level}}
        return {
            "name": "blosc",
            "configuration": {
                "cname": self.cname,
                "clevel": self.level,
                "shuffle": self.shuffle,
                "typesize": int(np.dtype(dtype).itemsize),
                "blocksize": 0,
            },
        }

    def chain_json(self, dtype: np.dtype) -> list[dict[str, Any]]:
        """The codec entries after `bytes`: the compressor, then crc32c with a checksum."""
        return [self.to_json(dtype), *([{"name": CRC32C}] if self.checksum else [])]

    @classmethod
    def from_chain(cls, entries: list[dict[str, Any]]) -> CodecSpec:
        """The codec of the entries after `bytes`: one compressor, optionally then crc32c."""
        names = [e.get("name") for e in entries]
        if len(entries) == 2 and names[1] == CRC32C:
            return replace(cls.from_json(entries[0]), checksum=True)
        if len(entries) != 1:
            raise DocumentError(f"unsupported codecs {names}: chronozarr uses one compressor, optionally followed by crc32c")
        return cls.from_json(entries[0])

    def encode(self, raw: Any, dtype: np.dtype) -> bytes:
        """A chunk's stored bytes: compressed, then its crc32c with a checksum."""
        data = bytes(self.compressor(dtype).encode(raw))
        return with_checksum(data) if self.checksum else data

    @classmethod
    def from_json(cls, entry: dict[str, Any]) -> CodecSpec:
        """Parse a Zarr v3 codec entry; unsupported codecs and settings raise ChunkError naming them."""
        name = entry.get("name")
        config = entry.get("configuration") or {}
        if not isinstance(config, dict):
            raise DocumentError(f"{name} configuration must be an object, got {config!r}")
        if isinstance(name, str) and name in CODECS:
            level = _level(config, CODECS[name].level_key, CODECS[name].implied_level)
            if name == "blosc":
                return cls("blosc", level, str(config.get("cname", "zstd")), str(config.get("shuffle", "noshuffle")))
            return cls(name, level)
        raise DocumentError(f"unsupported codec {name!r}: chronozarr stores use zstd, blosc or gzip (spec 8)")

    def compressor(self, dtype: np.dtype) -> numcodecs.abc.Codec:
        """A numcodecs codec producing exactly the bytes a Zarr v3 reader expects."""
        return _compressor(self, np.dtype(dtype))

    def _new_compressor(self, dtype: np.dtype) -> numcodecs.abc.Codec:
        if self.name == "zstd":
            return numcodecs.Zstd(level=self.level, checksum=False)
        if self.name == "gzip":
            return FixedHeaderGZip(level=self.level)
        shuffle = {"shuffle": numcodecs.Blosc.SHUFFLE, BITSHUFFLE: numcodecs.Blosc.BITSHUFFLE}.get(self.shuffle, numcodecs.Blosc.NOSHUFFLE)
        return numcodecs.Blosc(cname=self.cname, clevel=self.level, shuffle=shuffle, blocksize=0)

    def decode(
        self, data: bytes | memoryview, nbytes: int, dtype: np.dtype, out: np.ndarray | None = None, upto: int | None = None
    ) -> bytes | memoryview:
        """Decompress one chunk to at most `nbytes` bytes; ValueError when the chunk is not one.

        `out`, a uint8 array of at least `nbytes`, receives the bytes when given and the result is
        a view of it: a reader decodes into a buffer it reuses, or straight into its output. The result
        is shorter than `nbytes` only for a gzip chunk that inflates to less, which the caller
        refuses by its length. With `upto`, the caller reads only the first `upto` bytes: a zstd
        chunk may decode only as far as the block holding them (the rest of the result is what
        the buffer held), as a pixel's read does.
        """
        return self._decompress(verified(data) if self.checksum else data, nbytes, dtype, out, upto)

    def _decompress(
        self, data: bytes | memoryview, nbytes: int, dtype: np.dtype, out: np.ndarray | None = None, upto: int | None = None
    ) -> bytes | memoryview:
        if self.name == "gzip":
            inflated = _inflate(data, nbytes)
            return inflated if out is None else copy_into(inflated, out)
        target = np.empty(nbytes, dtype=np.uint8) if out is None else out[:nbytes]
        if self.name == "blosc":
            check_blosc_header(data, nbytes, self, np.dtype(dtype).itemsize)
        else:
            prefix = None if upto is None else zstd_prefix(data, nbytes, upto)
            if prefix is not None and _decoded(self, prefix[0], target[: prefix[1]], dtype):
                return target.data
            data = zstd_with_size(data, nbytes)
        try:
            _compressor(self, np.dtype(dtype)).decode(data, out=target)
        except (RuntimeError, ValueError, TypeError) as exc:
            raise ChunkError(f"{self.name} chunk does not decode to the bytes its shape holds, expected {nbytes} ({exc})") from None
        return target.data

    def decode_at_most(self, data: bytes, limit: int, itemsize: int = 1) -> bytes | memoryview:
        """Decompress a chunk whose decoded size is not fixed (strings) to at most `limit` bytes,
        found from its headers before anything is allocated; ValueError past the limit."""
        if self.checksum:
            data = verified(data)
        if self.name == "gzip":
            return _inflate(data, limit)
        declared = zstd_size_bound(data) if self.name == "zstd" else _blosc_declared(data)
        if declared > limit:
            raise ChunkError(f"{self.name} chunk would decode to up to {declared} bytes, more than the {limit} its array can hold")
        if self.name == "blosc" or zstd_content_size(data) is not None:
            return self._decompress(data, declared, np.dtype(f"V{itemsize}"))
        try:  # a streamed frame, whose blocks were counted above: its output stays within `declared`
            return memoryview(numcodecs.Zstd().decode(data)).cast("B")
        except (RuntimeError, ValueError, TypeError) as exc:
            raise ChunkError(f"zstd chunk does not decode ({exc})") from None


def _decoded(codec: CodecSpec, frame: bytes, target: np.ndarray, dtype: np.dtype) -> bool:
    """Whether `frame` decoded to exactly `target`'s bytes; a frame that does not is decoded
    whole after, whose error names the damage."""
    try:
        _compressor(codec, np.dtype(dtype)).decode(frame, out=target)
    except (RuntimeError, ValueError, TypeError):
        return False
    return True


def copy_into(data: bytes | memoryview, out: np.ndarray) -> memoryview:
    """`data` copied to the start of the uint8 array `out`, as a view of those bytes of it."""
    target = out[: len(data)]
    target[:] = np.frombuffer(data, dtype=np.uint8)
    return target.data


@functools.lru_cache(maxsize=64)
def _compressor(codec: CodecSpec, dtype: np.dtype) -> numcodecs.abc.Codec:
    """One numcodecs codec per setting, shared by every thread (their encode and decode keep no
    state between calls), so reading a chunk does not build a codec object."""
    return codec._new_compressor(dtype)


def _blosc_declared(data: bytes) -> int:
    if len(data) < BLOSC_HEADER_BYTES:
        raise ChunkError(f"blosc chunk of {len(data)} bytes is shorter than its 16-byte header")
    return int.from_bytes(data[4:8], "little")


def bytes_codec(dtype: np.dtype) -> dict[str, Any]:
    """`bytes` little-endian; one-byte dtypes have no byte order, so the setting is omitted."""
    if np.dtype(dtype).itemsize == 1:
        return {"name": "bytes"}
    return {"name": "bytes", "configuration": {"endian": "little"}}


def _level(config: dict[str, Any], key: str, default: int) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DocumentError(f"codec {key} must be an integer, got {value!r}")
    return value


class FixedHeaderGZip(numcodecs.GZip):
    """numcodecs' GZip with a header that never varies: mtime 0, no name, OS 'unknown' (RFC 1952).

    numcodecs stamps the time of writing into every chunk, so two encodes of one input would
    differ and an upload could not skip unchanged objects.
    """

    def encode(self, buf: Any) -> bytes:
        data = memoryview(numcodecs.compat.ensure_contiguous_ndarray(buf)).cast("B")
        deflate = zlib.compressobj(self.level, zlib.DEFLATED, -zlib.MAX_WBITS)
        body = deflate.compress(data) + deflate.flush()
        extra_flags = 2 if self.level == 9 else 4 if self.level == 1 else 0
        header = b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + bytes([extra_flags, 255])
        return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def _inflate(data: bytes | memoryview, nbytes: int) -> bytes:
    """A gzip member inflated to at most nbytes + 1 bytes, so a bomb stops one byte past the bound."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, nbytes + 1)
    except zlib.error as exc:
        raise ChunkError(f"gzip chunk does not decode ({exc})") from None
    if len(out) > nbytes:
        raise ChunkError(f"gzip chunk inflates to more than {nbytes} bytes")
    if not inflater.eof:
        raise ChunkError("gzip chunk is truncated: the stream ends before its trailer")
    return out


BLOSC_HEADER_BYTES = 16
BLOSC_FORMAT_VERSION = 2  # the header format c-blosc 1.x writes; it refuses later ones
BLOSC_SHUFFLE, BLOSC_MEMCPYED, BLOSC_BITSHUFFLE, BLOSC_RESERVED = 0x01, 0x02, 0x04, 0x08
BLOSC_DONT_SPLIT = 0x10
BLOSC_FORMATS = {"lz4": 1, "zstd": 4}  # the compressor code in the flags' top three bits
BLOSC_COMPRESSOR_VERSION = 1  # header byte 1: the only lz4 and zstd stream format c-blosc reads
BLOSC_MAX_SPLITS, BLOSC_MIN_SPLIT = 16, 128  # c-blosc splits a block by item byte up to 16-byte items, 128 items a block


def check_blosc_header(data: bytes | memoryview, nbytes: int, codec: CodecSpec, itemsize: int) -> None:
    """The 16-byte blosc header must describe this chunk with the array's settings.

    blosc trusts its header: it reads past a truncated chunk, and decodes a chunk whose flags name
    another compressor, shuffle or element size into wrong values without an error. So sizes and
    flags are checked here, where both readers agree on them (the JS reader mirrors this).
    """
    if len(data) < BLOSC_HEADER_BYTES:
        raise ChunkError(f"blosc chunk of {len(data)} bytes is shorter than its 16-byte header")
    flags, typesize = data[2], data[3]
    declared, cbytes = int.from_bytes(data[4:8], "little"), int.from_bytes(data[12:16], "little")
    if declared != nbytes:
        raise ChunkError(f"blosc header says {declared} bytes, expected {nbytes}")
    if cbytes != len(data):
        raise ChunkError(f"blosc chunk is {len(data)} bytes but its header says {cbytes}: the object is truncated or damaged")
    if flags & BLOSC_RESERVED or (flags & BLOSC_BITSHUFFLE and flags & BLOSC_SHUFFLE):
        raise ChunkError(f"blosc flags {flags:#04x} ask for a reserved feature or for both shuffles")
    if flags & BLOSC_MEMCPYED:
        if cbytes != nbytes + BLOSC_HEADER_BYTES:
            raise ChunkError(f"blosc flags {flags:#04x} say the chunk is stored uncompressed, but it is {cbytes} bytes for {nbytes}")
        return
    if flags >> 5 != BLOSC_FORMATS[codec.cname]:
        raise ChunkError(f"blosc flags {flags:#04x} name compressor {flags >> 5}, the array declares {codec.cname}")
    if data[1] != BLOSC_COMPRESSOR_VERSION:
        raise ChunkError(f"blosc header names {codec.cname} stream format {data[1]}, not {BLOSC_COMPRESSOR_VERSION}")
    if bool(flags & BLOSC_SHUFFLE) != (codec.shuffle == "shuffle") or bool(flags & BLOSC_BITSHUFFLE) != (codec.shuffle == BITSHUFFLE):
        raise ChunkError(f"blosc flags {flags:#04x} disagree with the array's shuffle {codec.shuffle!r}")
    if flags & (BLOSC_SHUFFLE | BLOSC_BITSHUFFLE) and typesize != itemsize:
        raise ChunkError(f"blosc chunk is shuffled with {typesize}-byte items, the array's are {itemsize} bytes")
    _check_blosc_streams(data, flags, typesize, nbytes)


def _check_blosc_streams(data: bytes | memoryview, flags: int, typesize: int, nbytes: int) -> None:
    """The compressed streams of every block must fill the chunk exactly.

    After the header come the start of each block and, in each, one length-prefixed stream, or
    one per byte of an item when the encoder split the block (the flags say when it did not). A
    flags byte that lies about splitting reads streams at the wrong places, which blosc does not
    always notice (c-blosc does; the WebAssembly build the JS reader uses does not).
    """
    blocksize = int.from_bytes(data[8:12], "little")
    if blocksize == 0 or blocksize > nbytes or typesize == 0 or data[0] > BLOSC_FORMAT_VERSION:
        raise ChunkError(
            f"blosc header (format {data[0]}, {typesize}-byte items, blocks of {blocksize} bytes for {nbytes}) is not one "
            "c-blosc writes or reads: the chunk is damaged"
        )
    blocks, leftover = -(-nbytes // blocksize), nbytes % blocksize
    used = BLOSC_HEADER_BYTES + 4 * blocks
    if used > len(data):
        raise ChunkError(f"blosc chunk of {len(data)} bytes is too short for the starts of its {blocks} blocks")
    starts = np.frombuffer(data, dtype="<i4", count=blocks, offset=BLOSC_HEADER_BYTES)
    splittable = not flags & BLOSC_DONT_SPLIT and typesize <= BLOSC_MAX_SPLITS and blocksize // max(typesize, 1) >= BLOSC_MIN_SPLIT
    for i, start in enumerate(starts.tolist()):
        streams = typesize if splittable and not (leftover and i == blocks - 1) else 1
        at = start
        for _ in range(streams):
            size = int.from_bytes(data[at : at + 4], "little", signed=True) if 0 <= at <= len(data) - 4 else -1
            if size <= 0 or at + 4 + size > len(data):
                raise ChunkError(f"blosc block {i} does not hold the compressed streams its flags ({flags:#04x}) describe: the chunk is damaged")
            at += 4 + size
            used += 4 + size
    if used != len(data):
        raise ChunkError(f"blosc blocks take {used} of the chunk's {len(data)} bytes (flags {flags:#04x}): the chunk is damaged")
