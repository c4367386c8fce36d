"""Array documents as the reader needs them, and bounded decoding of chunks and shard indexes.

Everything a store says is checked before it is trusted: unsupported codecs and dtypes are
refused by name, a chunk may not decode to more than its shape holds, and a shard index must
pass its crc32c and keep every chunk inside the shard.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import google_crc32c
import numpy as np

from ..errors import StoreError
from ..format.codecs import CodecSpec

READ_DTYPES = ("uint8", "uint16", "int16", "float32", "int64", "float64", "int32")
EMPTY = 2**64 - 1


@dataclass(frozen=True)
class ArrayInfo:
    """Shape, dtype, chunking and codecs of one array."""

    key: str
    shape: tuple[int, ...]
    dtype: np.dtype
    fill_value: Any
    chunk_shape: tuple[int, ...]
    shard_shape: tuple[int, ...] | None
    codec: CodecSpec | None
    index_at_end: bool
    attributes: Mapping[str, Any] = field(compare=False)
    dimension_names: tuple[str, ...] | None

    @property
    def sharded(self) -> bool:
        return self.shard_shape is not None

    @property
    def chunks_per_shard(self) -> int:
        assert self.shard_shape is not None
        return math.prod(s // c for s, c in zip(self.shard_shape, self.chunk_shape))

    @property
    def index_nbytes(self) -> int:
        return 16 * self.chunks_per_shard + 4

    @property
    def chunk_nbytes(self) -> int:
        return math.prod(self.chunk_shape) * self.dtype.itemsize


def parse_array(key: str, doc: Any) -> ArrayInfo:
    """Parse an array zarr.json; raises StoreError naming what is unsupported or malformed."""
    try:
        return _parse_array(key, doc)
    except StoreError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise StoreError(f"{key}/zarr.json is not a valid Zarr v3 array document ({type(exc).__name__}: {exc})") from None


def _parse_array(key: str, doc: Any) -> ArrayInfo:
    if not isinstance(doc, Mapping) or doc.get("zarr_format") != 3 or doc.get("node_type") != "array":
        raise StoreError(f"{key}/zarr.json is not a Zarr v3 array")
    dtype_name = doc["data_type"]
    if dtype_name == "string":
        dtype = np.dtype(object)
    elif dtype_name in READ_DTYPES:
        dtype = np.dtype(dtype_name)
    else:
        raise StoreError(f"{key}: unsupported data_type {dtype_name!r} (chronozarr data is uint8, uint16, int16 or float32)")
    shape = tuple(_nonneg_int(v, f"{key} shape") for v in doc["shape"])
    if doc.get("storage_transformers"):
        raise StoreError(f"{key}: storage_transformers {doc['storage_transformers']!r} are not supported")
    grid = doc["chunk_grid"]
    if grid.get("name") != "regular":
        raise StoreError(f"{key}: unsupported chunk grid {grid.get('name')!r}")
    outer = tuple(_positive_int(v, f"{key} chunk_shape") for v in grid["configuration"]["chunk_shape"])
    encoding = doc.get("chunk_key_encoding", {"name": "default"})
    separator = (encoding.get("configuration") or {}).get("separator", "/")
    if encoding.get("name") != "default" or separator != "/":
        raise StoreError(f"{key}: unsupported chunk_key_encoding {encoding!r}; chronozarr uses default with '/'")
    if len(outer) != len(shape):
        raise StoreError(f"{key}: chunk_shape {list(outer)} does not match shape {list(shape)}")
    codecs = list(doc["codecs"])
    shard_shape = None
    index_at_end = True
    chunk_shape = outer
    if codecs and codecs[0].get("name") == "sharding_indexed":
        if len(codecs) != 1:
            raise StoreError(f"{key}: codecs after sharding_indexed are not supported")
        config = codecs[0]["configuration"]
        chunk_shape = tuple(_positive_int(v, f"{key} inner chunk_shape") for v in config["chunk_shape"])
        if len(chunk_shape) != len(outer) or any(o % i for o, i in zip(outer, chunk_shape)):
            raise StoreError(f"{key}: inner chunk_shape {list(chunk_shape)} does not divide the shard shape {list(outer)}")
        index_codecs = [c.get("name") for c in config.get("index_codecs", [])]
        if index_codecs != ["bytes", "crc32c"]:
            raise StoreError(f"{key}: unsupported shard index codecs {index_codecs}; expected bytes then crc32c")
        location = config.get("index_location", "end")
        if location not in ("start", "end"):
            raise StoreError(f"{key}: unsupported index_location {location!r}")
        index_at_end = location == "end"
        shard_shape = outer
        codecs = list(config["codecs"])
    codec = _parse_codecs(key, codecs, dtype)
    item = max(dtype.itemsize, 1)
    if math.prod(chunk_shape) * item > 2**31:
        raise StoreError(f"{key}: a chunk of shape {list(chunk_shape)} would exceed 2 GiB")
    dims = doc.get("dimension_names")
    return ArrayInfo(
        key=key,
        shape=shape,
        dtype=dtype,
        fill_value=_fill_value(key, doc.get("fill_value", 0), dtype),
        chunk_shape=chunk_shape,
        shard_shape=shard_shape,
        codec=codec,
        index_at_end=index_at_end,
        attributes=doc.get("attributes") or {},
        dimension_names=tuple(dims) if dims is not None else None,
    )


def _parse_codecs(key: str, codecs: list[Mapping[str, Any]], dtype: np.dtype) -> CodecSpec | None:
    names = [c.get("name") for c in codecs]
    if dtype.kind == "O":
        if not names or names[0] != "vlen-utf8" or len(names) > 2:
            raise StoreError(f"{key}: unsupported codecs {names} for a string array")
        rest = codecs[1:]
    else:
        if not names or names[0] != "bytes":
            raise StoreError(f"{key}: unsupported codecs {names}; chronozarr arrays start with bytes")
        endian = (codecs[0].get("configuration") or {}).get("endian", "little")
        if endian != "little" and dtype.itemsize > 1:
            raise StoreError(f"{key}: big-endian bytes codec is not supported")
        rest = codecs[1:]
    if len(rest) > 1:
        raise StoreError(f"{key}: unsupported codecs {names}; chronozarr uses exactly one compressor")
    if not rest:
        return None
    try:
        return CodecSpec.from_json(dict(rest[0]))
    except ValueError as exc:
        raise StoreError(f"{key}: {exc}") from None


def _fill_value(key: str, value: Any, dtype: np.dtype) -> Any:
    """The fill_value as a scalar of the dtype (Zarr v3 JSON: numbers, the NaN/Infinity names or
    hex bytes for floats); a missing chunk decodes to it, so a value the dtype cannot hold is refused."""
    if dtype.kind == "O":
        if isinstance(value, str):
            return value
    elif dtype.kind == "f" and isinstance(value, str):
        named = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
        if value in named:
            return dtype.type(named[value])
        if value.startswith("0x") and len(value) == 2 + 2 * dtype.itemsize:
            try:
                return np.frombuffer(bytes.fromhex(value[2:]), dtype=dtype.newbyteorder(">"))[0].astype(dtype)
            except ValueError:
                pass
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if dtype.kind == "f":
            return dtype.type(value)
        info = np.iinfo(dtype)
        if float(value).is_integer() and info.min <= value <= info.max:
            return dtype.type(int(value))
    raise StoreError(f"{key}: fill_value {value!r} is not a {dtype if dtype.kind != 'O' else 'string'} value")


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise StoreError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _nonneg_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StoreError(f"{where}: expected a non-negative integer, got {value!r}")
    return value


def decode_chunk(info: ArrayInfo, data: bytes, where: str) -> np.ndarray:
    """Decode one stored chunk to its chunk shape, never allocating more than the shape holds."""
    expected = info.chunk_nbytes
    try:
        raw = _decompress(info.codec, data, expected, info.dtype)
    except StoreError:
        raise
    except Exception as exc:  # codec libraries raise their own types for corrupt input
        raise StoreError(f"{where}: chunk does not decode ({type(exc).__name__}: {exc})") from None
    if len(raw) != expected:
        raise StoreError(f"{where}: chunk decodes to {len(raw)} bytes, expected {expected} for shape {list(info.chunk_shape)}")
    return np.frombuffer(raw, dtype=info.dtype.newbyteorder("<")).reshape(info.chunk_shape)


def _decompress(codec: CodecSpec | None, data: bytes, expected: int, dtype: np.dtype) -> bytes | memoryview:
    if codec is None:
        return data
    if codec.name == "gzip":
        inflater = zlib.decompressobj(wbits=47)
        out = inflater.decompress(data, expected + 1)
        if len(out) > expected:
            raise StoreError(f"chunk inflates to more than {expected} bytes")
        return out
    if codec.name == "blosc":
        _check_blosc_header(data, expected)
    elif codec.name == "zstd":
        declared = _zstd_content_size(data)
        if declared is None:  # a streamed frame: numcodecs decodes it into a buffer of its own
            return bytes(codec.compressor(dtype).decode(data))
        if declared != expected:
            raise StoreError(f"zstd frame holds {declared} bytes, expected {expected}")
    out = np.empty(expected, dtype=np.uint8)
    codec.compressor(dtype).decode(data, out=out)
    return out.data


def _zstd_content_size(data: bytes) -> int | None:
    """The content size a zstd frame header declares, None when the frame does not say.

    numcodecs decodes a frame into a larger buffer without complaint and ignores the buffer for
    a frame without a size, so the size is checked here before decoding (RFC 8878, 3.1.1.1).
    """
    if len(data) < 5 or data[:4] != b"\x28\xb5\x2f\xfd":
        raise StoreError("chunk is not a zstd frame (bad magic number)")
    descriptor = data[4]
    single_segment = bool(descriptor & 0x20)
    size_bytes = (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
    if size_bytes == 0:
        return None
    start = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 0x03]
    if len(data) < start + size_bytes:
        raise StoreError("zstd frame header is truncated")
    size = int.from_bytes(data[start : start + size_bytes], "little")
    return size + 256 if size_bytes == 2 else size


def _check_blosc_header(data: bytes, expected: int) -> None:
    """Sizes from the 16-byte blosc header must match: blosc decompresses a truncated chunk
    without complaint, reading past the bytes it was given, so the check is ours."""
    if len(data) < 16:
        raise StoreError(f"blosc chunk of {len(data)} bytes is shorter than its 16-byte header")
    nbytes = int.from_bytes(data[4:8], "little")
    if nbytes != expected:
        raise StoreError(f"blosc header says {nbytes} bytes, expected {expected}")
    cbytes = int.from_bytes(data[12:16], "little")
    if cbytes != len(data):
        raise StoreError(f"blosc chunk is {len(data)} bytes but its header says {cbytes}: the object is truncated or damaged")


def fill_chunk(info: ArrayInfo) -> np.ndarray:
    """A chunk of fill_value, for a chunk or shard that is not stored."""
    return np.full(info.chunk_shape, info.fill_value, dtype=info.dtype)


def parse_shard_index(info: ArrayInfo, raw: bytes, shard_length: int | None, where: str) -> np.ndarray:
    """(chunks_per_shard, 2) offsets and lengths after checking crc32c and bounds (spec 7.2)."""
    n = info.chunks_per_shard
    if len(raw) != info.index_nbytes:
        raise StoreError(f"{where}: shard index is {len(raw)} bytes, expected {info.index_nbytes}")
    body, checksum = raw[:-4], int.from_bytes(raw[-4:], "little")
    if int(google_crc32c.value(body)) != checksum:
        raise StoreError(
            f"{where}: shard index checksum mismatch (a corrupt shard, or a shard length from an outdated "
            "root zarr.json: reopen the store)"
        )
    index = np.frombuffer(body, dtype="<u8").reshape(n, 2)
    if shard_length is not None:
        data_start = 0 if info.index_at_end else info.index_nbytes
        data_end = shard_length - info.index_nbytes if info.index_at_end else shard_length
        present = ~((index[:, 0] == EMPTY) & (index[:, 1] == EMPTY))
        offsets = index[present, 0].astype(object)
        lengths = index[present, 1].astype(object)
        if any(o < data_start or o + l > data_end for o, l in zip(offsets, lengths)):
            raise StoreError(f"{where}: shard index points outside the shard's data")
    return index


def decode_strings(info: ArrayInfo, data: bytes, where: str) -> np.ndarray:
    """Decode a vlen-utf8 coordinate chunk (band names)."""
    import numcodecs

    try:
        raw = info.codec.compressor(np.dtype("u1")).decode(data) if info.codec else data
        return np.asarray(numcodecs.VLenUTF8().decode(bytes(raw)), dtype=object)
    except Exception as exc:  # codec libraries raise their own types for corrupt input
        raise StoreError(f"{where}: string chunk does not decode ({type(exc).__name__}: {exc})") from None
