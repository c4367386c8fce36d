"""The input of `encode` and `append`: opened the same way, with the same checks, for both."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ..inputs import Source, open_input_dataset, require_stored_dtype
from ..inputs.input_formats import DATED_FILES, input_format
from ..inputs.open import open_raster_glob


@contextmanager
def open_input(
    path: str,
    variable: str | None,
    variables: list[str] | None,
    mask_variable: str | None,
    coverage_variable: str | None,
    group: str | None,
    crs: str | None,
    cast: str | None,
    default_crs: str | None = None,
    rasters: Mapping[str, Any] | None = None,
    lossy: bool = False,
    mask_valid: str | None = None,
    time_from: str | None = None,
) -> Iterator[Source]:
    """The input as a source ready for the API; without --cast its dtype must be one a store
    holds. A glob of dated raster files is read as convert reads them, with `rasters` options."""
    if input_format(path) is DATED_FILES:
        given = [n for n, v in (("--variable", variable), ("--variables", variables), ("--mask-variable", mask_variable),
                                ("--mask-valid", mask_valid), ("--coverage-variable", coverage_variable), ("--group", group),
                                ("--time-from", time_from)) if v]
        opened = open_raster_glob(path, crs=crs, cast=cast, rasters=rasters or {}, refused=given, lossy=lossy)
    else:
        opened = open_input_dataset(
            path, variable=variable, variables=variables, mask_variable=mask_variable,
            coverage_variable=coverage_variable, group=group, crs=crs, cast=cast, default_crs=default_crs, lossy=lossy,
            mask_valid=mask_valid, time_from=time_from,
            **_no_raster_options(rasters),
        )
    with opened as source:
        if cast is None:
            require_stored_dtype(str(source.data.dtype))
        yield source


def _no_raster_options(rasters: Mapping[str, Any] | None) -> dict[str, Any]:
    """Nothing for open_input_dataset; raster options given for a NetCDF or Zarr input are refused."""
    from ..errors import InputError

    given = sorted(k for k, v in (rasters or {}).items() if v not in (None, False))
    if given:
        raise InputError(
            f"--{given[0].replace('_', '-')} applies to raster files ('scenes/*.tif'); a NetCDF file or Zarr store has its own grid"
        )
    return {}
