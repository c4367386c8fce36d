"""info: what a store holds, as a dict and as text; cadence names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from check_stores import base_stores, build  # noqa: F401  (fixture)

from chronozarr import info
from chronozarr.check import info_text
from chronozarr.format.times import cadence


def _dates(*values: str) -> np.ndarray:
    return np.array(values, dtype="datetime64[ms]")


@pytest.mark.parametrize(
    "times, expected",
    [
        (_dates("2024-01-01"), "single timestep"),
        (_dates("2024-01-15", "2024-02-15", "2024-03-15"), "monthly"),
        (_dates("2024-01-01", "2024-04-01", "2024-07-01"), "quarterly"),
        (_dates("2020-06-01", "2021-06-01", "2022-06-01"), "yearly"),
        (_dates("2024-01-01", "2024-01-02", "2024-01-03"), "daily"),
        (_dates("2024-01-01", "2024-01-08", "2024-01-15"), "weekly"),
        (_dates("2024-01-01", "2024-01-06", "2024-01-11"), "every 5 days"),
        (_dates("2024-01-01T00", "2024-01-01T06", "2024-01-01T12"), "every 6 hours"),
        (_dates("2024-01-01", "2024-01-31", "2024-03-05", "2024-04-01"), "irregular (median 30 days)"),
    ],
)
def test_cadence(times: np.ndarray, expected: str) -> None:
    assert cadence(times) == expected


def test_info_of_a_sharded_star_delta_store(base_stores: dict[str, Path]) -> None:
    summary = info(base_stores["sharded"])
    assert summary["times"] == {"first": "2024-01-01T00:00:00Z", "last": "2024-05-01T00:00:00Z", "count": 5, "cadence": "monthly"}
    assert [b["name"] for b in summary["bands"]] == ["b0", "b1"]
    assert summary["bands"][0]["scale"] == 1.0 and summary["bands"][0]["offset"] == 0.0
    assert summary["dtype"] == "uint16" and summary["nodata"] == 0
    assert summary["encoding"]["name"] == "star-delta" and summary["encoding"]["anchor_interval"] == 2
    assert summary["encoding"]["selection_ratio"] is None
    assert summary["layout"] == {"chunk_size": 8, "sharded": True, "shard_time": 2, "codec": "zstd"}
    assert summary["mask"] and summary["coverage"]
    assert summary["crs"] == "EPSG:32631"
    assert [l["shape"] for l in summary["levels"]] == [[5, 2, 20, 18], [5, 2, 10, 9], [5, 2, 5, 5]]
    assert [l["grid"] for l in summary["levels"]] == [[3, 3], [2, 2], [1, 1]]
    assert [l["resolution"] for l in summary["levels"]] == [10.0, 20.0, 40.0]
    files = [p for p in base_stores["sharded"].rglob("*") if p.is_file()]
    assert summary["objects"] == {"count": len(files), "bytes": sum(p.stat().st_size for p in files)}


def test_info_of_an_auto_store_reports_the_selection(tmp_path: Path) -> None:
    summary = info(build(tmp_path / "auto", dtype="uint8", planes_too=False))
    enc = summary["encoding"]
    assert enc["selection_ratio"] is not None and enc["sampled_cells"] >= 1
    assert summary["layout"]["sharded"] is False and summary["layout"]["shard_time"] is None
    assert not summary["mask"] and not summary["coverage"]
    assert "chosen by auto" in info_text(summary)


def test_info_text_names_everything(base_stores: dict[str, Path]) -> None:
    text = info_text(info(base_stores["unsharded"]))
    for part in ("5 from 2024-01-01T00:00:00Z to 2024-05-01T00:00:00Z, monthly", "uint16, nodata 0", "star-delta, anchor interval 2",
                 "unsharded, chunk size 8", "mask yes, coverage yes", "EPSG:32631", "b0", "18 x 20 px (width x height), 3 x 3 cells (width x height), 10 m per pixel", "objects"):
        assert part in text, text
