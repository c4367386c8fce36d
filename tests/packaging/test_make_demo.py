"""`make demo` installs what the demo needs and nothing more, and `make test` still everything:
the commands make would run from nothing (`make -n`, in a copy of the Makefile and the files its
targets depend on), read as a user's terminal would show them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def planned(tmp_path: Path, target: str) -> str:
    """What `make -n target` would run in a checkout with no .venv and no js/node_modules."""
    for name in ("Makefile", "pyproject.toml", "setup.py", "js/package.json", "js/package-lock.json", "js/build.mjs"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    return subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True).stdout


@needs_make
def test_make_demo_installs_the_package_and_the_viewer_s_npm_packages_only(tmp_path):
    commands = planned(tmp_path, "demo")
    assert "pip install --quiet -e ." in commands and "[dev]" not in commands
    assert "npm ci --omit=dev" in commands and "apt-get" not in commands and "chromium" not in commands
    # The viewer page's bundle is built with esbuild alone, not with the dev dependencies.
    assert "npm install --prefix .tools" in commands and "esbuild@" in commands and "node build.mjs" in commands
    assert "-m chronozarr.demo demo-output --serve" in commands


@needs_make
def test_make_test_still_installs_everything(tmp_path):
    commands = planned(tmp_path, "test")
    assert "-e '.[dev]'" in commands and "apt-get install" in commands
    assert "npm ci --no-audit" in commands and "--omit=dev" not in commands
