"""bench/composite.py checks both pipelines' monthly medians against each other before it records
a figure, so a run whose outputs differ can never be reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import composite  # noqa: E402


def test_a_tiny_run_records_both_pipelines_and_the_values_they_agree_on(tmp_path: Path) -> None:
    out = tmp_path / "composite.json"
    run = subprocess.run([sys.executable, str(BENCH / "composite.py"), "--shape", "2,2,128", "--output", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert [row["tool"] for row in doc["rows"]] == ["chronozarr", "odc-stac + xarray", "chronozarr"]
    compared = int(doc["setup"]["checked"].split()[0])
    assert compared > 0 and compared % 4 == 0  # every valid pixel's 4 bands
    assert set(doc["raw"]["targets"]) == {"wall_at_most_1_0x_odc_stac", "peak_rss_at_most_1_0x_odc_stac", "peak_rss_flat_as_the_area_doubles"}


def test_compare_refuses_a_median_that_differs(tmp_path: Path) -> None:
    import zarr

    import chronozarr
    from chronozarr.cli import app

    items = composite.write_items(tmp_path / "scenes", 1, 2, 64)
    try:
        app(["convert", str(items), str(tmp_path / "ours"), "--assets", ",".join(composite.BANDS), "--valid", "scl:4,5,6,7,11",
             "--composite", "month", "--reducer", "median", "--no-progress"], standalone_mode=False)
    except SystemExit as exc:
        assert not exc.code
    with chronozarr.open_dataset(tmp_path / "ours") as store:
        data, coverage = store.read(0), store.read_coverage(0)
    peer = zarr.open_group(tmp_path / "peer.zarr", mode="w", zarr_format=3)
    medians = peer.create_array("median", shape=(1, *data.shape), dtype="uint16")
    peer.create_array("coverage", shape=(1, *coverage.shape), dtype="uint8")[:] = coverage[None]
    medians[:] = data[None]
    assert composite.compare(tmp_path / "ours", tmp_path / "peer.zarr") == int((coverage > 0).sum()) * 4
    observed = np.argwhere(coverage > 0)[0]
    changed = data.copy()
    changed[0, observed[0], observed[1]] += 1
    medians[:] = changed[None]
    with pytest.raises(AssertionError, match="median of month 0"):
        composite.compare(tmp_path / "ours", tmp_path / "peer.zarr")
