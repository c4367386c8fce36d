"""Build hook: the wheel and the sdist carry the browser apps as package data (`chronozarr/web/`).

The JavaScript lives once, in `js/`; building copies the files `chronozarr.webapps` lists (whole
app directories, and the browser files of the npm packages they load, with their licences). An
editable install copies nothing: `chronozarr.view` then serves `js/` of the checkout itself.
"""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
JS = ROOT / "js"
PACKAGE_DIR = "chronozarr/web"
# Read by path: the package is not importable while it is being built.
shipped_files = runpy.run_path(str(ROOT / "src" / "chronozarr" / "webapps.py"))["shipped_files"]


def web_files() -> list[Path]:
    """Every shipped file, relative to js/, or an error that says how to get the missing ones."""
    if not (JS / "viewer" / "index.html").is_file():
        raise SystemExit("building chronozarr needs js/viewer/index.html: build from a checkout or an sdist")
    try:
        return shipped_files(JS)
    except FileNotFoundError as exc:
        raise SystemExit(f"building chronozarr needs the browser files of js/node_modules ({exc}): run `make js` first") from None


def _copy(files: list[Path], source: Path, target: Path) -> None:
    for relative in files:
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / relative, target / relative)


class BuildWithWeb(build_py):
    """build_py, then the shipped js/ files into the built package (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            _copy(web_files(), JS, Path(self.build_lib) / PACKAGE_DIR)


class SdistWithWeb(sdist):
    """An sdist that builds the same wheel: the shipped js/ files go into it too."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _copy(web_files(), JS, Path(base_dir) / "js")


setup(cmdclass={"build_py": BuildWithWeb, "sdist": SdistWithWeb})
