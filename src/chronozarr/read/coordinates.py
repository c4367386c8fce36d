"""What xarray shows of a level besides its values: the time, band, y and x coordinates and the
attributes (transform, resolution, crs, nodata). Used by `ChronoDataset.to_xarray` and the xarray
engine alike, from the store's metadata alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import StoreError
from ..format.geometry import Level
from ..format.times import as_nanoseconds


def level_coords(level: Level, times: np.ndarray, band_names: Sequence[str]) -> dict[str, Any]:
    """time (of `times`, the store's timestamps to show), band, y and x coordinate values."""
    try:
        nanoseconds = as_nanoseconds(times)
    except ValueError as exc:
        raise StoreError(
            f"chronozarr.times{exc}, so the store has no xarray time axis; read such timesteps with read(t)"
        ) from None
    return {
        "time": nanoseconds,
        "band": list(band_names),
        "y": level.y_centres(),
        "x": level.x_centres(),
    }


def level_attrs(level: Level, crs: str | None, nodata: float | int | None) -> dict[str, Any]:
    """The DataArray's attributes: the level's transform and resolution, the store's crs and nodata when set."""
    attrs: dict[str, Any] = {"transform": list(level.transform), "resolution": level.resolution}
    if crs:
        attrs["crs"] = crs
    if nodata is not None:
        attrs["nodata"] = nodata
    return attrs
