"""An area's statistics per timestep: the quantities asked for (bands, or the viewer's products
NDVI, NDWI and Water computed per pixel first) over the valid pixels (spec 2.3), in physical
units (stored * scale + offset, spec 3.6). js/src/reader/region-stats.js is its mirror.

Pieces (the part of one cell's chunk inside the area, a few timesteps at once) are summarised as
(count, sum, M2, min, max) and merged in read order with Chan's pairwise rule, so memory is one
piece whatever the area, and the two languages add the same pieces in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .metadata import Band

# The viewer's products (js/lib/products.js): band roles found by common_name, then by name.
PRODUCTS: dict[str, tuple[str, str]] = {"ndvi": ("nir", "red"), "ndwi": ("green", "nir"), "water": ("green", "nir")}
WATER_THRESHOLD = 0.0  # NDWI above it is water (js/lib/ramps.js WATER.threshold)
STATISTICS = ("mean", "std", "min", "max")


@dataclass(frozen=True)
class Quantity:
    """One output of a series: a band (`product` None, `inputs` its index) or a product of two bands."""

    name: str
    inputs: tuple[int, ...]
    product: str | None = None


def find_band(bands: Sequence[Band], role: str) -> int:
    """Index of the band playing `role`: the first whose common_name is it, else whose name is it; -1 if none."""
    low = role.lower()
    for i, b in enumerate(bands):
        if (b.common_name or "").lower() == low:
            return i
    return next((i for i, b in enumerate(bands) if b.name.lower() == low), -1)


def available_products(bands: Sequence[Band]) -> list[str]:
    return [p for p, roles in PRODUCTS.items() if all(find_band(bands, r) >= 0 for r in roles)]


def quantities(bands: Sequence[Band], wanted: Sequence[str] | None) -> list[Quantity]:
    """The quantities named (band names first, then product ids), every band when None; an
    InputError naming the bands and products the store can give."""
    names = [b.name for b in bands]
    out = []
    for name in names if wanted is None else wanted:
        if name in names:
            out.append(Quantity(name, (names.index(name),)))
        elif name.lower() in available_products(bands):
            roles = PRODUCTS[name.lower()]
            out.append(Quantity(name.lower(), tuple(find_band(bands, r) for r in roles), name.lower()))
        else:
            raise InputError(f"the store cannot give {name!r}: choose among its bands {names} and products {available_products(bands)}")
    if not out:
        raise InputError(f"no band asked for: choose among the store's bands {names} and products {available_products(bands)}")
    return out


def normalized_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a - b) / (a + b), 0 where the sum is 0, clamped to -1..1, as the viewer's shader computes it."""
    total = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total == 0, 0.0, (a - b) / np.where(total == 0, 1.0, total))
    return np.clip(ratio, -1.0, 1.0)


def planes(stored: np.ndarray, valid: np.ndarray, bands: Sequence[Band], wanted: Sequence[Quantity]) -> tuple[np.ndarray, np.ndarray]:
    """(values, ok), each (steps, quantity, h, w): physical float64 values of each quantity and
    whether it is valid (a product where both its bands are) from stored (steps, band, h, w)."""
    values = np.empty((stored.shape[0], len(wanted), *stored.shape[2:]), dtype=np.float64)
    ok = np.empty(values.shape, dtype=bool)

    def physical(i: int) -> np.ndarray:
        return stored[:, i].astype(np.float64) * bands[i].scale + bands[i].offset

    for q, quantity in enumerate(wanted):
        if quantity.product is None:
            values[:, q] = physical(quantity.inputs[0])
            ok[:, q] = valid[:, quantity.inputs[0]]
            continue
        a, b = quantity.inputs
        index = normalized_difference(physical(a), physical(b))
        values[:, q] = (index > WATER_THRESHOLD).astype(np.float64) if quantity.product == "water" else index
        ok[:, q] = valid[:, a] & valid[:, b]
    return values, ok


class Summary:
    """Running (count, sum, M2, min, max) per (timestep, quantity) of an area's valid pixels."""

    def __init__(self, n_steps: int, n_quantities: int) -> None:
        shape = (n_steps, n_quantities)
        self.count = np.zeros(shape, dtype=np.int64)
        self.total = np.zeros(shape)
        self.m2 = np.zeros(shape)
        self.lo = np.full(shape, np.inf)
        self.hi = np.full(shape, -np.inf)

    def add(self, at: slice, values: np.ndarray, ok: np.ndarray) -> None:
        """Merge one piece: values and ok (steps, quantity, h, w) for the timesteps `at`, ok already
        limited to the pixels the area holds."""
        n = ok.sum(axis=(2, 3))
        piece = np.where(ok, values, 0.0)
        total = piece.sum(axis=(2, 3))
        safe = np.maximum(n, 1)
        mean = total / safe
        m2 = np.where(ok, (values - mean[:, :, None, None]) ** 2, 0.0).sum(axis=(2, 3))
        na = self.count[at]
        both = na + n
        delta = mean - self.total[at] / np.maximum(na, 1)
        # Chan et al.: the cross term vanishes when either side is empty, so no case is special.
        self.m2[at] += m2 + delta * delta * (na * n / np.maximum(both, 1))
        self.total[at] += total
        self.count[at] = both
        self.lo[at] = np.minimum(self.lo[at], np.where(ok, values, np.inf).min(axis=(2, 3), initial=np.inf))
        self.hi[at] = np.maximum(self.hi[at], np.where(ok, values, -np.inf).max(axis=(2, 3), initial=-np.inf))

    def result(self) -> dict[str, np.ndarray]:
        """mean, std (population), min, max (NaN where a timestep has no valid pixel), valid_pixels
        and the sums (the count of water pixels for the Water product)."""
        none = self.count == 0
        safe = np.maximum(self.count, 1)
        with np.errstate(invalid="ignore"):
            out = {
                "mean": self.total / safe,
                "std": np.sqrt(self.m2 / safe),
                "min": self.lo.copy(),
                "max": self.hi.copy(),
            }
        for name in STATISTICS:
            out[name][none] = np.nan
        out["valid_pixels"] = self.count.copy()
        out["sum"] = self.total.copy()
        return out
