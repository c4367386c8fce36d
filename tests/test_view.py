"""view: the server layout (store next to the viewer page), URL stores, and the notebook widget."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser_check import check_page, needs_chromium

import chronozarr
import importlib
from chronozarr.cli import app
from chronozarr.errors import MissingExtraError
from chronozarr.view import start_view
from conftest import make_series

view_module = importlib.import_module("chronozarr.view")  # chronozarr.view is the function


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("view") / "chronozarr-1"
    chronozarr.encode(make_series(n_time=3, height=20, width=20), path, crs="EPSG:32631", chunk_size=16, shard=True, progress=False)
    return path


@pytest.fixture
def js_dir(tmp_path: Path) -> Path:
    """A stand-in for the repository's js/: viewer/index.html with its bundles, and a src/ module."""
    js = tmp_path / "js"
    (js / "viewer" / "dist").mkdir(parents=True)
    (js / "viewer" / "index.html").write_text("<!doctype html><title>viewer</title>")
    for name in ("viewer.js", "decode-worker.js"):
        (js / "viewer" / "dist" / name).write_text("export {};\n")
    (js / "src").mkdir()
    (js / "src" / "reader.js").write_text("export const x = 1;\n")
    return js


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), b""


def test_a_viewer_without_its_bundles_is_not_installed(store: Path, js_dir: Path) -> None:
    (js_dir / "viewer" / "dist" / "viewer.js").unlink()
    session = start_view(store, js_dir=js_dir)
    try:
        assert not session.viewer_installed and session.url == session.store_url
    finally:
        session.server.stop()


def test_local_store_is_served_next_to_the_viewer(store: Path, js_dir: Path) -> None:
    session = start_view(store, js_dir=js_dir)
    try:
        base = session.server.url
        assert session.viewer_installed
        # The URL's last segment is the store's own name: the viewer's title (js/viewer/app.js storeName).
        assert session.url == f"{base}/viewer/?store={base}/store/chronozarr-1/"
        assert _get(f"{base}/viewer/")[0] == 200
        assert _get(f"{base}/src/reader.js")[2] == b"export const x = 1;\n"
        status, _, body = _get(f"{base}/store/chronozarr-1/zarr.json")
        assert status == 200 and b"chronozarr" in body
        status, headers, body = _get(f"{base}/store/chronozarr-1/0/data/c/0/0/0/0", {"Range": "bytes=0-9"})
        assert status == 206 and headers["Content-Range"].startswith("bytes 0-9/") and len(body) == 10
        assert headers["Access-Control-Allow-Origin"] == "*"
        assert _get(f"{base}/store/chronozarr-1/no-such-key")[0] == 404
        assert _get(f"{base}/store/chronozarr-1/../../../etc/passwd")[0] == 404
    finally:
        session.server.stop()


@needs_chromium
def test_the_viewer_page_is_titled_with_the_store_s_name(store: Path) -> None:
    session = start_view(store)  # the real viewer of js/
    try:
        assert check_page(session.url)["title"] == f"{store.name} · chronozarr"  # not "store · chronozarr"
    finally:
        session.server.stop()


def test_the_map_page_is_offered_when_it_and_maplibre_are_installed(store: Path, js_dir: Path) -> None:
    session = start_view(store, js_dir=js_dir)
    session.server.stop()
    assert session.map_url is None  # no maplibre/ page in this js/
    (js_dir / "maplibre").mkdir()
    (js_dir / "maplibre" / "index.html").write_text("<!doctype html><title>map</title>")
    (js_dir / "node_modules" / "maplibre-gl").mkdir(parents=True)
    session = start_view(store, js_dir=js_dir)
    try:
        base = session.server.url
        assert session.map_url == f"{base}/maplibre/?store={base}/store/chronozarr-1/"
        assert _get(session.map_url)[2] == b"<!doctype html><title>map</title>"
    finally:
        session.server.stop()


def test_without_the_viewer_page_the_store_url_is_given(store: Path, tmp_path: Path) -> None:
    session = start_view(store, js_dir=tmp_path / "no-js")
    try:
        assert not session.viewer_installed and session.url == session.store_url == f"{session.server.url}/store/chronozarr-1/"
        assert _get(f"{session.url}zarr.json")[0] == 200
    finally:
        session.server.stop()


def test_a_url_store_starts_no_store_server(js_dir: Path, tmp_path: Path) -> None:
    url = "https://data.example.org/aoi/chronozarr-1/"
    bare = start_view(url, js_dir=tmp_path / "no-js")
    assert bare.server is None and bare.url == url
    session = start_view(url, js_dir=js_dir)
    try:
        assert session.url == f"{session.server.url}/viewer/?store={url}"
        assert _get(f"{session.server.url}/viewer/")[0] == 200
        assert _get(f"{session.server.url}/store/chronozarr-1/zarr.json")[0] == 404
    finally:
        session.server.stop()


def test_cli_view_prints_the_url(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(view_module, "_wait_until_interrupted", interrupted)
    opened: list[str] = []
    monkeypatch.setattr(view_module.webbrowser, "open", opened.append)
    result = CliRunner().invoke(app, ["view", str(store), "--port", "0"])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:" in result.output and opened == []
    result = CliRunner().invoke(app, ["view", str(store), "--open"])
    assert len(opened) == 1
    assert CliRunner().invoke(app, ["view", str(store.parent / "missing")]).exit_code == 2


def test_notebook_widget_needs_anywidget(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anywidget", None)
    with pytest.raises(MissingExtraError, match=r"chronozarr\[notebook\]"):
        chronozarr.view(store)


def test_notebook_widget_shows_the_shared_server(store: Path) -> None:
    import anywidget  # noqa: F401
    first = chronozarr.view(store)
    second = chronozarr.view(store, height=300)
    assert first.url == second.url and second.height == 300
    assert "/store/chronozarr-1/" in first.url and first.url.startswith("http://127.0.0.1:")
    store_url = first.url.split("store=")[-1]
    assert _get(f"{store_url}zarr.json")[0] == 200


@pytest.mark.parametrize("command", ["doctor", "view", "publish"])
def test_help_has_an_example(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0 and "Example" in result.output and f"chronozarr {command} " in result.output
