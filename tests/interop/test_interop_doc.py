"""docs/interop.md: every row names the tests that produce it, and those tests exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _rows() -> list[list[str]]:
    lines = (REPO / "docs" / "interop.md").read_text().splitlines()
    table = [line for line in lines if line.startswith("| ") and not line.startswith("| ---")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table[1:]]


def test_every_row_is_checked_by_a_test_that_exists() -> None:
    rows = _rows()
    assert len(rows) >= 10
    for row in rows:
        assert len(row) == 7, row
        refs = re.findall(r"`([^`]+)`", row[-1])
        assert refs, f"row {row[0]} names no test"
        module = None
        for ref in refs:
            path, _, name = ref.partition("::")
            module = REPO / path if path else module
            assert module is not None and module.is_file(), ref
            if name:
                assert re.search(rf"^def {re.escape(name)}\(", module.read_text(), re.M), f"{ref}: no such test"
