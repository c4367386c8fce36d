"""The hostile corpus's JS driver takes the reader's JSON line whole, even when an error message in
it holds characters that Python's str.splitlines breaks lines at (U+0085, U+2028): the JSON of a
corpus run stopped on such a message after 18 minutes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_tools  # noqa: E402


@pytest.mark.parametrize("char", ["\u0085", "\u2028", "\x1c"])
def test_a_message_with_a_line_breaking_character_is_read_as_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, char: str) -> None:
    line = json.dumps({"outcome": "clear_error", "type": "StoreError", "message": f"name {char} here"}, ensure_ascii=False)
    fake_node = tmp_path / "node"
    fake_node.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write('progress\\n' + {line!r} + '\\n')\n")
    fake_node.chmod(0o755)
    monkeypatch.setattr(corpus_tools, "NODE", str(fake_node))
    result = corpus_tools.js_read(tmp_path, tmp_path, tmp_path / "out.json", baseline=0)
    assert (result["outcome"], result["message"]) == ("clear_error", f"name {char} here")
