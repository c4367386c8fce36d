"""select_times: indices, ISO prefixes, ranges, and errors that name the item."""

from __future__ import annotations

import pytest

from chronozarr.errors import InputError
from chronozarr.export.times import select_times

TIMES = ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-02-15T12:00:00Z", "2024-03-01T00:00:00Z", "2025-01-01T00:00:00Z"]


@pytest.mark.parametrize(
    "text, expected",
    [
        (None, [0, 1, 2, 3, 4]),
        ("0", [0]),
        ("-1,0", [0, 4]),
        ("2024-02", [1, 2]),
        ("2024-02-15", [2]),
        ("2024-02..2024-03", [1, 2, 3]),
        ("2024-01-15..2024-02-01", [1]),
        ("2024-03..", [3, 4]),
        ("..1", [0, 1]),
        ("1..-2", [1, 2, 3]),
        ("2024-, 0", [0, 1, 2, 3]),
    ],
)
def test_selections(text, expected):
    assert select_times(TIMES, text) == expected


@pytest.mark.parametrize("text, message", [("5", "no timestep 5"), ("2023", "no timestep 2023"), ("2023-", "matches no timestep"), ("2026-..", "selects no timestep"), (",", "selects no")])
def test_errors_name_the_problem(text, message):
    with pytest.raises(InputError, match=message):
        select_times(TIMES, text)
