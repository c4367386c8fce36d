"""A viewer URL opened in Debian's Chromium (js/e2e/page-check.mjs), for tests that start the
server themselves: the installed package's `view`, a bucket with the published viewer."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

JS = Path(__file__).resolve().parents[1] / "js"
PAGE_CHECK = JS / "e2e" / "page-check.mjs"

# tests/conftest.py marks every test skipped for this reason `browser` (make check leaves them out).
CHROMIUM_REASON = "needs /usr/bin/chromium, node and js/node_modules (make js)"
needs_chromium = pytest.mark.skipif(
    not Path("/usr/bin/chromium").exists() or not (JS / "node_modules" / "playwright-core").is_dir() or shutil.which("node") is None,
    reason=CHROMIUM_REASON,
)


def check_page(url: str, pixel: tuple[int, int] | None = None) -> dict:
    """What the page showed: {errors, error, drawn: {on, drawn}, click}; fails when it did not open."""
    args = ["node", str(PAGE_CHECK), url, *(map(str, pixel) if pixel else ())]
    result = subprocess.run(args, cwd=JS, capture_output=True, text=True, timeout=180)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert result.returncode == 0, report
    return report


def level0_url(url: str, pixel: tuple[int, int]) -> str:
    """`url` zoomed to level 0 around a pixel of conftest.make_series' grid."""
    x, y = pixel
    return f"{url}{'&' if '?' in url else '?'}z=4&c={500_000 + (x + 0.5) * 10},{5_000_000 - (y + 0.5) * 10}"


def assert_drawn(report: dict, values: np.ndarray, pixel: tuple[int, int]) -> None:
    """Every sampled pixel of the footprint drawn, no console error, and the click at `pixel`
    reporting the stored values of the timestep shown."""
    x, y = pixel
    assert report["errors"] == [] and report["drawn"]["drawn"] == report["drawn"]["on"] > 100, report
    assert report["click"]["level"] == 0 and report["click"]["pixel"] == {"x": x, "y": y}
    assert report["click"]["stored"] == values[report["click"]["t"], :, y, x].tolist()
