"""`chronozarr serve DIR` as a user meets it: the URL it prints lists the stores it serves, each
with a link to the viewer, and that link opens the viewer page on the store."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import chronozarr
from chronozarr.serve import StoreServer
from conftest import make_series


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("listing")
    chronozarr.encode(make_series(n_time=2, height=16, width=16), root / "demo.zarr", crs="EPSG:32631", chunk_size=16, progress=False)
    return root


def _get(url: str) -> tuple[int, str]:
    match = re.match(r"http://([^:/]+):(\d+)(/.*)", url)
    assert match, url
    conn = http.client.HTTPConnection(match.group(1), int(match.group(2)), timeout=10)
    try:
        conn.request("GET", match.group(3))
        response = conn.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        conn.close()


def test_the_printed_url_lists_the_stores_and_the_viewer_link_opens_the_viewer(site):
    script = Path(sys.executable).parent / "chronozarr"
    child = subprocess.Popen([script, "serve", str(site), "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert child.stderr is not None
        lines: list[str] = []
        deadline = time.monotonic() + 30
        while not any("store:" in line for line in lines) and time.monotonic() < deadline:
            lines.append(child.stderr.readline())
        printed = re.search(r"(http://127\.0\.0\.1:\d+/)", lines[0])
        assert printed, lines
        status, page = _get(printed.group(1))
        assert status == 200 and "demo.zarr/" in page, page
        view = re.search(r'href="(/viewer/\?store=[^"]+)"', page)
        assert view and "demo.zarr" in view.group(1), page
        status, viewer = _get(printed.group(1).rstrip("/") + view.group(1).replace("&amp;", "&"))
        assert status == 200 and "<html" in viewer.lower()
        assert any("view: http://127.0.0.1" in line and "/viewer/?store=/demo.zarr/" in line for line in lines), lines
        assert _get(printed.group(1) + "demo.zarr/zarr.json")[0] == 200
        assert _get(printed.group(1) + "src/index.js")[0] == 200  # what the viewer page imports
    finally:
        child.kill()
        child.wait(timeout=10)


def test_a_plain_store_server_still_lists_nothing(site):
    with StoreServer(site) as server:
        assert _get(f"{server.url}/")[0] == 404
