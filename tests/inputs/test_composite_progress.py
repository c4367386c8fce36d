"""A composite shows its progress as encode does, counted in scenes read and periods written: off a
terminal one line per period's worth written, ending at the numbers of scenes and periods the
items hold (counted here from the dates); on a terminal, a bar showing both counts."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from composite_scenes import make_scenes, write_items

from chronozarr.convert import append_composite, convert

DATES = ["2024-01-03T10:00:00Z", "2024-01-13T10:00:00Z", "2024-01-23T10:00:00Z", "2024-02-02T10:00:00Z",
         "2024-02-12T10:00:00Z", "2024-03-23T10:00:00Z"]
OPTIONS = {"assets": ["B04", "B08"], "valid": ["scl:4,5,6,7,11"], "composite": "month", "chunk_size": 8, "encoding": "none"}
COUNTS = re.compile(r"scenes read (\d+)/(\d+), periods written (\d+)/(\d+)")


def _months(dates: list[str]) -> int:
    return len({d[:7] for d in dates})


def _count_lines(err: str, label: str) -> list[tuple[int, ...]]:
    return [tuple(map(int, m.groups())) for line in err.splitlines() if line.startswith(f"{label}: ") and (m := COUNTS.search(line))]


def test_off_a_terminal_a_line_per_period_ends_at_the_scenes_and_periods(tmp_path: Path, capsys) -> None:
    items = write_items(tmp_path, make_scenes(DATES, seed=41))
    convert(items, tmp_path / "out", **OPTIONS, block_size=2, progress=None)  # 4 blocks of the 18 x 20 grid
    lines = _count_lines(capsys.readouterr().err, "encoding")
    scenes, periods = len(DATES), _months(DATES)
    assert len(lines) == periods, lines
    assert [line[2] for line in lines] == list(range(1, periods + 1))
    assert lines[-1] == (scenes, scenes, periods, periods)
    assert all(line[1] == scenes and line[3] == periods for line in lines)


def test_an_appended_composite_counts_only_its_own_scenes_and_periods(tmp_path: Path, capsys) -> None:
    scenes = make_scenes(DATES, seed=42)
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    convert(write_items(tmp_path / "old", scenes[:3]), tmp_path / "out", **OPTIONS, progress=False)
    options = {k: v for k, v in OPTIONS.items() if k in ("valid", "composite")}
    append_composite(tmp_path / "out", write_items(tmp_path / "new", scenes[3:]), **options, rasters={"assets": ["B04", "B08"]}, progress=None)
    lines = _count_lines(capsys.readouterr().err, "appending")
    assert lines and lines[-1] == (3, 3, _months(DATES[3:]), _months(DATES[3:]))


def test_on_a_terminal_the_bar_shows_scenes_read_and_periods_written(tmp_path: Path, monkeypatch, capsys) -> None:
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    monkeypatch.setenv("COLUMNS", "200")
    items = write_items(tmp_path, make_scenes(DATES, seed=43))
    convert(items, tmp_path / "out", **OPTIONS, progress=True)
    drawn = capsys.readouterr()
    shown = [tuple(map(int, m.groups())) for m in COUNTS.finditer(drawn.out + drawn.err)]
    assert shown and shown[-1] == (len(DATES), len(DATES), _months(DATES), _months(DATES))
    assert np.all(np.diff([s[0] for s in shown]) >= 0)
