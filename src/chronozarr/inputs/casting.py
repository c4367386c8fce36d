"""`--cast`: a dtype chronozarr stores, reached without changing any value silently.

An integer cast refuses any value it would change. A float cast is counted first, one timestep at a
time (the input is read once more for it): when it changes values, it needs `--lossy`, and the
summary and provenance say how many values changed and by how much at most.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..errors import InputError
from ..format.metadata import DTYPES

# Suggested --cast targets for dtypes a store cannot hold.
CAST_TARGETS = {"float64": "float32", "float16": "float32", "int8": "int16", "bool": "uint8"}


def cast_exactly(da: xr.DataArray, dtype: str) -> xr.DataArray:
    """`da` as `dtype`; a float target rounds as asked, an integer target must hold every value exactly."""
    if dtype not in DTYPES:
        raise InputError(f"--cast {dtype!r} is not a dtype chronozarr stores; choose one of {', '.join(DTYPES)}")
    target = np.dtype(dtype)
    if da.dtype == target:
        return da
    if target.kind == "f":
        return da.astype(target)
    # Checked where the values are read (chunk by chunk), so a bad value fails the encode, never corrupts it.
    return xr.apply_ufunc(
        _exact_integers, da, kwargs={"dtype": target}, dask="parallelized", output_dtypes=[target], keep_attrs=True
    )


def check_lossy(cast: str | None, lossy: bool) -> None:
    """--lossy accepts what a --cast changes; alone it would look like it did something."""
    if lossy and cast is None:
        raise InputError("--lossy accepts the values a --cast changes, and no --cast was given; add --cast float32, or drop --lossy")


def cast_counted(da: xr.DataArray, dtype: str, lossy: bool = False) -> tuple[xr.DataArray, str]:
    """`da` as `dtype` and the sentence saying what the cast changed; a float cast that changes any
    value is refused unless `lossy`."""
    cast = cast_exactly(da, dtype)
    if np.dtype(dtype).kind != "f" or da.dtype == np.dtype(dtype):
        return cast, f"--cast {dtype}: every value kept exactly (an integer cast refuses any value it would change)"
    changed, largest, total = _changes(da, np.dtype(dtype))
    what = f"{changed} of {total} values ({100 * changed / max(total, 1):.3g} %), the largest change {largest:.6g}"
    if changed and not lossy:
        raise InputError(
            f"--cast {dtype} would change {what}; nothing is changed silently: add --lossy to store the {dtype} "
            "values anyway (the count goes into the summary and provenance), or cast to a type that holds them"
        )
    return cast, f"--cast {dtype}{' --lossy' if changed else ''} changed {what}"


def _changes(da: xr.DataArray, target: np.dtype) -> tuple[int, float, int]:
    """(values the cast changes, the largest absolute change, values), read one timestep at a time."""
    changed, largest = 0, 0.0
    for t in range(da.sizes["time"]):
        before = np.asarray(da.isel(time=t).values, dtype=np.float64)
        after = before.astype(target).astype(np.float64)
        with np.errstate(invalid="ignore"):
            moved = (after != before) & ~(np.isnan(after) & np.isnan(before))
            if moved.any():
                changed += int(np.count_nonzero(moved))
                largest = max(largest, float(np.max(np.abs(after[moved] - before[moved]))))
    return changed, largest, int(da.size)


def _exact_integers(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        bad = (values < info.min) | (values > info.max)
        if values.dtype.kind == "f":
            bad |= ~np.isfinite(values) | (values != np.round(values))
    if np.any(bad):
        example = values[bad].flat[0]
        hint = (
            ". NaN is how xarray reads a CF fill value: without --cast the stored values are kept and the fill value becomes the nodata"
            if np.isnan(example) else ""
        )
        raise InputError(
            f"--cast {dtype.name} would change the value {example} (NaN, fractional or outside "
            f"{info.min}..{info.max}); cast to float32 instead, or fix those values in the input{hint}"
        )
    return values.astype(dtype)


def require_stored_dtype(dtype: str) -> None:
    """Refuse a dtype a store cannot hold, naming the --cast that fixes it (the writer's own message
    for the same problem speaks to Python callers of encode)."""
    if dtype in DTYPES:
        return
    target = CAST_TARGETS.get(dtype)
    fix = f"--cast {target}" if target else f"--cast with one of {', '.join(DTYPES)} that holds every value"
    raise InputError(
        f"the input data is {dtype}, which chronozarr does not store ({', '.join(DTYPES)}); nothing is cast "
        f"silently. Re-run with {fix}"
    )
