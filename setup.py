"""Build hook: the wheel and the sdist carry the browser apps as package data (`chronozarr/web/`).

The JavaScript lives once, in `js/`; building copies it. Whole directories are copied (the viewer,
the reader, the MapLibre page), so a file added there ships without a change here, and so are the
few browser files of the npm packages those pages load, each with its licence. An editable install
copies nothing: `chronozarr.view` then serves `js/` of the checkout itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
JS = ROOT / "js"
PACKAGE_DIR = "chronozarr/web"
APPS = ("viewer", "src", "maplibre")
# npm packages the pages import, by what the browser fetches: MapLibre GL JS (BSD-3-Clause) for
# the map page, numcodecs and fflate (MIT) for the reader's codecs.
VENDORED = {
    "node_modules/maplibre-gl": ("LICENSE.txt", "dist/maplibre-gl.mjs", "dist/maplibre-gl-worker.mjs", "dist/maplibre-gl.css"),
    "node_modules/numcodecs": ("LICENSE", "dist/*.js"),
    "node_modules/fflate": ("LICENSE", "esm/browser.js"),
}


def web_files() -> list[Path]:
    """Every file under js/ that ships, or an error that says how to get the missing ones."""
    files: list[Path] = []
    for app in APPS:
        files += sorted(p for p in (JS / app).rglob("*") if p.is_file() and not _hidden(p.relative_to(JS)))
    for package, patterns in VENDORED.items():
        for pattern in patterns:
            found = sorted((JS / package).glob(pattern))
            if not found:
                raise SystemExit(
                    f"building chronozarr needs js/{package}/{pattern}: run `make js` (npm ci in js/) first"
                )
            files += found
    if not (JS / "viewer" / "index.html").is_file():
        raise SystemExit("building chronozarr needs js/viewer/index.html: build from a checkout or an sdist")
    return files


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in relative.parts)


class BuildWithWeb(build_py):
    """build_py, then js/ into the built package (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for path in web_files():
            target = Path(self.build_lib) / PACKAGE_DIR / path.relative_to(JS)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


class SdistWithWeb(sdist):
    """An sdist that builds the same wheel: the shipped js/ files go into it too."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        for path in web_files():
            target = Path(base_dir) / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


setup(cmdclass={"build_py": BuildWithWeb, "sdist": SdistWithWeb})
