"""Rules every array document obeys: Zarr v3 node, dimension names (2.2), key encoding (2.1),
chunking and sharding (2.1, 7.1, 7.2) and the codec chain (8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...format.array_doc import INDEX_CODEC_NAMES, KEY_SEPARATOR, SHARDING
from ...format.checksum import CRC32C
from ...format.codecs import BLOSC_CNAMES, BLOSC_SHUFFLES, CODEC_NAMES, CODECS
from ..context import ArrayFacts, Context, doc_key, int_list

Compressor = tuple[str, str] | None  # (name, canonical configuration without typesize)


def check_node(ctx: Context, node: str, doc: Any, dims: list[str] | None, section: str) -> bool:
    """Zarr v3 array node with the expected dimension names (any names when `dims` is None, as
    long as they are set); False when unusable."""
    key = doc_key(node)
    if not isinstance(doc, Mapping):
        ctx.report.fail(section, key, "is not a JSON object")
        return False
    if doc.get("zarr_format") != 3 or doc.get("node_type") != "array":
        ctx.report.fail(section, key, f"is not a Zarr v3 array (zarr_format {doc.get('zarr_format')!r}, node_type {doc.get('node_type')!r})")
        return False
    names = doc.get("dimension_names")
    attrs = doc.get("attributes")
    legacy = attrs.get("_ARRAY_DIMENSIONS") if isinstance(attrs, Mapping) else None
    if names is None:
        ctx.report.fail("2.2", key, "dimension_names is missing")
    elif dims is not None and names != dims:
        ctx.report.fail(section, key, f"dimension_names is {names}, expected {dims}")
    if legacy is None:
        ctx.report.fail("2.2", key, "attributes._ARRAY_DIMENSIONS is missing")
    elif names is not None and legacy != names:
        ctx.report.fail("2.2", key, f"attributes._ARRAY_DIMENSIONS {legacy} differs from dimension_names {names}")
    kenc = doc.get("chunk_key_encoding")
    sep = (kenc.get("configuration") or {}).get("separator", "/") if isinstance(kenc, Mapping) else None
    if not isinstance(kenc, Mapping) or kenc.get("name") != "default" or sep != KEY_SEPARATOR:
        ctx.report.fail("2.1", key, f"chunk_key_encoding must be default with separator '/', got {kenc!r}")
    return True


def layout(ctx: Context, node: str, doc: Mapping[str, Any], section: str) -> ArrayFacts | None:
    """Shape, outer and inner chunk shape of an array, registered for key and shard checks."""
    key = doc_key(node)
    shape = int_list(doc.get("shape"))
    if shape is None or any(s < 0 for s in shape):
        ctx.report.fail(section, key, f"shape must be a list of non-negative integers, got {doc.get('shape')!r}")
        return None
    grid = doc.get("chunk_grid")
    outer = None
    if isinstance(grid, Mapping) and grid.get("name") == "regular" and isinstance(grid.get("configuration"), Mapping):
        outer = int_list(grid["configuration"].get("chunk_shape"), len(shape))
    if outer is None or any(c < 1 for c in outer):
        ctx.report.fail(section, key, f"chunk_grid must be regular with a positive chunk_shape of rank {len(shape)}, got {grid!r}")
        return None
    codecs = doc.get("codecs")
    inner = None
    if isinstance(codecs, list) and codecs and isinstance(codecs[0], Mapping) and codecs[0].get("name") == SHARDING:
        config = codecs[0].get("configuration")
        inner = int_list(config.get("chunk_shape"), len(shape)) if isinstance(config, Mapping) else None
        if len(codecs) != 1:
            ctx.report.fail("7.1", key, "sharding_indexed must be the only codec of a sharded array")
        if inner is None or any(i < 1 or o % i for o, i in zip(outer, inner, strict=False)):
            ctx.report.fail("7.1", key, f"inner chunk_shape {inner} must be positive and divide the shard shape {outer}")
            return None
    facts = ArrayFacts(node, doc, tuple(shape), tuple(outer), tuple(inner) if inner else None)
    ctx.arrays[node] = facts
    return facts


def check_codecs(ctx: Context, node: str, doc: Mapping[str, Any], dtype: str | None, *, coordinate: bool = False) -> Compressor:
    """The codec chain (8), inside sharding_indexed when sharded (7.2); returns the compressor."""
    key = doc_key(node)
    codecs = doc.get("codecs")
    if not isinstance(codecs, list) or not codecs or not all(isinstance(c, Mapping) for c in codecs):
        ctx.report.fail("8", key, f"codecs must be a non-empty list of objects, got {codecs!r}")
        return None
    if codecs[0].get("name") == SHARDING:
        config = codecs[0].get("configuration") or {}
        _check_index(ctx, key, config)
        codecs = config.get("codecs")
        if not isinstance(codecs, list) or not codecs or not all(isinstance(c, Mapping) for c in codecs):
            ctx.report.fail("8", key, f"sharding_indexed codecs must be a non-empty list, got {codecs!r}")
            return None
    names = [c.get("name") for c in codecs]
    first = "vlen-utf8" if dtype == "string" else "bytes"
    if names[0] != first:
        ctx.report.fail("8", key, f"codecs {names} must start with {first}")
        return None
    if first == "bytes" and dtype is not None:
        endian = (codecs[0].get("configuration") or {}).get("endian")
        itemsize = np.dtype(dtype).itemsize if dtype in np.sctypeDict else 2
        if endian not in (("little", None) if itemsize == 1 else ("little",)):
            ctx.report.fail("8", key, f"bytes codec endian is {endian!r}; expected 'little'")
    rest = codecs[1:]
    if len(rest) == 2 and names[-1] == CRC32C:  # the optional checksum after the compressor (format/checksum.py)
        rest = rest[:1]
    if len(rest) != 1 and not (coordinate and not rest):
        ctx.report.fail("8", key, f"codecs {names}: exactly one compression codec (zstd, blosc or gzip) must follow {first}, then optionally crc32c")
        return None
    if not rest:
        return None
    return _compressor(ctx, key, rest[0], dtype)


def _compressor(ctx: Context, key: str, entry: Mapping[str, Any], dtype: str | None) -> Compressor:
    name = entry.get("name")
    config = entry.get("configuration") or {}
    if name not in CODEC_NAMES or not isinstance(config, Mapping):
        ctx.report.fail("8", key, f"codec {name!r} is not allowed: use {' or '.join(CODEC_NAMES)}")
        return None
    problem = CODECS[name].level_problem(name, config.get(CODECS[name].level_key))
    if problem is not None:
        ctx.report.fail("8", key, problem)
    if name == "blosc":
        if config.get("cname") not in BLOSC_CNAMES:
            ctx.report.fail("8", key, f"blosc cname {config.get('cname')!r} is not allowed: use zstd or lz4")
        if config.get("shuffle") not in BLOSC_SHUFFLES:
            ctx.report.fail("8", key, f"blosc shuffle {config.get('shuffle')!r} is not allowed: use noshuffle or shuffle")
        if dtype in np.sctypeDict and config.get("typesize") != np.dtype(dtype).itemsize:
            ctx.report.warn("8", key, f"blosc typesize {config.get('typesize')!r} is not the {dtype} element size {np.dtype(dtype).itemsize}")
    same = {k: v for k, v in config.items() if k != "typesize"}
    return (name, repr(sorted(same.items())))


def _check_index(ctx: Context, key: str, config: Mapping[str, Any]) -> None:
    index = config.get("index_codecs")
    names = [c.get("name") for c in index] if isinstance(index, list) and all(isinstance(c, Mapping) for c in index) else None
    if names != INDEX_CODEC_NAMES:
        ctx.report.fail("7.2", key, f"index_codecs must be bytes (little-endian) then crc32c, got {index!r}")
    elif isinstance(index, list) and (index[0].get("configuration") or {}).get("endian", "little") != "little":
        ctx.report.fail("7.2", key, "the shard index bytes codec must be little-endian")
    location = config.get("index_location", "end")
    if location not in ("start", "end"):
        ctx.report.fail("7.2", key, f"index_location must be 'end' or 'start', got {location!r}")
    elif location == "start":
        ctx.report.warn("7.2", key, "index_location 'start' breaks stock zarrita readers; writers SHOULD use 'end'")


def attributes(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    attrs = doc.get("attributes")
    return attrs if isinstance(attrs, Mapping) else {}
