"""ARCHITECTURE.md names only paths that exist: every backquoted path in it resolves against the
repository root, the Python package or js/, so the map cannot point at a file that moved."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "ARCHITECTURE.md"
BASES = (ROOT, ROOT / "src" / "chronozarr", ROOT / "js")
# A backquoted path: path characters with a "/" in them, or a file name with a source or document suffix.
PATH = re.compile(r"`([\w.\-]+(?:/[\w.\-]*)+|[\w.\-]+\.(?:py|js|mjs|md))`")


def named_paths(markdown: str) -> list[str]:
    """The backquoted paths of a markdown text, in order."""
    return PATH.findall(markdown)


def missing(paths: list[str]) -> list[str]:
    """The paths that exist under none of the bases."""
    return [p for p in paths if not any((base / p).exists() for base in BASES)]


def test_every_path_architecture_md_names_exists() -> None:
    paths = named_paths(DOC.read_text(encoding="utf-8"))
    assert len(paths) > 60, f"only {len(paths)} paths found: is the pattern still reading the document?"
    assert missing(paths) == []


def test_the_checker_finds_paths_and_reports_the_missing_ones() -> None:
    text = "`format/geometry.py`, `lib/load-plan.js`, `tests/test_layers.py`, `cli.py`, `write/nowhere.py`, `ObjectStore`, `zarr.json`"
    paths = named_paths(text)
    assert paths == ["format/geometry.py", "lib/load-plan.js", "tests/test_layers.py", "cli.py", "write/nowhere.py"]
    assert missing(paths) == ["write/nowhere.py"]


def test_architecture_md_answers_the_three_questions_with_files() -> None:
    """Where shard keys are computed, what decides which chunk loads next, where append grows the time axis."""
    text = DOC.read_text(encoding="utf-8")
    for question, files in {
        "Where are shard keys computed?": ["format/geometry.py", "src/reader/geometry.js"],
        "What decides which chunk loads next?": ["lib/load-plan.js", "src/reader/limiter.js"],
        "Where does append grow the time axis?": ["write/append.py", "format/root_block.py"],
    }.items():
        answer = text.split(question, 1)[1].split("\n- ", 1)[0]
        assert all(f"`{f}`" in answer for f in files), question
