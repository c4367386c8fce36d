"""Stores for the export tests, and the true values of their levels computed here, independently
of the writer and the reader: the input arrays, and level 1 by the block rule of spec 2.3 and 6."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from conftest import make_series

import chronozarr

CRS = "EPSG:32631"


@dataclass(frozen=True)
class Built:
    """A store and what went into it."""

    path: Path
    values: np.ndarray  # (time, band, y, x) as given to encode
    mask: np.ndarray | None  # (time, y, x), 1 valid
    nodata: float | int | None
    bands: list[dict]
    times: np.ndarray


def star_delta_masked(root: Path, n_time: int = 5, height: int = 37, width: int = 29) -> Built:
    """uint16 star-delta with a mask and nodata 0; some valid pixels hold 0, masked ones do not."""
    da = make_series(n_time=n_time, n_band=2, height=height, width=width, seed=3)
    values = da.values.copy()
    mask = np.ones((n_time, height, width), dtype=np.uint8)
    mask[:, :4, :6] = 0
    mask[1, 20:, 20:] = 0
    mask[2, 2:4, 2:4] = 1  # a valid hole in the masked corner of one timestep
    values[:, :, 10, 10] = 0  # valid pixels that hold the nodata value
    da = da.copy(data=values)
    bands = [
        {"name": "red", "common_name": "red", "scale": 1e-4, "offset": -0.1, "units": "reflectance"},
        {"name": "nir", "common_name": "nir", "scale": 2e-4, "offset": 0.0, "units": "reflectance"},
    ]
    path = root / "star"
    chronozarr.encode(
        da, path, crs=CRS, chunk_size=16, encoding="star-delta", anchor_interval=2, mask=mask, nodata=0, bands=bands,
        progress=False,
    )
    return Built(path, values, mask, 0, bands, da.time.values)


def float_masked(root: Path, height: int = 64, width: int = 80) -> Built:
    """float32 `none` with a mask and no nodata, and band scale/offset/units."""
    da = make_series(n_time=3, n_band=2, height=height, width=width, dtype="float32", seed=5)
    mask = np.ones((3, height, width), dtype=np.uint8)
    mask[:, 30:36, 40:50] = 0
    bands = [
        {"name": "temperature", "scale": 0.5, "offset": 273.15, "units": "K"},
        {"name": "albedo", "scale": 1.0, "offset": 0.0},
    ]
    path = root / "float"
    chronozarr.encode(da, path, crs=CRS, chunk_size=32, encoding="none", mask=mask, nodata=None, bands=bands, progress=False)
    return Built(path, da.values, mask, None, bands, da.time.values)


def _padded_blocks(a: np.ndarray) -> np.ndarray:
    """(..., h/2, w/2, 4): the 2 x 2 blocks after repeating an odd last row or column."""
    h, w = a.shape[-2:]
    pad = [(0, 0)] * (a.ndim - 2) + [(0, h % 2), (0, w % 2)]
    p = np.pad(a, pad, mode="edge")
    blocks = p.reshape(*p.shape[:-2], p.shape[-2] // 2, 2, p.shape[-1] // 2, 2)
    return np.stack([blocks[..., :, 0, :, 0], blocks[..., :, 0, :, 1], blocks[..., :, 1, :, 0], blocks[..., :, 1, :, 1]], axis=-1)


def level_one(values: np.ndarray, mask: np.ndarray | None, nodata: float | int | None) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, mask) of level 1 for one timestep: values (band, y, x), mask (y, x).

    Means over the valid pixels of each block (floor for integers, float64 sums in block order
    for float32), nodata (0 when null) where none is valid; the mask is the block maximum.
    """
    blocks = _padded_blocks(values)
    if mask is not None:
        valid = np.broadcast_to(_padded_blocks(mask)[None].astype(bool), blocks.shape)
    elif nodata is not None:
        valid = blocks != nodata
    else:
        valid = np.ones(blocks.shape, dtype=bool)
    count = valid.sum(axis=-1)
    fill = 0 if nodata is None else nodata
    if values.dtype.kind == "f":
        total = np.zeros(blocks.shape[:-1], dtype=np.float64)
        for i in range(4):  # ((tl + tr) + bl) + br
            total = total + np.where(valid[..., i], blocks[..., i].astype(np.float64), 0.0)
        mean = (total / np.maximum(count, 1)).astype(values.dtype)
    else:
        total = np.where(valid, blocks.astype(np.int64), 0).sum(axis=-1)
        mean = (total // np.maximum(count, 1)).astype(values.dtype)
    out = np.where(count == 0, np.asarray(fill, dtype=values.dtype), mean)
    return out, (None if mask is None else _padded_blocks(mask).max(axis=-1))
