"""Quality flags as a store's mask: the values of a flag variable that mean valid.

Products flag each pixel with a class (SWOT's `wse_qual`: 0 good, 1 suspect, 2 degraded, 3 bad);
`--mask-variable NAME --mask-valid 0,1` keeps the listed classes and makes every other pixel
invalid, including the flag's own fill value, which is no class.
"""

from __future__ import annotations

import xarray as xr

from ..errors import InputError


def valid_values(text: str | None, mask_variable: str | None) -> tuple[float, ...] | None:
    """The numbers --mask-valid lists, None when it is not given."""
    if text is None:
        return None
    if mask_variable is None:
        raise InputError("--mask-valid lists the values of --mask-variable that mean valid; give --mask-variable NAME too")
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise InputError(f"--mask-valid {text!r}: give the valid values as numbers separated by commas, e.g. --mask-valid 0,1") from None
    if not values:
        raise InputError("--mask-valid is empty; list the valid values separated by commas, e.g. --mask-valid 0,1")
    return values


def flags_as_mask(flags: xr.DataArray, valid: tuple[float, ...]) -> xr.DataArray:
    """1 where the flag is one of `valid`, else 0, lazily; a fill value decoded as NaN is none of them."""
    return flags.isin(list(valid)).astype("uint8")


def mask_note(mask_variable: str | None, text: str | None) -> str | None:
    """What the mask was made of, for the summary and provenance."""
    values = valid_values(text, mask_variable)
    if values is None:
        return None
    listed = ", ".join(format(v, "g") for v in values)
    return f"mask from {mask_variable}: valid where it is {listed}; every other value, and its fill value, invalid"
