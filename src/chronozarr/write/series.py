"""The input series: checked, described and read one timestep at a time.

Every check runs before anything is written, so bad input never leaves a partial store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from ..crs import CRS_FIX, epsg, find_crs
from ..errors import InputError
from ..format.geometry import Transform
from ..format.metadata import DTYPES, band_labels
from ..format.times import to_millis

DIMS = ("time", "band", "y", "x")
CAST_ADVICE = {
    "float64": "da.astype('float32') keeps about 7 significant digits",
    "float16": "da.astype('float32') is exact",
    "int8": "da.astype('int16') is exact",
    "uint32": "da.astype('uint16') if every value is below 65536, else scale to float32",
    "int32": "da.astype('int16') if every value fits in -32768..32767, else da.astype('float32')",
    "int64": "da.astype('int16') if every value fits in -32768..32767, else da.astype('float32')",
    "uint64": "da.astype('uint16') if every value is below 65536",
    "bool": "da.astype('uint8') stores 0 and 1",
}


@dataclass(frozen=True)
class Series:
    """A validated (time, band, y, x) series and how to read it."""

    data: xr.DataArray
    times_ms: np.ndarray
    transform: Transform
    crs: str
    nodata: float | int | None
    mask: Any | None
    coverage: Any | None
    nan_mask: bool
    scheduler: str | None = None  # dask scheduler for reads; "sync" inside a cluster task

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.data.dtype)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return tuple(int(s) for s in self.data.shape)  # type: ignore[return-value]  # prepare refuses input that is not 4-D

    @property
    def band_labels(self) -> list[str]:
        return band_labels(self.data)

    @property
    def has_mask(self) -> bool:
        return self.mask is not None or self.nan_mask

    @property
    def fill(self) -> float | int:
        return 0 if self.nodata is None else self.nodata

    @property
    def spatial_chunks(self) -> tuple[int, int] | None:
        """The largest (y, x) chunk of a dask input (a block covers at least one), else None."""
        chunks = self.data.chunks
        if chunks is None:
            return None
        return max(chunks[2]), max(chunks[3])

    def windows(self, t: int, cells: list[tuple[slice, slice]]) -> list[np.ndarray]:
        """The stored values (band, rows, cols) of some windows of timestep t.

        Only the input chunks under the windows are read. Windows that share an input chunk are
        computed in one call, so that chunk is read once; the others one group at a time, so
        memory holds the chunks of one group, not of every window.
        """
        if self.data.chunks is None:
            return [np.asarray(self.data[t, :, rows, cols].values) for rows, cols in cells]
        import dask  # present whenever the input is dask-backed (the `dask` extra)

        out: list[np.ndarray | None] = [None] * len(cells)
        for group in _sharing_chunks(cells, self.data.chunks[2], self.data.chunks[3]):
            parts = dask.compute(*(self.data[t, :, cells[i][0], cells[i][1]].data for i in group), scheduler=self.scheduler)
            for i, part in zip(group, parts, strict=True):
                out[i] = np.asarray(part)
        return [part for part in out if part is not None]

    def read_window(
        self, t: int, rows: slice, cols: slice
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """A window of timestep t as (data (band, rows, cols), mask (rows, cols) uint8 or None,
        coverage (rows, cols) uint8 or None); only the input under the window is read."""
        data = np.ascontiguousarray(_values(self.data[t, :, rows, cols], self.scheduler))
        mask = coverage = None
        if self.mask is not None:
            mask = _plane(_values(self.mask[t, rows, cols], self.scheduler), t, "mask")
            if np.any(mask > 1):
                raise InputError(f"mask of timestep {t} holds values other than 0 and 1; pass mask.astype(bool)")
        if self.coverage is not None:
            coverage = _plane(_values(self.coverage[t, rows, cols], self.scheduler), t, "coverage")
            coverage = np.minimum(coverage, 255).astype(np.uint8)
        if self.dtype.kind == "f":
            data, mask = self._without_nan(t, data, mask)
        return data, mask, coverage

    def _without_nan(self, t: int, data: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """NaN is never stored: it becomes nodata, or invalid through a derived mask (spec 2.3)."""
        nan = np.isnan(data)
        if not nan.any():
            if self.nan_mask and mask is None:
                mask = np.ones(data.shape[1:], dtype=np.uint8)
            return data, mask
        if mask is not None and self.mask is not None:
            invalid_nan = nan & (mask[None] == 1)
            if invalid_nan.any():
                raise InputError(
                    f"timestep {t} holds NaN where the mask says valid; set the mask to 0 there "
                    "or fill the NaN values"
                )
        data = np.where(nan, np.asarray(self.fill, dtype=data.dtype), data)
        if self.nan_mask:
            derived = (~nan.any(axis=0)).astype(np.uint8)
            mask = derived if mask is None else np.minimum(mask, derived)
        return data, mask


def _sharing_chunks(cells: list[tuple[slice, slice]], y_chunks: tuple[int, ...], x_chunks: tuple[int, ...]) -> list[list[int]]:
    """Indices of `cells` grouped so that windows under a common input chunk share a group."""
    y_edges, x_edges = np.cumsum((0,) + tuple(y_chunks)), np.cumsum((0,) + tuple(x_chunks))

    def chunks_under(rows: slice, cols: slice) -> set[tuple[int, int]]:
        ys = range(int(np.searchsorted(y_edges, rows.start, "right")) - 1, int(np.searchsorted(y_edges, rows.stop, "left")))
        xs = range(int(np.searchsorted(x_edges, cols.start, "right")) - 1, int(np.searchsorted(x_edges, cols.stop, "left")))
        return {(y, x) for y in ys for x in xs}

    groups: list[tuple[set[tuple[int, int]], list[int]]] = []
    for i, (rows, cols) in enumerate(cells):
        under = chunks_under(rows, cols)
        joined = [g for g in groups if g[0] & under]
        for g in joined:
            groups.remove(g)
            under |= g[0]
        groups.append((under, sorted([i] + [j for g in joined for j in g[1]])))
    return [members for _, members in groups]


def _values(values: Any, scheduler: str | None) -> np.ndarray:
    """A numpy array from numpy, xarray or dask input, computing lazy input with `scheduler`.

    A thread of a cluster task must not compute through the cluster: the task holds the worker
    thread the computation would wait for.
    """
    if isinstance(values, xr.DataArray):
        values = values.data
    if hasattr(values, "to_delayed"):
        return _dask_values(values, scheduler)
    return np.asarray(values)


def _dask_values(array: Any, scheduler: str | None) -> np.ndarray:
    """A dask window's values. A window inside one input chunk is the computed chunk's own array:
    dask would copy a single-chunk result once more (a whole timestep at every step, a third of
    the cost of reading it) in case the caller writes into it, which the writer never does."""
    import dask

    blocks = array.to_delayed().ravel()
    if len(blocks) != 1:
        return np.asarray(array.compute(scheduler=scheduler))
    (value,) = dask.compute(blocks[0], scheduler=scheduler)
    return np.asarray(value)


def _plane(plane: np.ndarray, t: int, name: str) -> np.ndarray:
    if plane.dtype.kind == "f" and np.isnan(plane).any():
        raise InputError(f"{name} of timestep {t} holds NaN; {name} values are integers")
    if plane.dtype.kind in "iuf" and np.any(plane < 0):
        raise InputError(f"{name} of timestep {t} holds negative values")
    return plane.astype(np.uint8) if name == "mask" else plane.astype(np.uint16)


def prepare(
    da: xr.DataArray,
    *,
    crs: Any = None,
    nodata: Any = "default",
    mask: Any = None,
    coverage: Any = None,
) -> Series:
    """Check the input and describe it; raises InputError naming the problem and the fix."""
    if not isinstance(da, xr.DataArray):
        raise InputError(f"encode takes an xarray.DataArray with dims {DIMS}, got {type(da).__name__}")
    if tuple(da.dims) != DIMS:
        if set(da.dims) == set(DIMS):
            da = da.transpose(*DIMS)
        else:
            raise InputError(
                f"the array has dims {tuple(da.dims)}; chronozarr needs {DIMS}. Rename with "
                "da.rename(...) (lat/lon become y/x) or add a band axis with da.expand_dims('band', 1)"
            )
    dtype = np.dtype(da.dtype)
    if dtype.name not in DTYPES:
        advice = CAST_ADVICE.get(dtype.name, "cast it with da.astype(...)")
        raise InputError(
            f"dtype {dtype.name} is not supported; chronozarr stores {', '.join(DTYPES)}. "
            f"Cast first: {advice}"
        )
    n_time, _, height, width = (int(s) for s in da.shape)
    if min(da.shape) == 0:
        raise InputError(f"the array is empty (shape {tuple(da.shape)})")
    times = _times(da)
    transform = _transform(da, height, width)
    resolved_nodata = _nodata(nodata, dtype)
    crs_string = resolve_crs(crs, da)
    _check_plane_shape(mask, "mask", n_time, height, width)
    _check_plane_shape(coverage, "coverage", n_time, height, width)
    _check_plane_values(mask, coverage)
    nan_mask = dtype.kind == "f" and mask is None and resolved_nodata is None and _has_nan(da)
    return Series(da, times, transform, crs_string, resolved_nodata, mask, coverage, nan_mask, _read_scheduler(da))


def _times(da: xr.DataArray) -> np.ndarray:
    if "time" not in da.coords:
        raise InputError("the array has no time coordinate; assign one with da.assign_coords(time=...)")
    values = np.asarray(da["time"].values)
    if values.dtype.kind != "M":
        try:
            values = values.astype("datetime64[ns]")
        except (TypeError, ValueError):
            raise InputError(f"the time coordinate must hold dates (datetime64), got {values.dtype}") from None
    try:
        millis = to_millis(values)
    except (TypeError, ValueError) as exc:
        raise InputError(str(exc)) from None
    steps = np.diff(millis)
    if np.any(steps <= 0):
        i = int(np.argmax(steps <= 0))
        what = "duplicate" if steps[i] == 0 else "out of order"
        raise InputError(
            f"time must be strictly increasing: {values[i]} is followed by {values[i + 1]} ({what}). "
            "Sort with da.sortby('time') and drop duplicates with da.drop_duplicates('time')"
        )
    return millis


def _axis_step(values: np.ndarray, name: str, decreasing: bool) -> float:
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise InputError(f"coordinate {name} must be one-dimensional numbers (pixel centres)")
    if values.size < 2:
        raise InputError(f"coordinate {name} has one value, so the pixel size is unknown; at least 2 pixels are needed")
    steps = np.diff(values.astype(np.float64))
    step = (float(values[-1]) - float(values[0])) / (values.size - 1)
    if (step < 0) != decreasing or step == 0:
        order = "decreasing (north up)" if decreasing else "increasing"
        fix = "da.isel(y=slice(None, None, -1))" if name == "y" else "da.isel(x=slice(None, None, -1))"
        raise InputError(f"coordinate {name} must be {order}; flip it with {fix}")
    if np.max(np.abs(steps - step)) > _step_tolerance(values, step):
        worst = int(np.argmax(np.abs(steps - step)))
        raise InputError(
            f"coordinate {name} is not a regular grid: step {steps[worst]} at index {worst} differs from the "
            f"mean step {step}; resample to a regular grid first"
        )
    return step


def _step_tolerance(values: np.ndarray, step: float) -> float:
    """How far a step between pixel centres may stray from the mean and still be a regular grid.

    A coordinate stored in float32 (common for lat/lon in NetCDF) holds each centre only to half
    a unit in the last place, so its steps jitter by up to one such unit at the largest magnitude:
    0.1-degree centres near 180 step by 0.09999 or 0.10001. Float64 coordinates get 1e-6 of a step.
    """
    rounding = float(np.spacing(np.abs(values).max())) if values.dtype.kind == "f" else 0.0
    return max(1e-6 * abs(step), 2 * rounding)


def _transform(da: xr.DataArray, height: int, width: int) -> Transform:
    for name in ("x", "y"):
        if name not in da.coords:
            raise InputError(f"the array has no {name} coordinate (projected pixel centres)")
    x = np.asarray(da["x"].values)
    y = np.asarray(da["y"].values)
    dx = _axis_step(x, "x", decreasing=False)
    dy = _axis_step(y, "y", decreasing=True)
    return (dx, 0.0, float(x[0]) - dx / 2, 0.0, dy, float(y[0]) - dy / 2)


def _nodata(nodata: Any, dtype: np.dtype) -> float | int | None:
    if isinstance(nodata, str) and nodata == "default":
        return 0 if dtype.name in ("uint8", "uint16") else None
    if nodata is None:
        return None
    if isinstance(nodata, bool) or not isinstance(nodata, (int, float, np.integer, np.floating)):
        raise InputError(f"nodata must be a number or None, got {nodata!r}")
    if dtype.kind == "f":
        if not math.isfinite(float(nodata)):
            raise InputError(f"nodata must be finite (NaN is not a valid nodata, spec 2.3), got {nodata!r}")
        return float(np.float32(nodata))
    info = np.iinfo(dtype)
    if float(nodata) != int(nodata) or not info.min <= int(nodata) <= info.max:
        raise InputError(f"nodata {nodata!r} is not a {dtype.name} value ({info.min}..{info.max})")
    return int(nodata)


def _check_plane_shape(values: Any, name: str, n_time: int, height: int, width: int) -> None:
    if values is None:
        return
    shape = tuple(int(s) for s in getattr(values, "shape", ()))
    if shape != (n_time, height, width):
        raise InputError(f"{name} must have shape (time, y, x) = {(n_time, height, width)}, got {shape}")
    if isinstance(values, xr.DataArray) and tuple(values.dims) != ("time", "y", "x"):
        raise InputError(f"{name} must have dims ('time', 'y', 'x'), got {tuple(values.dims)}")


def _check_plane_values(mask: Any, coverage: Any) -> None:
    """In-memory mask and coverage are checked up front (lazy ones as each timestep is read)."""
    for name, values in (("mask", mask), ("coverage", coverage)):
        if values is None or (isinstance(values, xr.DataArray) and (values.chunks is not None or not values.variable._in_memory)):
            continue  # lazy (dask, or a backend array that reads on indexing): checked window by window as read
        if not hasattr(values, "__array__") or type(values).__module__.startswith("dask"):
            continue
        array = np.asarray(values)
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise InputError(f"{name} holds NaN; {name} values are integers")
        if array.dtype.kind in "iuf" and array.size and array.min() < 0:
            raise InputError(f"{name} holds negative values")
        if name == "mask" and array.size and array.max() > 1:
            raise InputError("mask holds values other than 0 and 1; pass mask.astype(bool)")


def _read_scheduler(da: xr.DataArray) -> str | None:
    """"sync" when a timestep is one dask chunk: a thread pool only adds overhead to reading it
    (several times the read itself); None keeps dask's default for timesteps of many chunks."""
    chunks = da.chunks
    if chunks is None:
        return None
    per_timestep = 1
    for sizes in chunks[1:]:
        per_timestep *= len(sizes)
    return "sync" if per_timestep == 1 else None


def _has_nan(da: xr.DataArray) -> bool:
    return bool(da.isnull().any().values)


def resolve_crs(crs: Any, da: xr.DataArray) -> str:
    """'EPSG:<code>' from the argument, else from the array's CRS attributes (rioxarray, CF)."""
    if crs is not None:
        return epsg(crs, "crs")
    found = find_crs(da.to_dataset(name="__data__"), ["__data__"], geographic=False)
    if found is None:
        raise InputError(f"the array has no CRS; {CRS_FIX}")
    return found
