"""`add_chronozarr`: a store drawn on a leafmap or geemap MapLibre map in a notebook.

`leafmap.maplibregl.Map` and `geemap.maplibregl.Map` are the `maplibre` package's anywidget
MapWidget, whose front end can only call map methods with JSON arguments. The helper swaps in a
front end (`js/maplibre/notebook.js`) that imports the widget's own and turns one queued
`addLayer` into chronozarr's MapLibre layer, fitted to the store, with a date slider under the map.
The reader and the layer come from the local server `view` runs (which also serves a local store
with ranges and CORS), so nothing is fetched from the internet; the browser must reach that
server (`base_url` names it for a remote kernel behind a proxy or an SSH forward).
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from .deprecation import old_names
from .errors import ChronozarrError
from .extras import import_extra
from .view import _ViewRoot, is_url, start_view
from .webapps import web_root

BRIDGE = "maplibre/notebook.js"
CODECS = {
    "zstd": "node_modules/numcodecs/dist/zstd.js",
    "blosc": "node_modules/numcodecs/dist/blosc.js",
    "gzip": "node_modules/numcodecs/dist/gzip.js",
    "zstddec": "node_modules/zstddec/dist/zstddec.mjs",
}
_WRAPPER = """const original = (await import(URL.createObjectURL(new Blob([{original}], {{ type: 'text/javascript' }})))).default;
const {{ wrapMapWidget }} = await import({bridge});
export default wrapMapWidget(original, {{ codecs: {codecs} }});
"""


@dataclass
class MapLayer:
    """A chronozarr layer on a notebook map: the layer's calls, and what the page last reported (`times`
    once the store opened, the timestep `t` the slider or set_time chose, the last `error`)."""

    map: Any
    name: str
    url: str
    t: int = 0
    times: list[str] = field(default_factory=list)
    error: str | None = None

    def set_time(self, t: int) -> None:
        self.map.add_call("chronozarr", self.name, "setTime", int(t))
        self.t = int(t)

    def set_product(self, product: str, band: int | str | None = None) -> None:
        self.map.add_call("chronozarr", self.name, "setProduct", product, *([] if band is None else [band]))

    def set_opacity(self, opacity: float) -> None:
        self.map.add_call("chronozarr", self.name, "setOpacity", float(opacity))

    def _message(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("chronozarr") != self.name:
            return
        if message.get("event") == "open":
            self.times = list(message.get("times") or [])
        if "t" in message:
            self.t = int(message["t"])
        if message.get("event") == "error":
            self.error = str(message.get("message"))


_ROOT: list[_ViewRoot] = []
_ROOT_LOCK = threading.Lock()


def _map_root() -> _ViewRoot:
    """One server per process for every map: the layer's modules and codecs, and local stores
    (the viewer page's bundles are not needed here, unlike for `view`)."""
    with _ROOT_LOCK:
        if not _ROOT:
            _ROOT.append(_ViewRoot(web_root(), port=0))
            atexit.register(_ROOT[0].close)
        return _ROOT[0]


def add_chronozarr(
    m: Any,
    url: str | os.PathLike[str],
    *,
    t: int = 0,
    product: str | None = None,
    opacity: float = 1.0,
    fit_bounds: bool = True,
    name: str = "chronozarr",
    reader_url: str | None = None,
    base_url: str | None = None,
) -> MapLayer:
    """Draw the store at `url` (a directory or an http(s) URL) on `m`, a leafmap or geemap
    `maplibregl.Map` not yet displayed; returns the handle that moves it through time."""
    widget = import_extra("maplibre.ipywidget", "leafmap", "add_chronozarr")
    if not isinstance(m, widget.MapWidget):
        raise ChronozarrError(f"add_chronozarr draws on a leafmap.maplibregl.Map or geemap.maplibregl.Map, not a {type(m).__name__}")
    if m._rendered:
        raise ChronozarrError("add_chronozarr must be called before the map is displayed (the map's page code is replaced then)")
    stores: dict[str, MapLayer] = m.__dict__.setdefault("_chronozarr_stores", {})
    if name in stores:
        raise ChronozarrError(f"this map already has a chronozarr layer named {name!r}; give each layer its own name")
    root = _map_root()
    text = os.fspath(url)
    store_url = text if is_url(text) else start_view(text, root=root).store_url
    root.server.start()
    served = root.server.url
    base = (base_url or served).rstrip("/")
    if base_url and store_url.startswith(served):
        store_url = base + store_url[len(served):]
    if "_chronozarr_original_esm" not in m.__dict__:
        m.__dict__["_chronozarr_original_esm"] = m._esm
        m._esm = _WRAPPER.format(
            original=json.dumps(m._esm),
            bridge=json.dumps(reader_url or f"{base}/{BRIDGE}"),
            codecs=json.dumps({codec: f"{base}/{path}" for codec, path in CODECS.items()}),
        )

        def received(_widget: Any, message: Any, _buffers: Any) -> None:
            for each in stores.values():
                each._message(message)

        m.on_msg(received)
    spec = {"url": store_url, "name": name, "t": int(t), "product": product, "opacity": float(opacity), "fitBounds": bool(fit_bounds)}
    m.add_call("addLayer", {"chronozarr": spec})
    stores[name] = MapLayer(m, name, store_url, t=int(t))
    return stores[name]


# MapStore, this release's old name of MapLayer (CHANGELOG.md), with a DeprecationWarning.
__getattr__ = old_names(__name__, {"MapStore": MapLayer})
