"""`store.attrs`: the root `chronozarr` block, as the JS reader's `store.attrs` gives it.

Both readers hand out the block as stored, with `bands` as band objects, so the reference's
`store.attrs.bands[2].scale` reads the same in either language. Keys are also attributes
(`attrs.crs`, `attrs.temporal`). Before 0.2 the Python `attrs` was the whole root attribute
mapping; a key of that mapping which is not in the block (`attrs["chronozarr"]`,
`attrs["multiscales"]`) still answers, with one DeprecationWarning pointing at `root_attrs`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from typing import Any

from ..deprecation import old_names
from ..format.metadata import Band

_warned: set[str] = set()


def warn_once(old: str, new: str) -> None:
    """One DeprecationWarning per renamed call and process: a loop over pixels warns once."""
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(f"{old} is deprecated; use {new} (docs/api.md)", DeprecationWarning, stacklevel=3)


class DatasetAttrs(Mapping[str, Any]):
    """The `chronozarr` block of the root attributes, read-only, keys also as attributes."""

    def __init__(self, block: Mapping[str, Any], bands: tuple[Band, ...], root: Mapping[str, Any]) -> None:
        self._values = {**block, "bands": bands}
        self._root = root

    def __getitem__(self, key: str) -> Any:
        if key in self._values:
            return self._values[key]
        if key in self._root:
            warn_once("store.attrs[key] for a root attribute (chronozarr, multiscales, ...)", "store.root_attrs[key]")
            return self._root[key]
        raise KeyError(key)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"the store's chronozarr block has no {name!r}; it has {sorted(self._values)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"DatasetAttrs({self._values!r})"


# StoreAttrs, this release's old name of DatasetAttrs (CHANGELOG.md), with a DeprecationWarning.
__getattr__ = old_names(__name__, {"StoreAttrs": DatasetAttrs})
