"""bench/region.py checks chronozarr's region series against xarray's masked reduction before it
records a figure, so a run whose values differ can never be reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import region  # noqa: E402

TINY = {"n_time": 6, "height": 48, "width": 64, "chunk": 16, "region": 20}


def test_a_tiny_run_records_every_tool_with_the_values_they_agree_on(tmp_path: Path) -> None:
    out = tmp_path / "region.json"
    shape = ",".join(str(TINY[k]) for k in ("n_time", "height", "width", "chunk", "region"))
    run = subprocess.run([sys.executable, str(BENCH / "region.py"), "--shape", shape, "--runs", "1", "--work", str(tmp_path),
                          "--output", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert [(r["tool"], r["kind"]) for r in doc["rows"]] == [
        ("chronozarr, store with the history array", "subject"), ("chronozarr, no history array", "peer"), ("xarray + dask", "peer")]
    assert [r["facts"]["source"] for r in doc["rows"][:2]] == ["history", "chunks"]
    assert all(r["values"]["requests"]["median"] > 0 and r["values"]["seconds"]["median"] > 0 for r in doc["rows"])
    # every (time, band) statistic of the 4 bands compared: 6 dates x 4 bands x 4 statistics
    assert doc["setup"]["values"].startswith(f"{6 * 4 * 4} statistics equal")
    assert "load_average_at_start" in doc["machine"]
    assert set(doc["raw"]["ratios_to_peers"]) == {"chronozarr, no history array", "xarray + dask"}


def test_a_run_at_a_coarser_level_reads_that_levels_history(tmp_path: Path) -> None:
    """--lod 1: every tool reads level 1; chronozarr's store with history answers from history_1 (format 1.3)."""
    out = tmp_path / "region-lod1.json"
    shape = ",".join(str(TINY[k]) for k in ("n_time", "height", "width", "chunk", "region"))
    run = subprocess.run([sys.executable, str(BENCH / "region.py"), "--shape", shape, "--runs", "1", "--work", str(tmp_path), "--lod", "1",
                          "--output", str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "region-lod1" and "read at level 1" in doc["rows"][0]["op"]
    assert [r["facts"]["source"] for r in doc["rows"][:2]] == ["history", "chunks"]


def test_the_box_holds_exactly_the_centred_pixels(tmp_path: Path) -> None:
    plain, _ = region.write_stores(tmp_path, TINY)
    box, (rows, cols) = region.region_box(plain, TINY)
    import chronozarr

    with chronozarr.open_store(plain) as store:
        data, mask = store.read(0), store.read_mask(0)
        bands = store.bands
        series = store.read_region_series(box)
    assert (rows.stop - rows.start, cols.stop - cols.start) == (20, 20)
    part, ok = data[:, rows, cols].astype(np.float64), mask[rows, cols] == 1
    expected = [np.mean(part[b][ok] * bands[b].scale + bands[b].offset) for b in range(len(bands))]
    np.testing.assert_allclose(series["mean"].values[0], expected, rtol=1e-12)
    assert series["valid_pixels"].values[0].tolist() == [int(ok.sum())] * len(bands)


def test_agree_refuses_a_statistic_that_differs() -> None:
    ours = {"mean": np.array([[1.0, np.nan]]), "std": np.zeros((1, 2)), "min": np.zeros((1, 2)), "max": np.ones((1, 2)),
            "valid_pixels": np.array([[4, 0]])}
    assert region.agree("same", ours, {k: v.copy() for k, v in ours.items()}) == 2 * 4
    other = {**ours, "mean": np.array([[1.0 + 1e-6, np.nan]])}
    with pytest.raises(SystemExit, match="mean differs"):
        region.agree("peer", ours, other)
    with pytest.raises(SystemExit, match="valid pixel counts"):
        region.agree("peer", ours, {**ours, "valid_pixels": np.array([[3, 0]])})
