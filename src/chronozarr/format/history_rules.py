"""The rules a level's history arrays must meet against the level they copy
(docs/format-history.md, "The declaration" and "Validation"): shapes, dtype, fill value and shard
layout of each array's document. The reader uses a level's history only when this list is empty.
"""

from __future__ import annotations

from typing import Any

from .array_doc import ArrayDocument
from .history import HistoryLayout, HistoryPart


def level_problems(
    layout: HistoryLayout, data: ArrayDocument, array: ArrayDocument, mask: ArrayDocument | None, mask_array: ArrayDocument | None
) -> list[tuple[str, str]]:
    """One level's declaration and history documents against that level's
    data and mask arrays; fields of a coarser level k are prefixed `levels.{k}.`."""
    out: list[tuple[str, str]] = []
    cs = data.chunk_shape[-1]
    own = f"level {layout.level}"
    if layout.n_band != data.shape[1]:
        out.append(("chunk_shape", f"declares {layout.n_band} bands, {own} has {data.shape[1]}"))
    if layout.shard % cs or cs % layout.inner:
        out.append(("shard_shape", f"S = {layout.shard} must be a multiple of {own}'s chunk size {cs}, which p = {layout.inner} must divide"))
    out += _array_problems(layout.data, data, array, "path")
    copy = layout.mask
    if copy is not None:
        if mask is None:
            out.append(("mask_path", "declares a mask copy but the store has no mask"))
        elif mask_array is None:
            out.append(("mask_path", f"the mask copy {copy.path!r} has no usable array document"))
        else:
            out += [("mask_path", rule) for _, rule in _array_problems(copy, mask, mask_array, "mask_path")]
    return out if layout.level == 0 else [(f"levels.{layout.level}.{name}", rule) for name, rule in out]


def _array_problems(part: HistoryPart, copied: ArrayDocument, array: ArrayDocument, dtype_field: str) -> list[tuple[str, str]]:
    """One history array's document against the level's array it copies and the declaration."""
    out: list[tuple[str, str]] = []
    name_of = f"the {part.path} array's"
    own = f"level {part.level}"
    for name, found, expected in (
        ("shape", tuple(array.shape), tuple(copied.shape)),
        ("chunk_shape", tuple(array.chunk_shape), part.chunk_shape),
        ("shard_shape", tuple(array.shard_shape or ()), part.shard_shape),
    ):
        if found != expected:
            where = f"{own}'s shape" if name == "shape" else "the declaration's"
            out.append((name, f"{name_of} {name} {list(found)} is not {where} {list(expected)}"))
    if array.data_type != copied.data_type or not same_value(array.fill, copied.fill):
        mine, theirs = f"{array.data_type} with fill {array.fill!r}", f"{copied.data_type} with fill {copied.fill!r}"
        out.append((dtype_field, f"the {part.path} array is {mine}; {own} is {theirs}"))
    if not array.index_at_end:
        out.append(("shard_shape", f"{name_of} shard index must be at the end"))
    return out


def same_value(a: Any, b: Any) -> bool:
    """Equal fill values, NaN equal to NaN."""
    return bool(a == b) or (a != a and b != b)
