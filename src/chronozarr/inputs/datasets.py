"""Open a Zarr store or NetCDF file as the lazy (time, band, y, x) series that `encode` takes.

Everything here is about the input's shape and names; what a valid series is (dtype, regular grid,
increasing time) stays the writer's check, so the two never disagree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from ..crs import series_crs
from ..errors import InputError
from ..format.metadata import Band, band_labels
from .casting import cast_counted, check_lossy
from .cf import Declared, decoded_on_read, read_unsigned
from .cf import declared as cf_declared
from .chronozarr_datasets import chronozarr_level, open_dataset_level
from .dataset_files import open_xarray, time_chunks
from .granules import granules_note
from .pixel_counts import PixelCounts
from .quality import flags_as_mask, mask_note, valid_values

SPATIAL_NAMES = (("y", "x"), ("lat", "lon"), ("latitude", "longitude"), ("yCoordinates", "xCoordinates"))  # the last: NISAR L2
GEOGRAPHIC_NAMES = ("lat", "latitude")
PLANE_DIMS = ("time", "y", "x")
SERIES_DIMS = ("time", "band", "y", "x")


@dataclass(frozen=True)
class Source:
    """An opened input: the series, its CRS, optional mask and coverage planes, and the nodata and
    band objects the input declares ("default" and None where it declares none).

    Use it as a context manager: the arrays read lazily from the file until it is closed.
    """

    data: xr.DataArray
    crs: str
    mask: xr.DataArray | None = None
    coverage: xr.DataArray | None = None
    dataset: xr.Dataset | None = field(default=None, repr=False)
    nodata: Any = "default"
    bands: tuple[Band, ...] | None = None
    notes: tuple[str, ...] = ()  # what was matched, replaced, warped or skipped: said and kept in provenance
    origin: tuple[str, ...] = ()  # provenance.sources when the user gives none
    composite: str = "none"
    resources: tuple[Any, ...] = field(default=(), repr=False)  # closed with the source
    pixels: PixelCounts | None = None  # raster files: what became of their pixels (None: all read as they are)
    resampling: str | None = None
    gap_fill: str = "none"
    report: Any = None  # a composite's CompositePlan: the periods and the scenes of each
    step_counts: Any = None  # a composite's StepCounts (scenes per period) for the writer's bar

    def pixel_sentence(self) -> str:
        """What became of the source pixels, for the summary: a NetCDF or Zarr input is read whole."""
        n_time, _, height, width = self.data.shape
        return (self.pixels or PixelCounts(read=n_time * height * width)).sentence(self.resampling)

    def provenance(self, given: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """The user's provenance with this input's notes added (one is made when there are notes)."""
        if not self.notes:
            return dict(given) if given is not None else None
        out: dict[str, Any] = dict(given) if given is not None else {
            "sources": list(self.origin) or ["unnamed input"], "composite": self.composite, "gap_fill": self.gap_fill,
        }
        if given is not None and self.composite != "none":
            out.setdefault("composite", self.composite)
            out.setdefault("gap_fill", self.gap_fill)
        earlier = [str(out["notes"])] if out.get("notes") else []
        out["notes"] = "; ".join(earlier + list(self.notes))
        return out

    def encode_arguments(self) -> dict[str, Any]:
        """The keyword arguments of `chronozarr.encode` (and `append`) that come from the input."""
        args: dict[str, Any] = {"crs": self.crs, "mask": self.mask, "coverage": self.coverage}
        if not (isinstance(self.nodata, str) and self.nodata == "default"):
            args["nodata"] = self.nodata
        if self.bands is not None:
            args["bands"] = list(self.bands)
        if self.step_counts is not None:
            args["step_counts"] = self.step_counts
        return args

    def close(self) -> None:
        if self.dataset is not None:
            self.dataset.close()
        for resource in self.resources:
            resource.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Selected(NamedTuple):
    """The series and planes picked from an opened dataset, and the variables behind them."""

    data: xr.DataArray
    names: list[str]
    mask: xr.DataArray | None
    coverage: xr.DataArray | None
    geographic: bool
    attrs: dict[str, dict[str, Any]]


def open_input_dataset(
    path: str | os.PathLike[str],
    *,
    variable: str | None = None,
    variables: list[str] | None = None,
    mask_variable: str | None = None,
    coverage_variable: str | None = None,
    group: str | None = None,
    crs: Any = None,
    cast: str | None = None,
    default_crs: str | None = None,
    lossy: bool = False,
    mask_valid: str | None = None,
    time_from: str | None = None,
) -> Source:
    """Open `path` (Zarr v2/v3 store, NetCDF file or chronozarr store) for encode; raises
    InputError naming the fix.

    The series is one (time, band, y, x) `variable`, or (time, y, x) `variables` stacked as bands,
    or the input's only 4-D variable. lat/lon grids become y/x, south-up grids are flipped, and
    `cast` converts the dtype explicitly (an integer cast refuses values it would change, a float
    cast that changes any needs `lossy`). Without
    `cast`, CF fill values and packing are kept as stored and declared as nodata and band scale
    and offset (inputs/cf.py). A chronozarr store is read reconstructed, with its own nodata, bands,
    mask and coverage. `default_crs` is taken when neither `crs` nor the input names one.
    `mask_valid` lists the values of `mask_variable` that mean valid (quality flags), and a glob of
    granules is joined on time, each dated by `time_from` (inputs/granules.py).
    """
    check_lossy(cast, lossy)
    if variable is not None and variables:
        raise InputError("give either --variable (one (time, band, y, x) variable) or --variables, not both")
    level = chronozarr_level(path, group)
    if level is not None:
        ds, declared = open_dataset_level(*level, time_chunks())
        mask_variable = mask_variable or ("mask" if "mask" in ds else None)
        coverage_variable = coverage_variable or ("coverage" if "coverage" in ds else None)
    else:
        ds, declared = open_xarray(path, group, time_from=time_from), None
    pick = (variable, variables, mask_variable, coverage_variable, str(path), valid_values(mask_valid, mask_variable))
    try:
        selected = _select(ds, *pick)
        undecoded = [n for n in selected.names if decoded_on_read(ds[n])] if cast is None and level is None else []
    except BaseException:
        ds.close()
        raise
    if undecoded:
        ds.close()
        ds = read_unsigned(open_xarray(path, group, undecoded=undecoded, time_from=time_from), undecoded)
    try:
        if undecoded:
            selected = _select(ds, *pick)
        if declared is None:
            declared = cf_declared(selected.attrs, band_labels(selected.data), str(selected.data.dtype)) if undecoded else Declared()
        data, said = cast_counted(selected.data, cast, lossy) if cast is not None else (selected.data, None)
        resolved, notes = series_crs(ds, selected.names, selected.geographic, selected.data, crs, default_crs)
        said_too = (said, granules_note(path, time_from, selected.data.sizes["time"]), mask_note(mask_variable, mask_valid))
        notes = (*notes, *(n for n in said_too if n))
    except BaseException:
        ds.close()
        raise
    origin = (os.path.basename(os.fspath(path).rstrip("/")),)
    return Source(data, resolved, selected.mask, selected.coverage, ds, declared.nodata, declared.bands, notes, origin)


def _select(
    ds: xr.Dataset, variable: str | None, variables: list[str] | None, mask_variable: str | None,
    coverage_variable: str | None, path: str, valid: tuple[float, ...] | None = None,
) -> _Selected:
    north_up, geographic = _north_up(ds)
    mask = _plane(north_up, mask_variable, "--mask-variable")
    if mask is not None and valid is not None:
        mask = flags_as_mask(mask, valid)
    coverage = _plane(north_up, coverage_variable, "--coverage-variable")
    planes = [n for n in (mask_variable, coverage_variable) if n]
    data, names = _series(north_up, variable, variables, planes, path)
    return _Selected(data, names, mask, coverage, geographic, {n: dict(north_up[n].attrs) for n in names})


def _north_up(ds: xr.Dataset) -> tuple[xr.Dataset, bool]:
    """Rename lat/lon to y/x, flip a south-up grid and refuse x decreasing; True if it was lat/lon."""
    for y_name, x_name in SPATIAL_NAMES:
        if y_name in ds.dims and x_name in ds.dims:
            break
    else:
        return ds, False
    geographic = y_name in GEOGRAPHIC_NAMES
    if y_name != "y":
        taken = [n for n in ("y", "x") if n in ds.variables or n in ds.dims]
        if taken:
            raise InputError(f"the input has dims {y_name}/{x_name} and also a variable {taken[0]!r}; rename it first")
        ds = ds.rename({y_name: "y", x_name: "x"})
    if geographic and "x" in ds.coords and ds.sizes["x"] > 1:
        ds = ds.assign_coords(x=("x", _continuous_longitudes(ds["x"].values), ds["x"].attrs))
    if "x" in ds.coords and ds.sizes["x"] > 1:
        x = ds["x"].values
        if x[-1] < x[0]:
            raise InputError(
                f"coordinate {x_name!r} decreases ({x[0]} to {x[-1]}); chronozarr needs x increasing west to "
                f"east. Reverse the x axis of the input (ds.isel({x_name}=slice(None, None, -1)))"
            )
    if "y" in ds.coords and ds.sizes["y"] > 1:
        y = ds["y"].values
        if y[-1] > y[0]:
            ds = ds.isel(y=slice(None, None, -1))  # south-up: the store's row 0 is the north edge
    return ds, geographic


def _continuous_longitudes(lon: np.ndarray) -> np.ndarray:
    """Longitudes that wrap once (350, 355, 0, 5 or 170, 175, -180, -175) as one increasing run
    of the same meridians, west of 180 where possible (-10, -5, 0, 5); other values unchanged."""
    steps = np.diff(lon.astype(np.float64))
    wraps = np.flatnonzero(steps < 0)
    if len(wraps) != 1 or not np.isclose(steps[wraps[0]] + 360, np.median(steps), rtol=1e-3):
        return lon
    run = lon.astype(np.float64) + 360 * (np.arange(lon.size) > wraps[0])
    return run - 360 if run.min() >= 180 else run


def _series(
    ds: xr.Dataset, variable: str | None, variables: list[str] | None, planes: list[str], path: str
) -> tuple[xr.DataArray, list[str]]:
    """The (time, band, y, x) array and the input variables it came from."""
    if variables:
        names = _unique([n.strip() for n in variables if n.strip()], "--variables")
        return _stack(ds, names, path), names
    if variable is None:
        variable = _only_series_variable(ds, planes, path)
    var = _without_singletons(_variable(ds, variable, "--variable", path), keep=1)
    if var.ndim == 3 and set(var.dims) == set(PLANE_DIMS):
        return _stack(ds, [variable], path), [variable]
    extra = [d for d in var.dims if d not in PLANE_DIMS]
    if var.ndim != 4 or len(extra) != 1 or not set(PLANE_DIMS) <= set(var.dims):
        raise InputError(
            f"variable {variable!r} has dims {tuple(var.dims)}; --variable needs (time, band, y, x) or "
            "(time, y, x) with y/x, lat/lon or latitude/longitude as spatial dims. "
            "To stack (time, y, x) variables as bands use --variables A,B,C"
        )
    if extra[0] != "band":
        var = var.rename({extra[0]: "band"})
    return var.transpose(*SERIES_DIMS), [variable]


def _only_series_variable(ds: xr.Dataset, planes: list[str], path: str) -> str:
    """The input's one 4-D variable, or failing that its one (time, y, x) variable."""
    candidates = [n for n in ds.data_vars if n not in planes]
    squeezed = {n: _without_singletons(ds[n], keep=1) for n in candidates}
    four = [n for n, v in squeezed.items() if v.ndim == 4 and set(PLANE_DIMS) <= set(v.dims)]
    three = [n for n, v in squeezed.items() if v.ndim == 3 and set(v.dims) == set(PLANE_DIMS)]
    if len(four) == 1:
        return str(four[0])
    if not four and len(three) == 1:
        return str(three[0])
    if four:
        listing = ", ".join(map(str, four))
        raise InputError(f"{path} has several (time, band, y, x) variables ({listing}); choose one with --variable NAME")
    if three:
        listing = ",".join(map(str, three))
        raise InputError(
            f"{path} has no (time, band, y, x) variable; stack (time, y, x) variables as bands with "
            f"--variables {listing} (or pick one with --variable NAME)"
        )
    raise InputError(
        f"{path} has no variable with dims (time, band, y, x) or (time, y, x); its variables are "
        f"{_describe(ds)}. Spatial dims must be named y/x, lat/lon or latitude/longitude and time 'time'"
    )


def _stack(ds: xr.Dataset, names: list[str], path: str) -> xr.DataArray:
    """(time, y, x) variables as the bands of one array, band names = variable names."""
    arrays = []
    for name in names:
        var = _without_singletons(_variable(ds, name, "--variables", path), keep=0)
        if var.ndim != 3 or set(var.dims) != set(PLANE_DIMS):
            raise InputError(
                f"variable {name!r} has dims {tuple(var.dims)}; --variables stacks (time, y, x) variables. "
                "A (time, band, y, x) variable is given with --variable"
            )
        arrays.append(var.transpose(*PLANE_DIMS).drop_attrs())
    dtypes = {str(a.dtype) for a in arrays}
    if len(dtypes) > 1:
        found = ", ".join(f"{n}: {a.dtype}" for n, a in zip(names, arrays, strict=False))
        raise InputError(f"variables stacked as bands must share one dtype, got {found}; convert them to one dtype first")
    try:
        stacked = xr.concat(arrays, dim="band", join="exact", coords="minimal", compat="override")
    except ValueError:
        raise InputError(
            f"variables {', '.join(names)} do not share the same time, y and x coordinates; "
            "only variables on one grid and time axis can be stacked as bands"
        ) from None
    stacked = stacked.assign_coords(band=("band", np.array(names, dtype=str)))
    return stacked.transpose(*SERIES_DIMS).rename(None)


def _without_singletons(var: xr.DataArray, keep: int) -> xr.DataArray:
    """`var` without its size-1 dims beyond time, y and x, down to `keep` extra dims (one named
    `band` is dropped last): (time, depth=1, band, y, x) is a (time, band, y, x) series."""
    extra = [d for d in var.dims if d not in PLANE_DIMS]
    singles = sorted((d for d in extra if var.sizes[d] == 1), key=lambda d: d == "band")
    drop = singles[: max(len(extra) - keep, 0)]
    return var.isel({d: 0 for d in drop}) if drop else var


def _plane(ds: xr.Dataset, name: str | None, option: str) -> xr.DataArray | None:
    if name is None:
        return None
    var = _without_singletons(_variable(ds, name, option, "the input"), keep=0)
    if set(var.dims) != set(PLANE_DIMS) or var.ndim != 3:
        raise InputError(f"{option} {name!r} has dims {tuple(var.dims)}; it must be (time, y, x) like the data")
    return var.transpose(*PLANE_DIMS)


def _variable(ds: xr.Dataset, name: str, option: str, path: str) -> xr.DataArray:
    if name not in ds.data_vars:
        raise InputError(f"{option}: variable {name!r} is not in {path}; its variables are {_describe(ds)}")
    return ds[name]


def _describe(ds: xr.Dataset) -> str:
    if not ds.data_vars:
        return "(none)"
    return ", ".join(f"{n}{tuple(map(str, v.dims))}" for n, v in ds.data_vars.items())


def _unique(names: list[str], option: str) -> list[str]:
    if not names:
        raise InputError(f"{option} is empty; list variable names separated by commas")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(f"{option} lists {', '.join(repeated)} more than once")
    return names
