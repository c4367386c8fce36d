"""What `chronozarr serve DIR` shows at `/`: the stores it serves, each with a link to view it,
and the viewer's directories mounted beside them so that link works."""

from __future__ import annotations

import html
import os
from collections.abc import Iterable
from urllib.parse import quote

from ..webapps import web_root
from .cache_control import CacheClasses, CachePolicy

VIEWER_DIRS = ("viewer", "lib", "src", "maplibre", "node_modules")  # what the viewer and map pages load


def stores_near(root: str, depth: int = 2) -> Iterable[str]:
    """Store prefixes at most `depth` directories below root (and root itself: "")."""
    classes = CacheClasses(root, CachePolicy())
    frontier: list[list[str]] = [[]]
    for _ in range(depth + 1):
        below: list[list[str]] = []
        for dirs in frontier:
            if classes.store_depth(dirs) == len(dirs):
                yield "/".join(dirs) + ("/" if dirs else "")
                continue
            try:
                names = sorted(e.name for e in os.scandir(os.path.join(root, *dirs)) if e.is_dir() and not e.name.startswith("."))
            except OSError:
                continue
            below.extend(dirs + [n] for n in names)
        frontier = below


def viewer_mounts(root: str) -> dict[str, str]:
    """The viewer's directories (installed package data or the checkout's js/) by URL name, those
    the served directory does not hold itself; none when the viewer page is not installed."""
    web = web_root()
    if not (web / "viewer" / "index.html").is_file():
        return {}
    return {name: str(web / name) for name in VIEWER_DIRS if (web / name).is_dir() and not os.path.lexists(os.path.join(root, name))}


def view_link(store: str) -> str:
    """The viewer page showing the store at URL path `/store` of the same server."""
    return f"/viewer/?store={quote('/' + store, safe='/')}"


def index_page(root: str, viewer: bool) -> bytes:
    """The HTML list of the stores under root, with a link to view each when the viewer is served."""
    items = []
    for store in stores_near(root):
        name = html.escape(store or "(the served directory)")
        view = f' &middot; <a href="{html.escape(view_link(store))}">view</a>' if viewer else ""
        items.append(f'<li><a href="/{html.escape(quote(store))}zarr.json">{name}</a>{view}</li>')
    body = "\n".join(items) if items else "<li>no chronozarr store here (a store is a directory with a chronozarr zarr.json)</li>"
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>chronozarr serve</title></head><body>"
        f"<h1>Stores served here</h1><ul>\n{body}\n</ul></body></html>\n"
    ).encode()
