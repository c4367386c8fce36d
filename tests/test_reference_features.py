"""docs/reference-features.md, the audit of the reference documentation, stays true to the tree:
every path its "where" column names exists, every row has a known status (with a note when it is
not present), and the summary line counts the rows as they are."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "reference-features.md").read_text(encoding="utf-8")
STATUSES = ("present", "partial", "missing")


def _rows() -> list[list[str]]:
    """The table rows below a `| reference | status | where | note |` header, split into cells."""
    rows, in_table = [], False
    for line in DOC.splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if cells[:2] == ["reference", "status"]:
            in_table = True
        elif in_table and not set(cells[0]) <= {"-", " "}:
            rows.append(cells)
    return rows


ROWS = _rows()


def test_every_row_has_four_cells_and_a_known_status() -> None:
    assert len(ROWS) > 200  # the reference has about 268 rows; a parse that finds few is broken
    for cells in ROWS:
        assert len(cells) == 4, cells
        assert cells[1] in STATUSES, cells


def test_every_path_in_the_where_column_exists() -> None:
    for feature, status, where, _ in ROWS:
        paths = re.findall(r"`([^`]+)`", where)
        if status == "missing":
            assert where == "—" or paths, feature
        else:
            assert paths, f"{feature}: a {status} row names where it lives"
        for path in paths:
            assert (ROOT / path).exists(), f"{feature}: {path} does not exist"


def test_rows_not_present_say_what_differs() -> None:
    for feature, status, _, note in ROWS:
        assert bool(note) == (status != "present"), feature


def test_summary_counts_equal_the_rows() -> None:
    line = re.search(r"^Summary: (.*)$", DOC, flags=re.M)
    assert line is not None
    stated = {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", line.group(1))}
    counted = Counter(cells[1] for cells in ROWS)
    assert stated == {"rows": len(ROWS), **{s: counted[s] for s in STATUSES}}
