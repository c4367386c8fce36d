"""The viewer as a notebook widget, with the embed API from Python.

`chronozarr.view(store)` in a notebook returns a `ViewerWidget`: the viewer in an iframe (its front
end is `js/viewer/notebook-widget.js`), which relays the embedding contract's messages. From
Python, `set(t=..., product=...)` sends a `chronozarr:set` and records the state asked for (a date
resolves to a timestep as the viewer resolves it), and the viewer's messages come back as traits
(`t`, `time`, `product`, `band`, `ready`, `view`) and as `Click` objects (`clicks`, `on_click`);
`pixel_history(click)` reads the clicked pixel's whole series from the store with the Python
reader, as exact stored values with the physical ones beside them.
"""

from __future__ import annotations

import bisect
import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InputError, MissingExtraError
from .read.physical import physical_values
from .webapps import web_root

FRONT_END = "viewer/notebook-widget.js"
PRODUCTS = ("true_color", "false_color", "ndvi", "ndwi", "water", "band")
SPEEDS = (*range(1, 16), 20, 24, 30, 40, 48, 60)


@dataclass(frozen=True)
class Click:
    """A `chronozarr:click` as Python sees it: the full-resolution pixel (column x, row y), its
    WGS84 centre (None without one), the timestep and level drawn, and each band's physical value
    (None where invalid)."""

    x: int
    y: int
    lon: float | None
    lat: float | None
    t: int
    time: str
    level: int
    valid: bool
    values: dict[str, float | None]

    @classmethod
    def from_message(cls, msg: dict[str, Any]) -> Click:
        pixel = msg.get("pixel") or {}
        return cls(int(pixel["x"]), int(pixel["y"]), msg.get("lon"), msg.get("lat"), int(msg["t"]), str(msg["time"]),
                   int(msg.get("level", 0)), bool(msg.get("valid")), dict(msg.get("values") or {}))


def nearest_timestep(times: list[np.datetime64], when: str) -> int:
    """The timestep nearest a date (ISO 8601, UTC when it has no zone), the earlier on a tie and the
    first or last outside the series: the embedding contract's rule for a `t` given as a string."""
    try:
        moment = _dt.datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"t must be a timestep index or an ISO 8601 date such as '2024-03-01', got {when!r}") from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(_dt.UTC).replace(tzinfo=None)
    target = np.datetime64(moment, "ms").astype(np.int64)
    axis = [np.datetime64(t, "ms").astype(np.int64) for t in times]
    i = bisect.bisect_left(axis, target)
    if i == 0 or i == len(axis):
        return min(i, len(axis) - 1)
    return i - 1 if target - axis[i - 1] <= axis[i] - target else i


def widget_class() -> type:
    """The anywidget class (made on first use: anywidget is the `notebook` extra)."""
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise MissingExtraError(
            "chronozarr.view in a notebook needs anywidget: pip install 'chronozarr[notebook]' (or use the "
            "`chronozarr view STORE` command, which needs nothing extra)"
        ) from None
    global _CLASS
    if _CLASS is not None:
        return _CLASS

    class ViewerWidget(anywidget.AnyWidget):
        """The viewer in a cell; `set` drives it, the traits and `clicks` say what it shows."""

        _esm = (web_root() / FRONT_END).read_text(encoding="utf-8")
        url = traitlets.Unicode("").tag(sync=True)
        height = traitlets.Int(480).tag(sync=True)
        _asked = traitlets.Dict().tag(sync=True)
        t = traitlets.Int(0).tag(sync=True)
        time = traitlets.Unicode("").tag(sync=True)
        product = traitlets.Unicode("").tag(sync=True)
        band = traitlets.Unicode("").tag(sync=True)
        ready = traitlets.Dict()
        view = traitlets.Dict()
        errors: Any = traitlets.List()

        def __init__(self, location: str, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            from .read.dataset import open_dataset

            self._store = open_dataset(location)
            self.clicks: list[Click] = []
            self._on_click: list[Callable[[Click], Any]] = []
            self.time = _iso(self._store.times[0])
            self.on_msg(lambda _w, msg, _b: self.receive(msg))

        def set(self, **fields: Any) -> None:
            """Change the view, as `chronozarr:set` does: t (an index or a date), product, band,
            zoom, center, playing, speed, compare. Checked here first; the state asked for is kept."""
            msg = _checked_set(self._store, fields)
            self._asked = {**self._asked, **msg}
            for key in ("t", "product", "band"):
                if key in msg:
                    setattr(self, key, msg[key])
            if "t" in msg:
                self.time = _iso(self._store.times[msg["t"]])
            self.send({"v": 1, "type": "chronozarr:set", **msg})

        def refresh(self) -> None:
            """Ask the viewer for its state again (`chronozarr:get`); `ready` and the traits follow."""
            self.send({"v": 1, "type": "chronozarr:get"})

        def on_click(self, callback: Callable[[Click], Any]) -> None:
            """Call `callback(click)` for every pixel the user clicks in the viewer."""
            self._on_click.append(callback)

        def receive(self, msg: Any) -> None:
            """One message from the viewer (the front end relays every `chronozarr:*` one)."""
            _receive(self, msg)

        def pixel_history(self, click: Click | None = None, *, x: int | None = None, y: int | None = None) -> Any:
            """The whole series of a level-0 pixel (the last click's, or column x, row y) as an
            xarray Dataset: `stored` (time, band) exact, `physical` NaN where invalid."""
            return _history(self._store, click or (self.clicks[-1] if self.clicks and x is None else None), x, y)

    _CLASS = ViewerWidget
    return ViewerWidget


_CLASS: type | None = None


def _receive(widget: Any, msg: Any) -> None:
    """What one message from the viewer changes: the traits it reports, the errors, the clicks
    (each handed to the widget's callbacks)."""
    kind = msg.get("type") if isinstance(msg, dict) else None
    if kind == "chronozarr:ready":
        widget.ready = msg
        state = msg.get("state") or {}
        widget.t, widget.time = int(state.get("t", widget.t)), str(state.get("time", widget.time))
        widget.product, widget.band = str(state.get("product", "")), str(state.get("band", ""))
    elif kind == "chronozarr:time":
        widget.t, widget.time = int(msg["t"]), str(msg["time"])
    elif kind == "chronozarr:view":
        widget.view = {"zoom": msg.get("zoom"), "center": msg.get("center")}
    elif kind == "chronozarr:error":
        widget.errors = [*widget.errors, {"code": msg.get("code"), "message": msg.get("message")}]
    elif kind == "chronozarr:click":
        click = Click.from_message(msg)
        widget.clicks.append(click)
        for callback in widget._on_click:
            callback(click)


def _iso(t: np.datetime64) -> str:
    return str(np.datetime_as_string(np.datetime64(t, "s"), unit="s")) + "Z"


def _checked_set(store: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The `set` fields with `t` as an index, or an InputError naming the field and what it takes."""
    unknown = sorted(set(fields) - {"t", "product", "band", "zoom", "center", "playing", "speed", "compare"})
    if unknown:
        raise InputError(f"set() takes t, product, band, zoom, center, playing, speed and compare; not {', '.join(unknown)}")
    # None leaves a field out, but compare=None ends the split view (the viewer checks compare)
    msg = {k: v for k, v in fields.items() if v is not None or k == "compare"}
    n = len(store.times)
    if "t" in msg:
        t = msg["t"]
        if isinstance(t, str):
            msg["t"] = nearest_timestep(list(store.times), t)
        elif isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t < n:
            raise InputError(f"t must be a timestep index 0..{n - 1} or an ISO 8601 date, got {t!r}")
        else:
            msg["t"] = int(t)
    if "product" in msg and msg["product"] not in PRODUCTS:
        raise InputError(f"product must be one of {', '.join(PRODUCTS)}, got {msg['product']!r}")
    if "band" in msg and msg["band"] not in store.band_names:
        raise InputError(f"band must be a band of this store ({', '.join(store.band_names)}), got {msg['band']!r}")
    for key in ("zoom", "speed"):
        if key in msg and (isinstance(msg[key], bool) or not isinstance(msg[key], (int, float)) or not msg[key] > 0):
            raise InputError(f"{key} must be a number above 0, got {msg[key]!r}")
    if "playing" in msg and not isinstance(msg["playing"], bool):
        raise InputError(f"playing must be True or False, got {msg['playing']!r}")
    return msg


def _history(store: Any, click: Click | None, x: int | None, y: int | None) -> Any:
    import xarray as xr

    if click is not None:
        x, y = click.x, click.y
    if x is None or y is None:
        raise InputError("pixel_history needs a click (none received yet) or x= and y= (level-0 column and row)")
    level = store.levels[0]
    if not (0 <= x < level.width and 0 <= y < level.height):
        raise InputError(f"pixel ({x}, {y}) is outside the store's {level.width} x {level.height} level 0")
    stored = store.read_point(y, x)
    mask = store.read_point_mask(y, x)
    if mask is not None:
        valid = np.broadcast_to((mask == 1)[:, None], stored.shape)
    elif store.nodata is None:
        valid = np.ones(stored.shape, bool)
    else:
        valid = ~np.isnan(stored) if np.isnan(store.nodata) else stored != store.nodata
    physical = physical_values(stored, valid, store.bands, band_axis=1)
    coords = {"time": np.asarray(store.times), "band": list(store.band_names)}
    return xr.Dataset({"stored": (("time", "band"), stored), "physical": (("time", "band"), physical)}, coords=coords,
                      attrs={"x": x, "y": y})
