"""The input of `encode` and `append`: opened the same way, with the same checks, for both."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..io import Source, open_source, require_stored_dtype


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
) -> Iterator[Source]:
    """The input as a source ready for the API; without --cast its dtype must be one a store holds."""
    with open_source(
        path, variable=variable, variables=variables,
        mask_variable=mask_variable, coverage_variable=coverage_variable, group=group, crs=crs, cast=cast,
        default_crs=default_crs,
    ) as source:
        if cast is None:
            require_stored_dtype(str(source.data.dtype))
        yield source
