"""`view`: look at a store in the browser viewer, from a terminal or inline in a notebook.

A local store is served by `StoreServer` from a temporary root laid out as links: `store/NAME/` is
the store (NAME its directory's name, which the viewer shows as its title), and every directory of
the browser apps (`viewer/`, `src/`, `maplibre/`, `node_modules/`) sits next to `store/`, so the
viewer page reads the store from its own origin at `/store/NAME/`. The apps are
the package data an installed wheel carries (`chronozarr/web/`, copied from `js/` when the wheel is
built), or `js/` itself in a source checkout. A URL is not served: only
the viewer page is, and it reads the store from where it lives. One server per process backs every
`chronozarr.view(...)` call of a notebook session.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import webbrowser
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import StoreError
from .notebook_widget import widget_class
from .serve import StoreServer
from .webapps import BUILT, web_root

STORE_MOUNT = "store"
NOT_INSTALLED = (
    "the viewer page is not installed (no viewer/index.html and its bundles in the package data or the"
    " checkout's js/; in a checkout, `make js` builds them)"
)


@dataclass(frozen=True)
class ViewSession:
    """What `view` started: the URL to open, the store URL, and the server (None for a URL store
    without a viewer page, where nothing needs serving); `map_url` is the MapLibre demo page on the
    same store, when it and MapLibre (a development dependency of js/) are installed."""

    url: str
    store_url: str
    server: StoreServer | None
    viewer_installed: bool
    map_url: str | None = None


def viewer_installed(js_dir: str | os.PathLike[str] | None = None) -> bool:
    root = Path(js_dir or web_root())
    return all((root / name).is_file() for name in ("viewer/index.html", *BUILT))


def map_page_installed(js_dir: str | os.PathLike[str] | None = None) -> bool:
    js = Path(js_dir or web_root())
    return (js / "maplibre" / "index.html").is_file() and (js / "node_modules" / "maplibre-gl").is_dir()


def is_url(store: str | os.PathLike[str]) -> bool:
    return os.fspath(store).startswith(("http://", "https://"))


class _ViewRoot:
    """A temporary server root of links, and the one server on it, shared by the process."""

    def __init__(self, js_dir: Path | None, port: int, host: str = "127.0.0.1") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="chronozarr-view-"))
        self.server = StoreServer(self.dir, host=host, port=port)
        self.mounts: dict[str, str] = {}  # real store path -> mount name
        self.lock = threading.Lock()
        if js_dir is not None:
            for entry in sorted(js_dir.iterdir()):
                if entry.name != STORE_MOUNT and not entry.name.startswith(".") and entry.is_dir():
                    self._link(entry.name, entry)

    def _link(self, name: str, target: Path) -> None:
        self.server.allow_links_to(target)
        (self.dir / name).parent.mkdir(exist_ok=True)
        (self.dir / name).symlink_to(target.resolve(), target_is_directory=True)

    def mount(self, store: Path) -> str:
        """The URL path (`store/NAME`, then `store-2/NAME`, ...) the store is served at: its last
        segment is the store's own name, which the viewer takes for its title."""
        real = os.path.realpath(store)
        with self.lock:
            if real not in self.mounts:
                n = len(self.mounts) + 1
                folder = STORE_MOUNT if n == 1 else f"{STORE_MOUNT}-{n}"
                name = f"{folder}/{Path(real).name or STORE_MOUNT}"
                self._link(name, Path(real))
                self.mounts[real] = name
            return self.mounts[real]

    def close(self) -> None:
        self.server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)  # removes the links, never what they point to


def viewer_url(server_url: str, store_url: str, page: str = "viewer") -> str:
    return f"{server_url}/{page}/?store={quote(store_url, safe=':/')}"


def start_view(
    store: str | os.PathLike[str],
    *,
    port: int = 0,
    js_dir: str | os.PathLike[str] | None = None,
    root: _ViewRoot | None = None,
) -> ViewSession:
    """Start serving what `view` needs for `store` and return the URL to open. The server runs on
    a background thread; stop it with `session.server.stop()` (a shared root stops at exit)."""
    js = Path(js_dir) if js_dir is not None else web_root()
    installed = viewer_installed(js)
    text = os.fspath(store)
    if is_url(text):
        if not installed:
            return ViewSession(text, text, None, False)
        view_root = root or _ViewRoot(js, port)
        view_root.server.start()
        return _session(view_root.server, text, js)
    if not (Path(text) / "zarr.json").is_file():
        raise StoreError(f"no store at {text!r}: there is no zarr.json in it")
    view_root = root or _ViewRoot(js if installed else None, port)
    name = view_root.mount(Path(text))
    view_root.server.start()
    store_url = f"{view_root.server.url}/{quote(name)}/"
    if not installed:
        return ViewSession(store_url, store_url, view_root.server, False)
    return _session(view_root.server, store_url, js)


def _session(server: StoreServer, store_url: str, js: Path) -> ViewSession:
    """The pages on `server` that show `store_url`: the viewer, and the map page when installed."""
    map_url = viewer_url(server.url, store_url, "maplibre") if map_page_installed(js) else None
    return ViewSession(viewer_url(server.url, store_url), store_url, server, True, map_url)


def view_command(store: str, *, port: int = 0, open_browser: bool = False, echo: Any = print) -> int:
    """Entry point of `chronozarr view`: serve until Ctrl-C; returns the exit status."""
    session = start_view(store, port=port)
    if session.server is None:
        echo(f"Store: {session.store_url}")
        echo(f"Note: {NOT_INSTALLED}; open the store URL with a viewer of your own")
        return 0
    if session.viewer_installed:
        echo(f"Viewer: {session.url}")
        if session.map_url:
            echo(f"On a map (MapLibre): {session.map_url}")
    else:
        echo(f"Store: {session.store_url}")
        echo(f"Note: {NOT_INSTALLED}; the store is served with ranges and CORS for any viewer")
    if open_browser:
        webbrowser.open(session.url)
    echo("Serving until Ctrl-C")
    try:
        _wait_until_interrupted()
    except KeyboardInterrupt:
        pass
    finally:
        session.server.stop()
    return 0


def _wait_until_interrupted() -> None:
    threading.Event().wait()


# -- notebooks -----------------------------------------------------------------------------------

_SHARED: _ViewRoot | None = None
_SHARED_LOCK = threading.Lock()


def _shared_root() -> _ViewRoot:
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = _ViewRoot(web_root() if viewer_installed() else None, port=0)
            atexit.register(_SHARED.close)
        return _SHARED


def view(store: str | os.PathLike[str], *, height: int = 480) -> Any:
    """The viewer for `store` as a notebook widget (anywidget): an iframe on a server this
    process keeps running, shared by every call, with the embed API from Python (notebook_widget)."""
    widget = widget_class()
    session = start_view(store, root=_shared_root()) if not is_url(store) or viewer_installed() else start_view(store)
    return widget(os.fspath(store), url=session.url, height=int(height))
