"""Progress off a terminal: a line as each long phase starts and one as it ends, so a log shows
progress; nothing with --no-progress; on a real process whose stderr is a pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from chronozarr.progress import progress_bar, work_bar

SRC = Path(__file__).resolve().parents[1] / "src"


def test_off_a_terminal_each_phase_prints_a_start_and_an_end_line(capsys):
    with progress_bar("exporting", 3) as advance:
        advance(3)
    with work_bar("encoding", 2_000_000, 5) as bar:
        bar.unit_done()
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "exporting: 3 steps ..." and err[1].startswith("exporting: done in ")
    assert err[2] == "encoding: 5 tasks, 2.0 MB ..." and err[3].startswith("encoding: done in ")


def test_no_progress_prints_nothing(capsys):
    with progress_bar("exporting", 3, enabled=False), work_bar("encoding", 10, 1, enabled=False):
        pass
    assert capsys.readouterr().err == ""


def test_the_demo_in_a_log_shows_its_phases(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    done = subprocess.run(
        [sys.executable, "-c", "from chronozarr.cli import main; main()", "demo", str(tmp_path), "--small", "--no-serve"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    for phase in ("generating", "encoding"):
        assert any(line.startswith(f"{phase}: ") and line.endswith(" ...") for line in lines), lines
        assert any(line.startswith(f"{phase}: done in ") for line in lines), lines
