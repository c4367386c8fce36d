"""What an encode would write, from its plan alone: `encode(..., dry_run=True)` and `--dry-run`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..format.geometry import Transform, grid_text
from ..format.metadata import Band
from ..format.times import cadence, from_iso, iso_list
from .plan import Plan
from .series import Series

SHOWN_DATES = 12  # beyond this, the first and last few


@dataclass(frozen=True)
class EncodePreview:
    """The store encode would write: nothing has been written."""

    path: Path | str
    times: tuple[str, ...]
    shape: tuple[int, int, int, int]
    dtype: str
    crs: str
    transform: Transform
    nodata: float | int | None
    bands: tuple[Band, ...]
    planes: tuple[str, ...]
    levels: tuple[tuple[int, int], ...]
    encoding: str
    raw_bytes: int

    @classmethod
    def of(cls, plan: Plan, series: Series, bands: list[Band]) -> EncodePreview:
        levels = tuple((level.height, level.width) for level in plan.levels)
        n_time, n_band = plan.n_time, plan.n_band
        per_pixel = n_band * series.dtype.itemsize + len(plan.plane_variables)  # mask and coverage: one byte each
        return cls(
            path=plan.output.location,
            times=tuple(iso_list(series.times_ms)),
            shape=plan.shape,
            dtype=plan.dtype,
            crs=series.crs,
            transform=series.transform,
            nodata=plan.nodata,
            bands=tuple(bands),
            planes=tuple(plan.plane_variables),
            levels=levels,
            encoding=plan.encoding,
            raw_bytes=sum(n_time * h * w * per_pixel for h, w in levels),
        )

    def __str__(self) -> str:
        n_time, _, height, width = self.shape
        lines = [
            f"dry run: nothing written; {self.path} would hold",
            f"  dates     {n_time} ({cadence(from_iso(list(self.times)))}): {_dates(self.times)}",
            f"  grid      {grid_text(width, height, self.transform, self.crs)}",
            f"  dtype     {self.dtype}, nodata {'none' if self.nodata is None else self.nodata}",
            f"  bands     {', '.join(_band(b) for b in self.bands)}",
            f"  planes    {', '.join(self.planes) or 'none (no mask, no coverage)'}",
            f"  levels    {len(self.levels)} (width x height): {', '.join(f'{w} x {h}' for h, w in self.levels)}",
            f"  encoding  {self.encoding}" + (" (none or star-delta, chosen from a sample when writing)" if self.encoding == "auto" else ""),
            f"  size      {_size(self.raw_bytes)} uncompressed, every level; compressed objects are usually smaller",
        ]
        return "\n".join(lines)


def _size(nbytes: int) -> str:
    return f"{nbytes / 1e6:.1f} MB" if nbytes >= 100_000 else f"{nbytes / 1e3:.1f} kB"


def _dates(times: tuple[str, ...]) -> str:
    if len(times) <= SHOWN_DATES:
        return ", ".join(times)
    return ", ".join(times[:3]) + ", ..., " + ", ".join(times[-3:])


def _band(band: Band) -> str:
    details = [band.common_name] if band.common_name else []
    details += [f"scale {band.scale:g}", f"offset {band.offset:g}"] + ([band.units] if band.units else [])
    return f"{band.name} ({', '.join(details)})"
