"""The array `zarr.json` document (spec 2, 7, 8) as one model: the writer builds it and writes
`to_json()`, the reader, validator and doctor read it with `from_json()`.

`from_json` trusts nothing a store says: unsupported codecs, dtypes, grids and key encodings are
refused by name with a StoreError naming the document, shapes are bounded so no chunk or array
can ask for more memory than an address space holds, and malformed JSON of any shape gives a
StoreError, never another exception.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import StoreError
from .codecs import CodecSpec, bytes_codec
from .shard_index import index_nbytes

READ_DTYPES = ("uint8", "uint16", "int16", "float32", "int64", "float64", "int32")
MAX_ARRAY_BYTES = 2**63 - 1  # numpy's largest array, and a 64-bit address space
MAX_STRING_BYTES = 2**16  # the longest string a coordinate (a band name) may hold, in UTF-8 bytes
SHARDING = "sharding_indexed"
INDEX_CODECS = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
INDEX_CODEC_NAMES = ["bytes", "crc32c"]
KEY_SEPARATOR = "/"


def object_key(array_path: str, indices: Iterable[int | str]) -> str:
    """Key of the chunk or shard at grid `indices` of an array: the default Zarr v3 key encoding
    with "/" (spec 2.1), `{array}/c/{i}/{j}/...`."""
    return f"{array_path}/c/" + "/".join(map(str, indices))


def json_fill(fill: float | int | str, dtype: np.dtype | str) -> Any:
    """The fill value as the JSON number (or string) Zarr v3 expects for the dtype."""
    if str(dtype) == "string":
        return str(fill)
    kind = np.dtype(dtype).kind
    return float(fill) if kind == "f" else int(fill)


@dataclass(frozen=True)
class Sharding:
    """The `sharding_indexed` codec: the inner chunk shape and where the shard index sits; its
    index codecs are always INDEX_CODECS (bytes little-endian, then crc32c)."""

    chunk_shape: tuple[int, ...]
    index_location: str = "end"


@dataclass(frozen=True)
class ArrayDocument:
    """One array's `zarr.json`. `grid_shape` is the chunk grid's chunk shape (the shard shape when
    sharded); `codec` is the compressor after `bytes` (or `vlen-utf8`), inside the shards when
    sharded; `fill_value` is kept as the document's JSON value, `fill` is it as a scalar."""

    path: str
    shape: tuple[int, ...]
    data_type: str
    grid_shape: tuple[int, ...]
    fill_value: Any
    codec: CodecSpec | None
    sharding: Sharding | None
    dimension_names: tuple[str | None, ...] | None  # Zarr v3 allows a null name
    attributes: Mapping[str, Any] = field(compare=False)

    @classmethod
    def create(
        cls,
        *,
        shape: Sequence[int],
        dtype: str,
        chunk_shape: Sequence[int],
        codec: CodecSpec,
        dimension_names: Sequence[str],
        fill_value: float | int | str = 0,
        attributes: Mapping[str, Any] | None = None,
        shard_shape: Sequence[int] | None = None,
        path: str = "",
    ) -> ArrayDocument:
        """A document as the writer makes it; with shard_shape the chunks sit inside shards."""
        inner = tuple(int(s) for s in chunk_shape)
        return cls(
            path=path,
            shape=tuple(int(s) for s in shape),
            data_type=dtype,
            grid_shape=inner if shard_shape is None else tuple(int(s) for s in shard_shape),
            fill_value=json_fill(fill_value, dtype),
            codec=codec,
            sharding=None if shard_shape is None else Sharding(inner),
            dimension_names=tuple(dimension_names),
            attributes={"_ARRAY_DIMENSIONS": list(dimension_names), **(attributes or {})},
        )

    def to_json(self) -> dict[str, Any]:
        """The document as written: the same dict, key order included, for the same model."""
        if self.data_type == "string":
            codecs: list[dict[str, Any]] = [{"name": "vlen-utf8", "configuration": {}}]
            body = np.dtype("u1")
        else:
            codecs, body = [bytes_codec(np.dtype(self.data_type))], np.dtype(self.data_type)
        if self.codec is not None:
            codecs.extend(self.codec.chain_json(body))
        if self.sharding is not None:
            config = {
                "chunk_shape": list(self.sharding.chunk_shape),
                "codecs": codecs,
                "index_codecs": INDEX_CODECS,
                "index_location": self.sharding.index_location,
            }
            codecs = [{"name": SHARDING, "configuration": config}]
        return {
            "zarr_format": 3,
            "node_type": "array",
            "shape": list(self.shape),
            "data_type": self.data_type,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(self.grid_shape)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": KEY_SEPARATOR}},
            "fill_value": self.fill_value,
            "codecs": codecs,
            "dimension_names": None if self.dimension_names is None else list(self.dimension_names),
            "attributes": dict(self.attributes),
        }

    @classmethod
    def from_json(cls, path: str, doc: Any) -> ArrayDocument:
        """Parse the array document at `path`; StoreError naming what is unsupported or malformed."""
        try:
            return _parse(path, doc)
        except StoreError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
            raise StoreError(f"{path}/zarr.json is not a valid Zarr v3 array document ({type(exc).__name__}: {exc})") from None

    def with_shape(self, shape: Sequence[int], grid_shape: Sequence[int] | None = None) -> ArrayDocument:
        """The same array with a new shape (and, when given, a new chunk grid shape): how append
        grows the time axis. The result is checked as `from_json` checks a document read."""
        grid = self.grid_shape if grid_shape is None else tuple(int(s) for s in grid_shape)
        grown = replace(self, shape=tuple(int(s) for s in shape), grid_shape=grid)
        return ArrayDocument.from_json(self.path, grown.to_json())

    @functools.cached_property
    def dtype(self) -> np.dtype:
        """numpy's dtype of the values (object for strings)."""
        return np.dtype(object) if self.data_type == "string" else np.dtype(self.data_type)

    @functools.cached_property
    def fill(self) -> Any:
        """The fill value as a scalar of the dtype (a str for strings): what a missing chunk holds."""
        return _fill_value(self.path, self.fill_value, self.dtype)

    @property
    def chunk_shape(self) -> tuple[int, ...]:
        """The shape of one decoded chunk (the inner chunk when sharded)."""
        return self.grid_shape if self.sharding is None else self.sharding.chunk_shape

    @property
    def shard_shape(self) -> tuple[int, ...] | None:
        return None if self.sharding is None else self.grid_shape

    @property
    def sharded(self) -> bool:
        return self.sharding is not None

    @property
    def index_at_end(self) -> bool:
        return self.sharding is None or self.sharding.index_location == "end"

    @property
    def chunks_per_shard(self) -> int:
        assert self.sharding is not None
        return math.prod(s // c for s, c in zip(self.grid_shape, self.sharding.chunk_shape, strict=False))

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

    def key_holding(self, element: Sequence[int]) -> str:
        """Key of the object (chunk, or shard when sharded) holding the element at index `element`."""
        return object_key(self.path, [i // s for i, s in zip(element, self.grid_shape, strict=False)])

def declares_sharding(doc: Any) -> bool:
    """Whether an array zarr.json, parsed from a store nobody vouches for, lists the sharding codec;
    a document or codec list of another type declares nothing."""
    codecs = doc.get("codecs") if isinstance(doc, Mapping) else None
    return isinstance(codecs, list) and any(isinstance(c, Mapping) and c.get("name") == SHARDING for c in codecs)


def time_objects(doc: Any) -> tuple[int, int, bool] | None:
    """(timesteps, timesteps per object, sharded): what the model's `shape[0]`, `grid_shape[0]` and
    `sharded` say, read from those fields alone, so that a document `from_json` refuses (a foreign
    dtype, a partial copy) still tells a host how its timesteps map to objects; None when a field
    is missing or of another type."""
    if not isinstance(doc, Mapping):
        return None
    try:
        n_time = int(doc["shape"][0])
        per_object = int(doc["chunk_grid"]["configuration"]["chunk_shape"][0])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return n_time, per_object, declares_sharding(doc)


def _parse(path: str, doc: Any) -> ArrayDocument:
    if not isinstance(doc, Mapping) or doc.get("zarr_format") != 3 or doc.get("node_type") != "array":
        raise StoreError(f"{path}/zarr.json is not a Zarr v3 array")
    dtype_name = doc["data_type"]
    if dtype_name != "string" and dtype_name not in READ_DTYPES:
        raise StoreError(f"{path}: unsupported data_type {dtype_name!r} (chronozarr data is uint8, uint16, int16 or float32)")
    dtype = np.dtype(object) if dtype_name == "string" else np.dtype(dtype_name)
    shape = tuple(_nonneg_int(v, f"{path} shape") for v in doc["shape"])
    if doc.get("storage_transformers"):
        raise StoreError(f"{path}: storage_transformers {doc['storage_transformers']!r} are not supported")
    grid = doc["chunk_grid"]
    if grid.get("name") != "regular":
        raise StoreError(f"{path}: unsupported chunk grid {grid.get('name')!r}")
    outer = tuple(_positive_int(v, f"{path} chunk_shape") for v in grid["configuration"]["chunk_shape"])
    encoding = doc.get("chunk_key_encoding", {"name": "default"})
    separator = (encoding.get("configuration") or {}).get("separator", "/")
    if encoding.get("name") != "default" or separator != KEY_SEPARATOR:
        raise StoreError(f"{path}: unsupported chunk_key_encoding {encoding!r}; chronozarr uses default with '/'")
    if len(outer) != len(shape):
        raise StoreError(f"{path}: chunk_shape {list(outer)} does not match shape {list(shape)}")
    codecs = list(doc["codecs"])
    sharding = None
    if codecs and codecs[0].get("name") == SHARDING:
        sharding, codecs = _parse_sharding(path, codecs, outer)
    codec = _parse_codecs(path, codecs, dtype)
    item = max(dtype.itemsize, 1)
    chunk_shape = outer if sharding is None else sharding.chunk_shape
    if math.prod(chunk_shape) * item > 2**31:
        raise StoreError(f"{path}: a chunk of shape {list(chunk_shape)} would exceed 2 GiB")
    if math.prod(shape) * item > MAX_ARRAY_BYTES:
        raise StoreError(
            f"{path}: shape {list(shape)} holds {math.prod(shape) * item} bytes, more than a reader can address "
            "(2^63): it cannot be read; the array document is damaged"
        )
    dims = doc.get("dimension_names")
    if dims is not None and (not isinstance(dims, list) or not all(d is None or isinstance(d, str) for d in dims)):
        raise StoreError(f"{path}: dimension_names must be a list of names (or nulls), got {dims!r}")
    fill = doc.get("fill_value", 0)
    _fill_value(path, fill, dtype)
    return ArrayDocument(
        path=path,
        shape=shape,
        data_type=dtype_name,
        grid_shape=outer,
        fill_value=fill,
        codec=codec,
        sharding=sharding,
        dimension_names=tuple(dims) if dims is not None else None,
        attributes=doc.get("attributes") or {},
    )


def _parse_sharding(path: str, codecs: list[Any], outer: tuple[int, ...]) -> tuple[Sharding, list[Any]]:
    """The sharding codec, and the codecs of the chunks inside the shards."""
    if len(codecs) != 1:
        raise StoreError(f"{path}: codecs after {SHARDING} are not supported")
    config = codecs[0]["configuration"]
    inner = tuple(_positive_int(v, f"{path} inner chunk_shape") for v in config["chunk_shape"])
    if len(inner) != len(outer) or any(o % i for o, i in zip(outer, inner, strict=False)):
        raise StoreError(f"{path}: inner chunk_shape {list(inner)} does not divide the shard shape {list(outer)}")
    index_codecs = [c.get("name") for c in config.get("index_codecs", [])]
    if index_codecs != INDEX_CODEC_NAMES:
        raise StoreError(f"{path}: unsupported shard index codecs {index_codecs}; expected bytes then crc32c")
    location = config.get("index_location", "end")
    if location not in ("start", "end"):
        raise StoreError(f"{path}: unsupported index_location {location!r}")
    return Sharding(inner, location), list(config["codecs"])


def _parse_codecs(path: str, codecs: list[Mapping[str, Any]], dtype: np.dtype) -> CodecSpec | None:
    names = [c.get("name") for c in codecs]
    if dtype.kind == "O":
        if not names or names[0] != "vlen-utf8" or len(names) > 2:
            raise StoreError(f"{path}: unsupported codecs {names} for a string array")
    else:
        if not names or names[0] != "bytes":
            raise StoreError(f"{path}: unsupported codecs {names}; chronozarr arrays start with bytes")
        endian = (codecs[0].get("configuration") or {}).get("endian", "little")
        if endian != "little" and dtype.itemsize > 1:
            raise StoreError(f"{path}: big-endian bytes codec is not supported")
    rest = codecs[1:]
    if not rest:
        return None
    try:
        return CodecSpec.from_chain([dict(entry) for entry in rest])
    except ValueError as exc:
        raise StoreError(f"{path}: {exc}") from None


def _fill_value(path: str, value: Any, dtype: np.dtype) -> Any:
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
    raise StoreError(f"{path}: fill_value {value!r} is not a {dtype if dtype.kind != 'O' else 'string'} value")


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise StoreError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _nonneg_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StoreError(f"{where}: expected a non-negative integer, got {value!r}")
    return value
