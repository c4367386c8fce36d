"""The hostile corpus's report pools a reader's runs: make fuzz's run, then runs of that reader
alone to reach a number of stores, count as one corpus whose minutes add up."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_report  # noqa: E402


def _run(path: Path, outcomes: list[str], seconds: float | None) -> None:
    lines = [{"store": f"{i:06d}", "kind": "chunk_bytes", "checksum": False, "single_chunk": False,
              "tools": {"python": {"outcome": o}}} for i, o in enumerate(outcomes)]
    if seconds is not None:
        lines.append({"summary": True, "seconds": seconds, "commit": path.stem[-1], "stores": len(outcomes)})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_the_runs_of_a_reader_are_pooled_and_their_minutes_added(tmp_path: Path) -> None:
    _run(tmp_path / "corpus-python.jsonl", ["correct", "clear_error"], 1800.0)
    _run(tmp_path / "corpus-python-2.jsonl", ["correct"], 600.0)
    _run(tmp_path / "corpus-js.jsonl", ["correct"], 1800.0)
    runs = corpus_report.load(tmp_path)
    stores, summary = runs["python"]
    assert [x["tools"]["python"]["outcome"] for x in stores] == ["correct", "clear_error", "correct"]
    assert summary == {"seconds": 2400.0, "runs": 2, "serve_tracebacks": 0, "commits": ["n (2 stores)", "2 (1 stores)"]}
    text = "\n".join(corpus_report.render(runs))
    assert "3 given to the" in text and "40.0 minutes over 2 runs" in text and "Python corpus ran on commit n (2 stores), 2 (1 stores)" in text


def test_a_run_without_its_summary_makes_the_corpus_unfinished(tmp_path: Path) -> None:
    _run(tmp_path / "corpus-python.jsonl", ["correct"], 1800.0)
    _run(tmp_path / "corpus-python-2.jsonl", ["correct"], None)
    _run(tmp_path / "corpus-js.jsonl", ["correct"], 1800.0)
    runs = corpus_report.load(tmp_path)
    assert runs["python"][1] is None
    assert "a corpus run did not finish" in "\n".join(corpus_report.render(runs))


def test_a_traceback_of_serve_fails_the_corpus(tmp_path: Path) -> None:
    _run(tmp_path / "corpus-python.jsonl", ["correct"], 1800.0)
    _run(tmp_path / "corpus-js.jsonl", ["correct"], 1800.0)
    lines = (tmp_path / "corpus-python.jsonl").read_text().splitlines()
    lines[-1] = json.dumps({**json.loads(lines[-1]), "serve_tracebacks": 2})
    (tmp_path / "corpus-python.jsonl").write_text("\n".join(lines) + "\n")
    runs = corpus_report.load(tmp_path)
    assert corpus_report.failures(runs) == 2
    text = "\n".join(corpus_report.render(runs))
    assert "printed 2 tracebacks" in text and "**FAILED**" in text
