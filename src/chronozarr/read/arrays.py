"""Array documents as the reader needs them, and bounded decoding of chunks and shard indexes.

Everything a store says is checked before it is trusted: unsupported codecs and dtypes are
refused by name, a chunk may not decode to more than its shape holds, and a shard index must
pass its crc32c and keep every chunk inside the shard.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import StoreError
from ..format.codecs import CodecSpec, copy_into
from ..format.shard_index import data_span, index_nbytes, parse_index

READ_DTYPES = ("uint8", "uint16", "int16", "float32", "int64", "float64", "int32")
MAX_ARRAY_BYTES = 2**63 - 1  # numpy's largest array, and a 64-bit address space
MAX_STRING_BYTES = 2**16  # the longest string a coordinate (a band name) may hold, in UTF-8 bytes


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
        return math.prod(s // c for s, c in zip(self.shard_shape, self.chunk_shape, strict=False))

    @property
    def index_nbytes(self) -> int:
        return index_nbytes(self.chunks_per_shard)

    @property
    def chunk_nbytes(self) -> int:
        return math.prod(self.chunk_shape) * self.dtype.itemsize

    @property
    def chunk_bound(self) -> int:
        """The most bytes one chunk may decode to, the one bound every chunk read is held to: its
        shape's bytes, or for strings (vlen-utf8) a count and each string's length and bytes."""
        if self.dtype.kind == "O":
            return 4 + math.prod(self.chunk_shape) * (4 + MAX_STRING_BYTES)
        return self.chunk_nbytes


def parse_array(key: str, doc: Any) -> ArrayInfo:
    """Parse an array zarr.json; raises StoreError naming what is unsupported or malformed."""
    try:
        return _parse_array(key, doc)
    except StoreError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
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
        if len(chunk_shape) != len(outer) or any(o % i for o, i in zip(outer, chunk_shape, strict=False)):
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
    if math.prod(shape) * item > MAX_ARRAY_BYTES:
        raise StoreError(
            f"{key}: shape {list(shape)} holds {math.prod(shape) * item} bytes, more than a reader can address "
            "(2^63): it cannot be read; the array document is damaged"
        )
    dims = doc.get("dimension_names")
    if dims is not None and (not isinstance(dims, list) or not all(d is None or isinstance(d, str) for d in dims)):
        raise StoreError(f"{key}: dimension_names must be a list of names (or nulls), got {dims!r}")
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
    if not rest:
        return None
    try:
        return CodecSpec.from_chain([dict(entry) for entry in rest])
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


def decode_chunk(info: ArrayInfo, data: bytes | memoryview, where: str, out: np.ndarray | None = None) -> np.ndarray:
    """Decode one stored chunk to its chunk shape, never allocating more than the shape holds.

    With `out` (a uint8 array of at least the chunk's bytes) the chunk is decoded into it and the
    result is a view of it, valid until `out` is reused."""
    expected = info.chunk_bound
    if info.codec is None:
        raw: bytes | memoryview = data if out is None or len(data) != expected else copy_into(data, out)
    else:
        try:
            raw = info.codec.decode(data, expected, info.dtype, out)
        except ValueError as exc:
            raise StoreError(f"{where}: {exc}") from None
        except Exception as exc:  # codec libraries raise their own types for corrupt input
            raise StoreError(f"{where}: chunk does not decode ({type(exc).__name__}: {exc})") from None
    if len(raw) != expected:
        raise StoreError(f"{where}: chunk decodes to {len(raw)} bytes, expected {expected} for shape {list(info.chunk_shape)}")
    return np.frombuffer(raw, dtype=info.dtype.newbyteorder("<")).reshape(info.chunk_shape)


def fill_chunk(info: ArrayInfo) -> np.ndarray:
    """A chunk of fill_value, for a chunk or shard that is not stored."""
    return np.full(info.chunk_shape, info.fill_value, dtype=info.dtype)


def parse_shard_index(info: ArrayInfo, raw: bytes, shard_length: int | None, where: str) -> np.ndarray:
    """(chunks_per_shard, 2) offsets and lengths after the checks of spec 7.2 (format.shard_index)."""
    span = data_span(info.chunks_per_shard, info.index_at_end, shard_length)
    try:
        return parse_index(raw, info.chunks_per_shard, span)
    except ValueError as exc:
        raise StoreError(f"{where}: {exc}; the shard is damaged: re-encode or re-upload it") from None


def decode_strings(info: ArrayInfo, data: bytes, where: str) -> np.ndarray:
    """Decode a vlen-utf8 coordinate chunk (band names), within the array's chunk_bound and without
    copying the decoded bytes."""
    import numcodecs

    bound = info.chunk_bound
    try:
        if info.codec is not None:
            raw: bytes | memoryview = info.codec.decode_at_most(data, bound)
        elif len(data) > bound:
            raise ValueError(f"chunk of {len(data)} bytes is more than the {bound} its {math.prod(info.chunk_shape)} strings can hold")
        else:
            raw = data
    except ValueError as exc:
        raise StoreError(f"{where}: {exc}") from None
    # numcodecs allocates one object per string the header counts before it reads any: a header
    # must count no more strings than the chunk holds and fit their lengths in the bytes given.
    count = int.from_bytes(bytes(raw[:4]), "little") if len(raw) >= 4 else -1
    if not 0 <= count <= math.prod(info.chunk_shape) or 4 + 4 * count > len(raw):
        raise StoreError(f"{where}: string chunk header counts {count} strings; the chunk holds {math.prod(info.chunk_shape)} in {len(raw)} bytes")
    try:
        return np.asarray(numcodecs.VLenUTF8().decode(raw), dtype=object)
    except Exception as exc:  # codec libraries raise their own types for corrupt input
        raise StoreError(f"{where}: string chunk does not decode ({type(exc).__name__}: {exc})") from None
