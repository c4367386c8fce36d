"""The browser apps the package carries: which files of `js/` ship, and where they are now.

One list, shared by the build (`setup.py` copies these files into the wheel and the sdist), by
`view` (which serves them) and by `publish --viewer` (which uploads the viewer's share of them).
It imports nothing of ours, so `setup.py` can run it by path before the package is built.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

# Whole directories of js/: a file added to one of them ships without a change here.
APPS = ("viewer", "lib", "src", "maplibre")
# The files of npm packages the pages import, each with its licence: MapLibre GL JS (BSD-3-Clause)
# for the map page, zstddec (MIT, with zstd's BSD licence), numcodecs and fflate (MIT) for the
# reader's codecs.
VENDORED = {
    "node_modules/maplibre-gl": ("LICENSE.txt", "dist/maplibre-gl.mjs", "dist/maplibre-gl-worker.mjs", "dist/maplibre-gl.css"),
    "node_modules/zstddec": ("LICENSE", "dist/zstddec.mjs"),
    "node_modules/numcodecs": ("LICENSE", "dist/*.js"),
    "node_modules/fflate": ("LICENSE", "esm/browser.js"),
}
# Made from the apps by js/build.mjs (`make js`): the viewer page loads its app and decode worker as
# these bundles, so a tree without them has a viewer page that cannot start.
BUILT = ("viewer/dist/viewer.js", "viewer/dist/decode-worker.js")
# What the viewer page loads: the app, the library it shares with the map layer, the reader and the
# codecs (not the map page or MapLibre).
VIEWER_APP = ("viewer", "lib", "src", "node_modules/zstddec", "node_modules/numcodecs", "node_modules/fflate")


def shipped_files(root: Path) -> list[Path]:
    """The shipped files under `root` (js/ or the installed copy), relative to it, in order.
    Raises FileNotFoundError naming a vendored or built file that is not there."""
    missing = [name for name in BUILT if not (root / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{root / missing[0]} is missing (built by `make js`)")
    files: list[Path] = []
    for app in APPS:
        files += sorted(p.relative_to(root) for p in (root / app).rglob("*") if p.is_file() and not _hidden(p.relative_to(root)))
    for package, patterns in VENDORED.items():
        for pattern in patterns:
            found = sorted(p.relative_to(root) for p in (root / package).glob(pattern))
            if not found:
                raise FileNotFoundError(f"{root / package / pattern} is missing")
            files += found
    return files


def viewer_files(root: Path) -> list[Path]:
    """The shipped files the viewer page needs, relative to `root`."""
    return [p for p in shipped_files(root) if any(p.as_posix().startswith(f"{part}/") for part in VIEWER_APP)]


def web_root() -> Path:
    """Where the apps are: the installed package data (`chronozarr/web/`), else `js/` of a source
    checkout (an editable install), whichever holds the viewer page."""
    packaged = Path(str(importlib.resources.files("chronozarr").joinpath("web")))
    if (packaged / "viewer" / "index.html").is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "js"  # src/chronozarr/webapps.py -> js/


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in relative.parts)
