"""add_chronozarr on the real leafmap and geemap maps: the widget's own front end (the maplibre
package's) runs in Debian's Chromium as anywidget runs it, with the module add_chronozarr gave it,
and draws the store, moves it with the slider and with set_time, and reports a bad call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import chronozarr
from browser_check import JS, needs_chromium
from chronozarr.errors import ChronozarrError
from conftest import make_series

BACKGROUND = [40, 40, 40]
STYLE = {"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "rgb(40, 40, 40)"}}]}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("notebook-map") / "river"
    da = make_series(n_time=4, n_band=1, height=60, width=80, bands=["ndwi"])
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=32, progress=False)
    return path


def _map(kind: str):
    if kind == "leafmap":
        import leafmap.maplibregl as module
    else:
        import geemap.maplibregl as module
    if kind == "leafmap":  # leafmap's floating sidebar needs ipyvuetify < 3 (the reference says the same)
        return module.Map(style=STYLE, height="500px", add_sidebar=False, add_floating_sidebar=False)
    return module.Map(style=STYLE, height="500px")


@needs_chromium
@pytest.mark.parametrize("kind", ["leafmap", "geemap"])
def test_the_store_is_drawn_and_moves_through_time(store: Path, tmp_path: Path, kind: str) -> None:
    m = _map(kind)
    layer = chronozarr.add_chronozarr(m, store, name="river")
    widget = {"esm": m._esm, "map_options": m.map_options, "height": m.height, "calls": m.calls, "queue": m._message_queue,
              "background": BACKGROUND, "name": "river"}
    (tmp_path / "widget.json").write_text(json.dumps(widget))
    run = subprocess.run(["node", "e2e/notebook-map.mjs", str(tmp_path / "widget.json")], cwd=JS, capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert run.returncode == 0, report
    assert report["open"]["times"] == chronozarr.open_dataset(store).times_iso and report["open"]["t"] == 0
    assert report["drawn"] > 0.9 and report["afterSlider"]["drawn"] > 0.9, report
    assert report["slider"] == "river 2024-01-01" and report["afterSlider"]["label"] == "river 2024-03-01"
    events = [(m["event"], m.get("t")) for m in report["sent"]]
    assert ("time", 2) in events and ("time", 1) in events
    errors = [m["message"] for m in report["sent"] if m["event"] == "error"]
    assert errors == ['"explode" is not a layer call'] and len(report["errors"]) == 1, report
    for message in report["sent"]:  # what the kernel would receive, through the map's comm
        layer._message(message)
    assert layer.times == report["open"]["times"] and layer.error == errors[0]


def test_add_chronozarr_refuses_what_it_cannot_draw_on(store: Path) -> None:
    m = _map("leafmap")
    chronozarr.add_chronozarr(m, store, name="one")
    with pytest.raises(ChronozarrError, match="already has a chronozarr layer named 'one'"):
        chronozarr.add_chronozarr(m, store, name="one")
    chronozarr.add_chronozarr(m, store, name="two")  # a second layer, under its own name
    assert m._esm.count("wrapMapWidget") == 2  # wrapped once: the import and the call
    with pytest.raises(ChronozarrError, match="not a dict"):
        chronozarr.add_chronozarr({}, store)
    m._rendered = True
    with pytest.raises(ChronozarrError, match="before the map is displayed"):
        chronozarr.add_chronozarr(m, store, name="three")


def test_set_time_queues_the_layer_call(store: Path) -> None:
    m = _map("geemap")
    layer = chronozarr.add_chronozarr(m, store, t=1, product="band", opacity=0.5)
    layer.set_time(3)
    layer.set_opacity(0.25)
    calls = [c for c in [*m.calls, *m._message_queue] if c[0] in ("addLayer", "chronozarr")]
    spec = calls[0][1][0]["chronozarr"]
    assert spec["t"] == 1 and spec["product"] == "band" and spec["opacity"] == 0.5 and spec["url"].endswith("/river/")
    assert calls[1:] == [["chronozarr", ("chronozarr", "setTime", 3)], ["chronozarr", ("chronozarr", "setOpacity", 0.25)]]
    assert layer.t == 3
