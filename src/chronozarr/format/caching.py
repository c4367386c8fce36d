"""Which objects of a store change in place, and so how long a host may cache each (spec 9 and 14).

A store is immutable except for what an append rewrites: every `zarr.json`, the time axis of each
level (`{level}/time/c/0`), the volatility chunk, and for each sharded time-dependent array the
shard holding the last timestep. Everything else is written once. The local server (`serve`) and
the uploader (`publish`) both ask this module, so they always agree on an object's class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import SettingError
from .array_doc import time_objects

ROOT = "root"  # the root zarr.json: the marker that a store exists, uploaded last
METADATA = "metadata"  # any other zarr.json
REWRITTEN = "rewritten"  # time/c/0 and volatility: rewritten whole by an append
TRAILING = "trailing"  # the shard holding a cell's last timestep: an append makes it longer
IMMUTABLE = "immutable"  # every other chunk or shard: new timesteps are new keys
CLASSES = (ROOT, METADATA, REWRITTEN, TRAILING, IMMUTABLE)
SHORT_LIVED = frozenset({ROOT, METADATA, REWRITTEN, TRAILING})

IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable"
SHORT_TTL_SECONDS = 300  # the hosting guide's lifetime for objects an append rewrites


def short_cache_control(seconds: int = SHORT_TTL_SECONDS) -> str:
    if int(seconds) < 0:
        raise SettingError(f"a cache lifetime must be >= 0 seconds, got {seconds!r}")
    return f"public, max-age={int(seconds)}"


def cache_control(object_class: str, short_ttl: int = SHORT_TTL_SECONDS) -> str:
    """The Cache-Control header an object of `object_class` is published with."""
    if object_class not in CLASSES:
        raise SettingError(f"object class must be one of {CLASSES}, got {object_class!r}")
    return short_cache_control(short_ttl) if object_class in SHORT_LIVED else IMMUTABLE_CACHE_CONTROL


def chronozarr_block(root_doc: Any) -> Mapping[str, Any] | None:
    """The `chronozarr` attribute of a root zarr.json document, or None when it is not one."""
    attrs = root_doc.get("attributes") if isinstance(root_doc, Mapping) else None
    block = attrs.get("chronozarr") if isinstance(attrs, Mapping) else None
    return block if isinstance(block, Mapping) else None


def object_class(
    key: str | Sequence[str],
    block: Mapping[str, Any] | None,
    array_doc: Callable[[str], Any],
) -> str:
    """The class of the object at `key` (relative to the store root) in the store's current state.

    `block` is the root's chronozarr attribute; `array_doc(path)` returns the parsed zarr.json of
    the array at `path` (for example "0/data"), or None. A sharded array's trailing shard is
    judged by the array's current shape, so classify after the append, not before.
    """
    parts = [p for p in (key.split("/") if isinstance(key, str) else list(key)) if p]
    if not parts:
        raise SettingError("an object key must not be empty")
    if parts[-1] == "zarr.json":
        return ROOT if len(parts) == 1 else METADATA
    block = block or {}
    volatility = [p for p in str(block.get("volatility_path") or "volatility").split("/") if p]
    if parts[-3:] == ["time", "c", "0"] or parts in (volatility + ["c", "0", "0"], ["volatility", "c", "0", "0"]):
        return REWRITTEN
    return TRAILING if _is_trailing_shard(parts, block, array_doc) else IMMUTABLE


def _is_trailing_shard(parts: list[str], block: Mapping[str, Any], array_doc: Callable[[str], Any]) -> bool:
    # A chunk or shard key is {array path}/c/{t}/...: every segment after the last "c" is an index.
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "c" and all(p.isascii() and p.isdigit() for p in parts[i + 1 :]):
            break
    else:
        return False
    # Read leniently (format/array_doc.time_objects), not through ArrayDocument.from_json: a document
    # the model refuses (a foreign dtype, a partial copy) must still mark its last shard short-lived,
    # or a host would keep a stale shard for a year after an append.
    meta = array_doc("/".join(parts[:i]))
    if not isinstance(meta, Mapping) or meta.get("node_type") != "array":
        return False
    # Only names count: a field of another type (a hostile or broken block) names no array here.
    time_variables = {v for k in ("variable", "mask_variable", "coverage_variable") if isinstance(v := block.get(k), str)}
    # A field of another type (a hostile or broken document) says nothing about time here.
    dims = meta.get("dimension_names")
    first = dims[0] if isinstance(dims, list) and dims else None
    if first != "time" and parts[i - 1] not in time_variables:
        return False
    along_time = time_objects(meta)
    if along_time is None:
        return False
    n_time, per_object, sharded = along_time
    # An object holding one timestep never gains another: new timesteps are new keys.
    if per_object < 1 or not (sharded or per_object > 1):
        return False
    return int(parts[i + 1]) == max(0, -(-n_time // per_object) - 1)
