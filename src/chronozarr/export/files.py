"""The files an export writes: never over existing ones unless asked, never half-written under their name."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import OutputExistsError


def check_targets(directory: Path, names: Sequence[str], overwrite: bool) -> None:
    """Refuse when `directory` is not a directory, or already holds one of `names` and `overwrite` is off.

    Other files in the directory are left alone, so levels, time ranges and catalogs can share one.
    """
    if directory.exists() and not directory.is_dir():
        raise OutputExistsError(f"{directory} exists and is not a directory; choose a directory for the output")
    existing = [name for name in names if (directory / name).exists()]
    if existing and not overwrite:
        shown = ", ".join(existing[:3]) + (f" and {len(existing) - 3} more" if len(existing) > 3 else "")
        raise OutputExistsError(
            f"{directory} already holds {shown}; pass --overwrite to replace them, or choose another directory"
        )


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary path next to `path`, renamed onto it only when the block ends without an error.

    A crash or an interrupt leaves at most a hidden `.partial` file, never a truncated file that
    looks complete.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
