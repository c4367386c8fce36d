"""bench/append.py end to end on a tiny series: the choices it is given become the rows it writes,
and its re-reference figure and view reads agree with what the stores hold."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "append.py"


def test_append_bench_small_writes_a_row_per_append_and_view_with_the_rereference_cost(tmp_path):
    out = tmp_path / "append.json"
    # anchors at 0 with interval 4; appending date 5 (t = 4) makes t = 4 an anchor, and t = 3 is
    # then nearer to it (1) than to anchor 0 (3): re-referencing would rewrite t = 3's data objects
    args = ["--small", "--shape", "1", "40", "40", "--chunk-size", "16", "--base-months", "4", "--appends", "2",
            "--layouts", "unsharded", "--encodings", "star-delta", "--anchor-interval", "4", "--view-steps", "3", "--output", str(out)]
    done = subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(out.read_text())
    (combo,) = doc["raw"]["combinations"]
    assert combo["validate_after"] is True
    assert [a["t"] for a in combo["appends"]] == [4, 5]
    # 40 x 40 px in 16 px cells: level 0 is 3 x 3 cells, level 1 (20 x 20) 2 x 2, level 2 (10 x 10) 1 x 1
    cells = 3 * 3 + 2 * 2 + 1
    first, second = (a["rereference"] for a in combo["appends"])
    assert first["timesteps"] == [3] and first["objects"] == cells and first["bytes"] > 0
    assert second["timesteps"] == [] and second["objects"] == 0
    # an unsharded append writes one new chunk per cell (the anchor at t = 4), none rewritten
    assert combo["appends"][0]["new"] == cells and combo["appends"][0]["rewritten"] == 0
    # views: t = 3 (a delta against anchor 0: two chunks a cell) and the last date, t = 5 (against 4)
    views = {v["t"]: v for v in combo["views"]}
    assert sorted(views) == [3, 5]
    assert views[3]["reference"] == 0 and views[3]["requests"] == 2 * 9
    assert views[5]["reference"] == 4 and views[5]["requests"] == 2 * 9
    ops = [(r["op"], r["kind"]) for r in doc["rows"]]
    assert ops == [("append date 5", "subject"), ("append date 5", "peer"), ("append date 6", "subject"), ("append date 6", "peer"),
                   ("view t=3", "subject"), ("view t=5", "subject")]
