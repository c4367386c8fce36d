"""The benchmark report generator (bench/report.py): ratios, targets and tables from results
documents built here by hand, so that every expected figure is computed independently."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import record  # noqa: E402
import report  # noqa: E402


def _doc(rows: list[dict]) -> dict:
    return record.document(
        "read", "Reads", machine={"cpu_count": 2, "platform": "test", "memory_bytes": 2**34, "load_average": [0.1, 0.1, 0.1]},
        date="2026-12-01T00:00:00+00:00", setup={"store": "tiny"},
        metrics=[record.metric("seconds", "time", "s", primary=True), record.metric("bytes", "bytes", "B")], rows=rows,
    )


def _row(tool: str, kind: str, seconds: list[float], **extra) -> dict:
    return record.row("local", "frame", tool, kind, f"{tool} reads a frame", {"seconds": record.stats(seconds)}, **extra)


def test_ratios_are_the_subjects_median_over_each_other_rows_median():
    doc = _doc([_row("chronozarr", "subject", [0.2, 0.1, 0.3]), _row("zarr", "peer", [0.4, 0.5, 0.6]), _row("floor", "floor", [0.05])])
    (verdict,) = report.verdicts(doc)
    ratios = {p["tool"]: p["ratio"] for p in verdict["pairs"]}
    assert ratios == {"zarr": pytest.approx(0.2 / 0.5), "floor": pytest.approx(0.2 / 0.05)}


def test_a_subject_behind_a_peer_or_far_above_its_floor_misses_and_says_by_how_much():
    doc = _doc([_row("chronozarr", "subject", [0.3]), _row("zarr", "peer", [0.2]), _row("floor", "floor", [0.1])])
    (verdict,) = report.verdicts(doc)
    assert [(p["tool"], p["met"]) for p in verdict["misses"]] == [("zarr", False), ("floor", False)]
    lines = report.misses_text(doc)
    assert "1.50x zarr" in lines[0] and "3.00x the floor" in lines[1]


def test_peers_doing_other_work_and_floors_without_a_target_are_compared_but_never_missed():
    doc = _doc([
        _row("chronozarr", "subject", [0.3]),
        _row("level0 only", "peer", [0.1], same_work=False),
        _row("decode only", "floor", [0.01], target=False),
        _row("io and decode", "floor", [0.26]),
    ])
    (verdict,) = report.verdicts(doc)
    assert verdict["misses"] == []
    assert {p["tool"]: p["target"] for p in verdict["pairs"]} == {"level0 only": None, "decode only": None, "io and decode": "<= 1.2x floor"}


def test_the_profile_of_a_missing_row_is_quoted_next_to_the_miss():
    doc = _doc([_row("chronozarr", "subject", [0.3], profile={"summary": "own time: zstd 80%"}), _row("zarr", "peer", [0.2])])
    assert report.misses_text(doc) == ["- local / frame: chronozarr at 1.50x zarr (target ahead (< 1x)); profile: own time: zstd 80%"]


def test_the_table_has_one_line_per_row_with_work_spread_and_verdict():
    doc = _doc([_row("chronozarr", "subject", [0.002, 0.001, 0.003]), _row("zarr", "peer", [0.004])])
    lines = report.markdown_table(doc).splitlines()
    assert len(lines) == 2 + 2
    assert "chronozarr reads a frame" in lines[2] and "2.0 ms (1.0 ms - 3.0 ms, n=3)" in lines[2] and "missed" not in lines[2]
    assert "| 0.50x ok | ahead (< 1x) |" in lines[3]


@pytest.mark.parametrize(("value", "unit", "text"), [
    (0.0123, "s", "12.3 ms"), (2.5, "s", "2.50 s"), (1500, "ms", "1.50 s"), (12.0, "ms", "12.0 ms"),
    (2_500_000, "B", "2.5 MB"), (25_000_000, "B", "25 MB"), (3, "count", "3"), (None, "s", "-"),
])
def test_figures_are_written_in_the_unit_a_reader_expects(value, unit, text):
    assert report.fmt(value, unit) == text


def test_only_documents_in_the_results_format_are_read_and_the_others_named(tmp_path):
    (tmp_path / "read.json").write_text(json.dumps(_doc([_row("chronozarr", "subject", [0.1])])))
    (tmp_path / "old.json").write_text(json.dumps({"date": "x", "local": {}}))
    (tmp_path / "broken.json").write_text("{")
    docs, skipped = report.load(sorted(tmp_path.glob("*.json")))
    assert [d["benchmark"] for d in docs] == ["read"] and skipped == ["broken.json", "old.json"]


def test_stats_reject_an_empty_list_and_row_rejects_an_unknown_kind():
    with pytest.raises(ValueError):
        record.stats([])
    with pytest.raises(ValueError, match="kind"):
        record.row("g", "op", "t", "winner", "w", {})


def test_a_benchmarks_notes_follow_its_section_and_only_its_own(tmp_path):
    images = tmp_path / "benchmarks"
    images.mkdir()
    (images / "read-notes.md").write_text("The frame row is ahead because ...\n")
    (images / "encode-notes.md").write_text("not this one\n")
    out = report.write_report([_doc([_row("chronozarr", "subject", [0.1]), _row("zarr", "peer", [0.2])])], tmp_path / "benchmarks.md", images)
    text = out.read_text()
    assert "The frame row is ahead because ..." in text and "not this one" not in text
    assert text.index("## Reads") < text.index("The frame row is ahead")
