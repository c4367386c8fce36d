"""Which observations of a composite count: a mask asset's classes kept (`--valid scl:4,5,6,7,11`)
or its quality bits refused (`--mask-bits qa_pixel:cloud,shadow`), read as the user writes them.

The bit names are Landsat Collection 2 QA_PIXEL's: an observation is invalid where any named bit
is set. Classes and bits are judged on the mask's stored integers, never rescaled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

QA_BITS = {"fill": 0, "dilated": 1, "cirrus": 2, "cloud": 3, "shadow": 4, "snow": 5, "clear": 6, "water": 7}
_RULE_NOTE = re.compile(r"^\S+ (classes [\d,]+ kept|bits [a-z,]+ refused \(invalid where any is set\))$")


@dataclass(frozen=True)
class MaskRule:
    """One mask asset's rule: `classes` kept, or `bits` refused (exactly one of them is set)."""

    asset: str
    classes: tuple[int, ...] = ()
    bits: tuple[int, ...] = ()

    def allows(self, values: np.ndarray) -> np.ndarray:
        """Where the observation passes this mask (bool, the shape of `values`)."""
        if self.classes:
            return np.isin(values, np.asarray(self.classes))
        refused = sum(1 << bit for bit in self.bits)
        return (values.astype(np.int64) & refused) == 0

    @property
    def note(self) -> str:
        """What provenance and the summary say of it."""
        if self.classes:
            return f"{self.asset} classes {','.join(str(c) for c in self.classes)} kept"
        names = [n for n, b in QA_BITS.items() if b in self.bits]
        return f"{self.asset} bits {','.join(names)} refused (invalid where any is set)"


def rule_notes(notes: str) -> tuple[str, ...]:
    """The notes of mask rules (MaskRule.note) among a store's provenance notes ("; "-joined)."""
    return tuple(n for n in notes.split("; ") if _RULE_NOTE.match(n))


def _split(text: str, option: str, example: str) -> tuple[str, list[str]]:
    asset, sep, rest = text.partition(":")
    items = [part.strip() for part in rest.split(",") if part.strip()]
    if not sep or not asset.strip() or not items:
        raise InputError(f"{option} {text!r}: write the mask asset's key, a colon and the list, e.g. {option} {example}")
    return asset.strip(), items


def parse_valid(text: str) -> MaskRule:
    """`ASSET:V1,V2,...`: the classes of the mask asset that are kept."""
    asset, items = _split(text, "--valid", "scl:4,5,6,7,11")
    try:
        classes = tuple(sorted({int(item) for item in items}))
    except ValueError:
        raise InputError(f"--valid {text!r}: the classes must be integers, e.g. --valid scl:4,5,6,7,11") from None
    return MaskRule(asset, classes=classes)


def parse_mask_bits(text: str) -> MaskRule:
    """`ASSET:NAME,...` with QA_PIXEL bit names: an observation is invalid where any is set."""
    asset, items = _split(text, "--mask-bits", "qa_pixel:fill,dilated,cirrus,cloud,shadow,snow")
    unknown = [item for item in items if item.lower() not in QA_BITS]
    if unknown:
        raise InputError(f"--mask-bits {text!r}: {unknown[0]!r} is no QA_PIXEL bit; the names are {', '.join(QA_BITS)}")
    return MaskRule(asset, bits=tuple(sorted({QA_BITS[item.lower()] for item in items})))


def mask_rules(valid: Sequence[str] = (), mask_bits: Sequence[str] = ()) -> tuple[MaskRule, ...]:
    """Every rule given, one per mask asset."""
    rules = [parse_valid(v) for v in valid] + [parse_mask_bits(b) for b in mask_bits]
    assets = [r.asset for r in rules]
    twice = sorted({a for a in assets if assets.count(a) > 1})
    if twice:
        raise InputError(f"the mask asset {twice[0]!r} has two rules; give one --valid or --mask-bits per asset")
    return tuple(rules)
