"""The per-period summary of a composite (scenes used, share of valid pixels, gap-filled pixels) is
the numpy count of the same scenes whether the run was local, killed and resumed (the periods
written before the kill included) or run on a dask.distributed cluster."""

from __future__ import annotations

import re
from pathlib import Path

import distributed
from composite_scenes import expected_composite, make_scenes, write_items
from kill_helpers import count_steps, killed

from chronozarr.convert import append_composite, convert

DATES = ["2024-01-03T10:00:00Z", "2024-01-23T10:00:00Z", "2024-02-02T10:00:00Z", "2024-03-12T10:00:00Z", "2024-04-01T10:00:00Z"]
GROUPS = [[0, 1], [2], [3], [4]]
LINE = re.compile(r"^  (\d{4}-\d\d-\d\d)  (\d+) scene\(s\), ([\d.]+) % valid, (\d+) gap-filled$")


def _summary(text: str) -> list[tuple[str, int, float, int]]:
    return [(m[1], int(m[2]), float(m[3]), int(m[4])) for line in text.splitlines() if (m := LINE.match(line))]


def _expected(scenes, groups) -> list[tuple[str, int, float, int]]:
    _, mask, coverage = expected_composite([[scenes[i] for i in g] for g in groups], "median", carry=True)
    out = []
    for g, m, c in zip(groups, mask, coverage, strict=True):
        valid, filled = int((c > 0).sum()), int(((m == 1) & (c == 0)).sum())
        out.append((scenes[g[0]].when[:7] + "-01", len(g), round(100 * valid / c.size, 1), filled))
    return out


def _run(items: Path, out: Path) -> str:
    return str(convert(items, out, assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], composite="month", reducer="median",
                       gap_fill="carry-forward", chunk_size=8, block_size=2, progress=False, encoding="star-delta",
                       anchor_interval=2, resume=True))


def test_the_summary_is_the_numpy_count_locally_resumed_and_on_a_cluster(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    scenes = make_scenes(DATES, seed=51, cloudy=0.7)
    items = write_items(tmp_path / "in", scenes)
    want = _expected(scenes, GROUPS)
    assert any(filled for *_, filled in want)  # the case has gap-filled pixels to count
    assert _summary(_run(items, tmp_path / "local")) == want
    steps = count_steps(lambda: _run(items, tmp_path / "counted"))
    out = tmp_path / "killed"
    assert killed(lambda: _run(items, out), steps // 2)
    assert _summary(_run(items, out)) == want  # periods written before the kill are counted too
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        assert _summary(_run(items, tmp_path / "cluster")) == want


def test_an_appended_composite_summarises_only_its_new_periods(tmp_path: Path) -> None:
    scenes = make_scenes(DATES, seed=52, cloudy=0.7)
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    _run(write_items(tmp_path / "old", scenes[:3]), tmp_path / "out")
    added = append_composite(tmp_path / "out", write_items(tmp_path / "new", scenes[3:]), composite="month", valid=("scl:4,5,6,7,11",),
                             gap_fill="carry-forward", rasters={"assets": ["B04", "B08"]}, progress=False)
    assert _summary(str(added)) == _expected(scenes, GROUPS)[2:]
