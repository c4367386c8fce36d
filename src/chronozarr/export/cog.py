"""One Cloud Optimized GeoTIFF per timestep, holding the store's true values at one level.

Values come through the reader, so star-delta timesteps are reconstructed and every level reads
exactly as stored. GDAL's COG driver writes tiles, compression and overviews in one call.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..extras import import_extra
from ..format.geometry import Level, size_text
from ..progress import progress_bar
from ..read.dataset import ChronoDataset, open_dataset
from ..store import ObjectStore
from .files import check_targets, replacing
from .times import select_times

TILE = 512
OVERVIEW_FACTORS = (2, 4, 8)
# Rows of a level written at a time while staging a COG (rounded to whole chunk rows).
STRIP_ROWS = 1024
# Profile keys that describe the grid; the others are the COG driver's creation options.
GRID_KEYS = ("width", "height", "count", "dtype", "transform", "crs", "nodata")


@dataclass(frozen=True)
class ExportSummary:
    """What export_cog wrote."""

    directory: Path
    level: int
    shape: tuple[int, int]
    files: tuple[Path, ...]
    nbytes: int

    def __str__(self) -> str:
        height, width = self.shape
        return (
            f"{self.directory}: {len(self.files)} COGs of level {self.level} ({size_text(width, height)}), "
            f"{self.nbytes / 1e6:.1f} MB"
        )


def export_cog(
    store: str | os.PathLike[str] | ObjectStore,
    out_dir: str | os.PathLike[str],
    *,
    level: int = 0,
    times: str | Sequence[int] | None = None,
    overwrite: bool = False,
    progress: bool | None = None,
) -> ExportSummary:
    """Write `L{level}_{date}.tif` in `out_dir` for each timestep (all, or those `times` names).

    `times` is a list of indices or the `--times` text (indices, ISO date prefixes, FROM..TO).
    Files that exist are refused unless `overwrite`; each file appears only once complete.
    """
    rasterio = import_extra("rasterio", "geo", "export-cog")
    directory = Path(out_dir)
    with open_dataset(store) as source:
        info = _level(source, level)
        steps = select_times(source.times_iso, times) if times is None or isinstance(times, str) else _indices(source, times)
        names = file_names(source.times, level)
        check_targets(directory, [names[t] for t in steps], overwrite)
        profile = cog_profile(source, info)
        written = []
        with rasterio.Env(GDAL_PAM_ENABLED="NO", GDAL_TIFF_INTERNAL_MASK="YES"), progress_bar("exporting", len(steps), enabled=progress) as advance:
            for t in steps:
                path = directory / names[t]
                with replacing(path) as partial:
                    _write(rasterio, partial, source, t, info, profile)
                written.append(path)
                advance(1)
    return ExportSummary(directory, level, (info.shape[2], info.shape[3]), tuple(written), sum(p.stat().st_size for p in written))


def file_names(times: np.ndarray, level: int) -> list[str]:
    """`L{level}_{YYYY-MM-DD}.tif` per timestep; the time of day joins the date when two timesteps
    of the store share a date, so names do not depend on which timesteps are exported."""
    dates = np.datetime_as_string(times.astype("datetime64[D]"))
    unit = "ms" if np.any(times.astype("datetime64[s]") != times) else "s"
    stamps = np.datetime_as_string(times.astype(f"datetime64[{unit}]"))
    shared = {d for d in dates if np.count_nonzero(dates == d) > 1}
    return [f"L{level}_{stamp.replace(':', '-') if date in shared else date}.tif" for date, stamp in zip(dates, stamps, strict=False)]


def overview_count(height: int, width: int) -> int:
    """How many of the 2, 4, 8 overviews fit: GDAL cannot reduce a single pixel, and a level
    always has more than one (stores are at least 2 x 2 and the pyramid stops at one cell)."""
    return min(len(OVERVIEW_FACTORS), int(math.log2(max(height, width))))


def cog_profile(source: ChronoDataset, info: Level) -> dict[str, Any]:
    """The grid, CRS and nodata from the store (GRID_KEYS), and the COG driver's creation options
    for the layout we promise."""
    from affine import Affine  # installed with rasterio

    _, n_band, height, width = info.shape
    profile: dict[str, Any] = {
        "width": width,
        "height": height,
        "count": n_band,
        "dtype": source.dtype.name,
        "transform": Affine(*info.transform),
        "compress": "DEFLATE",
        # Horizontal differencing for integers, floating-point prediction for float32.
        "predictor": "3" if source.dtype.kind == "f" else "2",
        "blocksize": TILE,
        "interleave": "PIXEL",
        "overview_resampling": "AVERAGE",
        "overview_count": overview_count(height, width),
        "num_threads": "ALL_CPUS",
    }
    if source.crs:
        profile["crs"] = source.crs
    if source.nodata is not None:
        profile["nodata"] = source.nodata
    return profile


def _write(rasterio: Any, path: Path, source: ChronoDataset, t: int, info: Level, profile: dict[str, Any]) -> None:
    """One timestep. Where the store has a mask, its invalid pixels become nodata (when there is
    one) and the mask is kept as the file's mask band too: a valid pixel may hold the nodata value.

    The COG driver only copies a whole dataset, so the level is first written strip by strip to a
    tiled GeoTIFF next to `path` (memory stays at a few rows of chunks, whatever the level's size),
    which GDAL then copies into the COG with its overviews.
    """
    from rasterio.shutil import copy as copy_dataset  # installed with rasterio
    from rasterio.windows import Window

    grid = {key: profile[key] for key in GRID_KEYS if key in profile}
    cog = {key: value for key, value in profile.items() if key not in GRID_KEYS}
    _, _, height, width = info.shape
    staging = path.with_name(f"{path.name}.staging")
    try:
        with rasterio.open(staging, "w", driver="GTiff", tiled=True, blockxsize=TILE, blockysize=TILE, bigtiff="IF_SAFER", **grid) as dst:
            for rows in _strips(height, info.chunk_size):
                window = Window(0, rows.start, width, rows.stop - rows.start)
                values = source.read(t, info.index, window=(rows, slice(0, width)))
                mask = source.read_mask(t, info.index, window=(rows, slice(0, width)))
                if mask is not None and source.nodata is not None:
                    values = np.where(mask.astype(bool), values, np.asarray(source.nodata, dtype=values.dtype))
                dst.write(values, window=window)
                if mask is not None:
                    dst.write_mask(np.where(mask.astype(bool), 255, 0).astype(np.uint8), window=window)
            dst.descriptions = tuple(source.band_names)
            dst.scales = tuple(b.scale for b in source.bands)
            dst.offsets = tuple(b.offset for b in source.bands)
            dst.units = tuple(b.units or "" for b in source.bands)
        copy_dataset(staging, path, driver="COG", **cog)
    finally:
        staging.unlink(missing_ok=True)


def _strips(height: int, chunk_size: int) -> Iterator[slice]:
    """Row ranges of whole chunk rows, about STRIP_ROWS high, so that each chunk is read once."""
    step = chunk_size * max(1, STRIP_ROWS // chunk_size)
    for start in range(0, height, step):
        yield slice(start, min(height, start + step))


def _level(source: ChronoDataset, level: int) -> Level:
    levels = source.levels
    if not 0 <= level < len(levels):
        raise InputError(f"--level {level}: the store has levels 0..{len(levels) - 1}")
    return levels[level]


def _indices(source: ChronoDataset, times: Sequence[int]) -> list[int]:
    return select_times(source.times_iso, ",".join(str(int(t)) for t in times))
