"""doctor's requests and the HTTP store's go through one transport (store/http.py `Transport`),
under one deadline constant, so a redirect or timeout rule changed there holds for both."""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from chronozarr.check import doctor_client
from chronozarr.check.doctor_client import DoctorClient
from chronozarr.store import http
from chronozarr.store.http import HttpStore, Transport


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_doctor_and_the_http_store_send_through_one_transport(tmp_path: Path, monkeypatch: Any) -> None:
    body = b'{"zarr_format": 3}'
    (tmp_path / "zarr.json").write_bytes(body)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sent: list[tuple[str, str]] = []
    original = Transport.send

    def counting(self: Transport, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        sent.append((method, url.rsplit("/", 1)[-1]))
        return original(self, method, url, *args, **kwargs)

    monkeypatch.setattr(Transport, "send", counting)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert HttpStore(base).get("zarr.json") == body
        client = DoctorClient(base, "", "https://example.org")
        answer = client.request("GET", "zarr.json")
        client.close()
    finally:
        server.shutdown()
        server.server_close()
    assert (answer.status, answer.body, answer.failure) == (200, body, None)
    assert sent == [("GET", "zarr.json"), ("GET", "zarr.json")]


def test_doctor_s_time_limit_is_the_readers_deadline() -> None:
    assert doctor_client.DEFAULT_TOTAL_TIMEOUT is http.DEFAULT_DEADLINE
