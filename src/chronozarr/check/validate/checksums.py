"""The crc32c of every stored chunk of a checksummed array (the optional codec of format/checksum.py):
validate reads each chunk object of a store it can list once and names every chunk whose bytes do not
match, which no decoding can tell without it."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ...errors import StoreError
from ...format.array_doc import ArrayDocument
from ...format.checksum import verified
from ...format.geometry import key_indices
from ...format.shard_index import EMPTY
from ...read.decode import parse_shard_index
from ..context import Context
from ..objects import store_objects


def check_checksums(ctx: Context) -> None:
    """Every chunk of every checksummed array of a listable store matches its crc32c (8)."""
    if not ctx.source.listable:
        return
    arrays = {node: array for node, array in _parsed(ctx) if array.codec is not None and array.codec.checksum}
    if not arrays:
        return
    for key, _ in store_objects(ctx.source):
        found = key_indices(key)
        if found is None or found[0] not in arrays:
            continue
        raw = ctx.source.get(key)
        if raw is None:
            continue
        for where, chunk in _chunks(arrays[found[0]], key, raw):
            try:
                verified(chunk)
            except ValueError as exc:
                ctx.report.fail("8", where, str(exc))


def _parsed(ctx: Context) -> Iterator[tuple[str, ArrayDocument]]:
    for node, facts in ctx.arrays.items():
        if facts.parsed is not None:  # a refused document is reported by the array checks
            yield node, facts.parsed


def _chunks(array: ArrayDocument, key: str, raw: bytes) -> Iterator[tuple[str, bytes]]:
    """(where, stored bytes) of each chunk in the object: itself, or a shard's inner chunks (a
    shard whose index does not parse is reported by the shard checks)."""
    if not array.sharded:
        yield key, raw
        return
    n = array.index_nbytes
    try:
        index = parse_shard_index(array, raw[-n:] if array.index_at_end else raw[:n], len(raw), key)
    except StoreError:
        return
    for position, (offset, length) in enumerate(np.asarray(index, dtype=np.uint64).tolist()):
        if offset != EMPTY:
            yield f"{key} (inner chunk {position})", raw[offset : offset + length]
