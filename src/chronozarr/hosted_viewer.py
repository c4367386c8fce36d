"""The viewer app published beside a store (`publish --viewer`), so that `DEST/viewer/` opens the
store with nothing else deployed anywhere.

Below `viewer/` the app keeps the layout it has in `js/` (`viewer/viewer/`, `viewer/lib/`, `viewer/src/`,
`viewer/node_modules/...`), so every relative import resolves as it does there. The entry page,
`viewer/index.html`, is the app's own page with two additions at the top of its head: a `<base>`
that resolves its relative URLs in `viewer/viewer/`, and a script that, when the URL names no
`?store=`, shows the store one level up: the one it was published with. Object stores without
index documents (S3's REST endpoint) serve it as `DEST/viewer/index.html`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import ChronozarrError
from .serve import CONTENT_TYPES
from .webapps import viewer_files, web_root

PREFIX = "viewer"
# The app changes with upgrades, so browsers revalidate it (ETag) on every load.
CACHE_CONTROL = "no-cache"
_HEAD_ADDITIONS = """<head>
  <script>
    // Published with a store (chronozarr publish --viewer): without ?store= it shows that store.
    if (!new URLSearchParams(location.search).has('store')) {
      // An absolute path, so the <base> below can never redirect it.
      history.replaceState(history.state, '', location.pathname + (location.search ? location.search + '&' : '?') + 'store=../' + location.hash);
    }
  </script>
  <base href="viewer/">"""


@dataclass(frozen=True)
class ViewerObject:
    key: str  # relative to the store's destination
    body: Path | bytes
    content_type: str


def viewer_objects(root: Path | None = None) -> list[ViewerObject]:
    """Every object `--viewer` uploads, the entry page last (so the app is complete before it)."""
    root = root if root is not None else web_root()
    index = root / "viewer" / "index.html"
    if not index.is_file():
        raise ChronozarrError(f"--viewer needs the viewer app, which is not installed (no {index})")
    try:
        files = viewer_files(root)
    except FileNotFoundError as exc:
        raise ChronozarrError(f"--viewer needs the viewer app's files: {exc}") from None
    objects = [ViewerObject(f"{PREFIX}/{rel.as_posix()}", root / rel, _type(rel)) for rel in files]
    objects.append(ViewerObject(f"{PREFIX}/index.html", entry_page(index.read_text(encoding="utf-8")), _type(index)))
    return objects


def entry_page(index_html: str) -> bytes:
    """The viewer's index.html, made to work one directory up and to default to the store."""
    if index_html.count("<head>") != 1:
        raise ChronozarrError("the viewer's index.html has no single <head> to add the published store to")
    return index_html.replace("<head>", _HEAD_ADDITIONS, 1).encode("utf-8")


def _type(path: Path) -> str:
    return CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")
