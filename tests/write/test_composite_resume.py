"""A composite killed part way (SIGKILL at a write step, write/crashpoints.py) and run again with
--resume ends byte-identical to an uninterrupted one, carry-forward gap fill included."""

from __future__ import annotations

from pathlib import Path

from append_helpers import file_hashes
from composite_scenes import make_scenes, write_items
from kill_helpers import count_steps, killed

from chronozarr.convert import convert

DATES = ["2024-01-03T10:00:00Z", "2024-01-23T10:00:00Z", "2024-02-02T10:00:00Z", "2024-03-12T10:00:00Z", "2024-04-01T10:00:00Z"]


def test_a_killed_composite_resumed_is_byte_identical(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    items = write_items(tmp_path / "in", make_scenes(DATES, seed=21, cloudy=0.7))

    def run(out: Path) -> None:
        convert(items, out, assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], composite="month", reducer="median",
                gap_fill="carry-forward", chunk_size=8, progress=False, encoding="star-delta", anchor_interval=2, resume=True)

    run(tmp_path / "fresh")
    expected = file_hashes(tmp_path / "fresh", sidecars=False)
    steps = count_steps(lambda: run(tmp_path / "counted"))
    assert steps > 3
    for kill_after in (1, steps // 2, steps - 1):
        out = tmp_path / f"killed_{kill_after}"
        assert killed(lambda out=out: run(out), kill_after)
        run(out)
        assert file_hashes(out, sidecars=False) == expected, kill_after
