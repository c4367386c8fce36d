"""Renamed public names still answer under their old name for one release (CHANGELOG.md lists each).

A module sets `__getattr__ = old_names(__name__, {old: new object})`: Python asks it only for a name
the module does not have, so importing the package warns about nothing, and using an old name gives
the same object with a DeprecationWarning naming its replacement.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any


def old_names(module: str, renames: Mapping[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` that answers the old names in `renames` with their new objects."""

    def __getattr__(name: str) -> Any:
        if name not in renames:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new = renames[name]
        warnings.warn(
            f"{module}.{name} is deprecated and goes in the next release; use {module}.{new.__name__} (CHANGELOG.md)",
            DeprecationWarning,
            stacklevel=2,  # the code that used the old name
        )
        return new

    return __getattr__
