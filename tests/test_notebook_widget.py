"""The viewer widget's embed API from Python: `set` checked and resolved as the viewer resolves it,
the viewer's messages turned into traits and Click objects, and a clicked pixel's history read from
the store. Expected values come from the numpy array written to the store in the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import make_series

import chronozarr
from chronozarr.errors import InputError
from chronozarr.notebook_widget import widget_class


@pytest.fixture(scope="module")
def series(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("anywidget")
    da = make_series(n_time=4, n_band=2, height=20, width=24, bands=["B04", "B08"])
    values = da.values.copy()
    values[2, :, 5, 7] = 0  # nodata: invalid at t = 2
    da = da.copy(data=values)
    path = tmp_path_factory.mktemp("widget") / "widget-1"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, nodata=0, encoding="none", progress=False)
    return path, values


def _widget(path: Path):
    # the widget itself, without the process's shared server (chronozarr.view's part, tested in test_view)
    w = widget_class()(str(path), url="http://127.0.0.1:9/viewer/?store=x")
    sent: list[dict] = []
    w.send = sent.append  # what would go to the front end (no front end in a test)
    return w, sent


def test_set_resolves_a_date_to_the_nearest_timestep_and_says_so_in_the_state(series) -> None:
    w, sent = _widget(series[0])
    # monthly from 2024-01-01: 2024-02-20 is 19 days from March, 20 from February
    w.set(t="2024-02-20", product="band", band="B08")
    assert (w.t, w.time, w.product, w.band) == (2, "2024-03-01T00:00:00Z", "band", "B08")
    assert sent[-1] == {"v": 1, "type": "chronozarr:set", "t": 2, "product": "band", "band": "B08"}
    w.set(t="2024-01-16T12:00:00")  # 15.5 days either side: the earlier wins
    assert w.t == 0 and w._asked == {"t": 0, "product": "band", "band": "B08"}
    w.set(t="2030-01-01")
    assert w.t == 3
    w.set(compare=None, zoom=None)  # None leaves a field out, except compare: None ends the split view
    assert sent[-1] == {"v": 1, "type": "chronozarr:set", "compare": None}


@pytest.mark.parametrize(("fields", "named"), [
    ({"t": 4}, "t must be"), ({"t": "next week"}, "ISO 8601"), ({"band": "B02"}, "B04, B08"),
    ({"product": "rgb"}, "true_color"), ({"zoom": 0}, "zoom"), ({"speed": "fast"}, "speed"), ({"colour": 1}, "colour"),
])
def test_a_bad_set_is_refused_before_anything_is_sent(series, fields: dict, named: str) -> None:
    w, sent = _widget(series[0])
    with pytest.raises(InputError, match=named):
        w.set(**fields)
    assert sent == [] and w._asked == {}


def test_viewer_messages_become_traits_and_clicks_with_the_pixel_history(series) -> None:
    path, values = series
    w, _ = _widget(path)
    got = []
    w.on_click(got.append)
    w.receive({"v": 1, "type": "chronozarr:ready", "state": {"t": 1, "time": "2024-02-01T00:00:00Z", "product": "ndvi", "band": "B04"}})
    assert (w.t, w.time, w.product, w.band) == (1, "2024-02-01T00:00:00Z", "ndvi", "B04")
    w.receive({"v": 1, "type": "chronozarr:time", "t": 3, "time": "2024-04-01T00:00:00Z"})
    assert (w.t, w.time) == (3, "2024-04-01T00:00:00Z")
    w.receive({"v": 1, "type": "chronozarr:click", "pixel": {"x": 7, "y": 5}, "lon": 3.0, "lat": 45.0, "t": 3,
               "time": "2024-04-01T00:00:00Z", "level": 0, "valid": True, "values": {"B04": 0.1, "B08": 0.3}})
    assert len(got) == 1 and got[0] is w.clicks[-1]
    assert (got[0].x, got[0].y, got[0].t, got[0].values) == (7, 5, 3, {"B04": 0.1, "B08": 0.3})
    history = w.pixel_history()
    np.testing.assert_array_equal(history["stored"].values, values[:, :, 5, 7])
    want = (values[:, :, 5, 7] * 1e-4).astype(np.float32)  # Sentinel-2 band names: scale 1e-4 inferred
    want[2] = np.nan  # the nodata date
    np.testing.assert_array_equal(history["physical"].values, want)
    assert list(history.band.values) == ["B04", "B08"] and history.sizes["time"] == 4
    np.testing.assert_array_equal(w.pixel_history(x=0, y=19)["stored"].values, values[:, :, 19, 0])
    w.receive({"v": 1, "type": "chronozarr:error", "code": "bad_set", "message": "no"})
    assert w.errors == [{"code": "bad_set", "message": "no"}]
