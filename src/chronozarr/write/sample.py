"""The cells `auto` encoding measured (selection.py), and their chunks kept in a scratch directory
so the writer stores the chosen encoding's without compressing them again (plan.Plan carries it)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

PLAIN, DELTA = "plain", "delta"


@dataclass(frozen=True)
class Sample:
    """The measured cells, the ratio, and where their encoded chunks wait to be stored."""

    cells: frozenset[tuple[int, int]]
    times: frozenset[int]
    ratio: float
    directory: Path

    def holds(self, t: int, row: int, col: int) -> bool:
        return t in self.times and (row, col) in self.cells

    def chunk_file(self, variant: str, t: int, row: int, col: int) -> Path:
        return self.directory / variant / f"{t}.{row}.{col}"

    def lookup(self, stored_as_delta: bool, t: int, row: int, col: int) -> tuple[bool, bytes | None]:
        """(found, stored bytes) of a level-0 chunk: found is False when it was not sampled or its
        file is not here; the bytes are None for an all-fill chunk."""
        if not self.holds(t, row, col):
            return False, None
        try:
            data = self.chunk_file(DELTA if stored_as_delta else PLAIN, t, row, col).read_bytes()
        except OSError:
            return False, None
        return True, data or None

    def discard(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)
