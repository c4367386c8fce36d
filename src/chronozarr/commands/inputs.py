"""The input of `encode` and `append`: opened the same way, with the same checks, for both."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import InputError
from ..io import Source, open_source
from ..spec.metadata import DTYPES

# Suggested --cast targets for dtypes a store cannot hold; the API's own message speaks Python.
_CAST_TARGETS = {"float64": "float32", "float16": "float32", "int8": "int16", "bool": "uint8"}


@contextmanager
def open_input(
    path: str,
    variable: str | None,
    variables: str | None,
    mask_variable: str | None,
    coverage_variable: str | None,
    group: str | None,
    crs: str | None,
    cast: str | None,
    default_crs: str | None = None,
) -> Iterator[Source]:
    """The input as a source ready for the API; without --cast its dtype must be one a store holds."""
    with open_source(
        path, variable=variable, variables=None if variables is None else variables.split(","),
        mask_variable=mask_variable, coverage_variable=coverage_variable, group=group, crs=crs, cast=cast,
        default_crs=default_crs,
    ) as source:
        if cast is None:
            _require_stored_dtype(str(source.data.dtype))
        yield source


def _require_stored_dtype(dtype: str) -> None:
    """Name the --cast fix here: the API's message for the same problem is written for Python."""
    if dtype in DTYPES:
        return
    target = _CAST_TARGETS.get(dtype)
    fix = f"--cast {target}" if target else f"--cast with one of {', '.join(DTYPES)} that holds every value"
    raise InputError(
        f"the input data is {dtype}, which chronozarr does not store ({', '.join(DTYPES)}); nothing is cast "
        f"silently. Re-run with {fix}"
    )
