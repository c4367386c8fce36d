"""A folder served over HTTP by `chronozarr serve` in its own process, for the input tests
(imported by their conftest files)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def http_site(tmp_path):
    """A folder served over HTTP by `chronozarr serve` in its own process: GDAL holds the GIL while
    it opens a file, so a server thread in the test process could not answer it."""
    site = tmp_path / "site"
    site.mkdir()
    script = Path(sys.executable).parent / "chronozarr"
    server = subprocess.Popen([script, "serve", site, "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+", server.stderr.readline()).group(0)
        yield site, url
    finally:
        server.terminate()
        server.wait(timeout=10)
