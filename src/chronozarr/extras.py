"""Optional dependencies, imported where they are needed with an error that says how to install them."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError


def import_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """`module`, or a MissingExtraError naming the extra that provides it and what needed it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{purpose} needs {module.split('.')[0]}, which is not installed: pip install 'chronozarr[{extra}]'"
        ) from None
