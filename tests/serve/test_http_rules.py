"""The static server's HTTP rules beyond ranges: CORS on every answer (errors and preflights too),
404 for absent keys, directories and anything outside the root, content types, no content
encoding, cache classes (the trailing shard following an append), keep-alive and its log."""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from served_site import ORIGIN, PAYLOAD, STORE, array_doc, fetch, server, site, write_json  # noqa: F401  (fixtures)

from chronozarr.serve import IMMUTABLE_CACHE, MUTABLE_CACHE, StoreServer


def test_preflight(server: StoreServer) -> None:
    status, headers, body = fetch(
        server.url, f"{STORE}/0/data/c/0/0/0/0", "OPTIONS",
        {**ORIGIN, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "range, x-custom"},
    )
    assert status == 204 and body == b""
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "GET, HEAD, OPTIONS"
    allowed = [h.strip().lower() for h in headers["access-control-allow-headers"].split(",")]
    assert "range" in allowed and "content-type" in allowed and "x-custom" in allowed
    assert int(headers["access-control-max-age"]) > 0


def test_cors_on_errors(server: StoreServer) -> None:
    for path in (f"{STORE}/0/data/c/9/0/0/0", "/../secret.txt"):
        status, headers, _ = fetch(server.url, path, headers=ORIGIN)
        assert status == 404
        assert headers["access-control-allow-origin"] == "*"
        assert headers["cache-control"] == "no-store"
    status, headers, _ = fetch(server.url, "/plain.bin", "POST")
    assert status == 405 and headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("path", [f"{STORE}/0/data/c/5/0/0/0", f"{STORE}/0/mask/zarr.json", "/nope", "/viewer/nope.js"])
def test_absent_key_is_404(server: StoreServer, path: str) -> None:
    status, headers, body = fetch(server.url, path)
    assert status == 404 and b"<html" not in body.lower()


@pytest.mark.parametrize("path", [STORE, f"{STORE}/", f"{STORE}/0", "/stores/", "/empty/", "/", "/escape-dir/"])
def test_directories_are_404(server: StoreServer, path: str) -> None:
    status, _, body = fetch(server.url, path)
    assert status == 404
    assert b"zarr.json" not in body  # never a listing


def test_viewer_directory_serves_index(server: StoreServer) -> None:
    status, headers, body = fetch(server.url, "/viewer/")
    assert status == 200 and b"<title>viewer</title>" in body
    assert headers["content-type"].startswith("text/html") and headers["cache-control"] == "no-cache"
    status, headers, _ = fetch(server.url, "/viewer?x=1")
    assert status == 301 and headers["location"] == "/viewer/?x=1"


def test_index_html_switch(site: Path) -> None:
    with StoreServer(site, index_html=False) as srv:
        assert fetch(srv.url, "/viewer/")[0] == 404


@pytest.mark.parametrize(
    "path",
    ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/viewer/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt",
     "/viewer/..%2F..%2Fsecret.txt", "/%2e%2e%5csecret.txt", "/..\\secret.txt", "//etc/passwd", "/etc/passwd",
     "/escape", "/escape-dir/secret.txt", "/plain.bin%00.png", "/%ff%fe", "http://evil/../secret.txt", "/%252e%252e/secret.txt"],
)
def test_traversal_is_404(server: StoreServer, path: str) -> None:
    status, _, body = fetch(server.url, path)
    assert status == 404
    assert b"outside the root" not in body and b"root:" not in body


def test_symlink_inside_root_is_served(server: StoreServer) -> None:
    status, _, body = fetch(server.url, "/inside-link")
    assert status == 200 and body == PAYLOAD


def test_link_targets_given_at_construction_are_served(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "module.js").write_text("export {};\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "node_modules").symlink_to(outside, target_is_directory=True)
    with StoreServer(root, link_targets=[outside]) as srv:
        status, _, body = fetch(srv.url, "/node_modules/module.js")
    assert status == 200 and body == b"export {};\n"


def test_query_string_ignored(server: StoreServer) -> None:
    status, _, body = fetch(server.url, f"{STORE}/zarr.json?sig=abc&x=../../secret")
    assert status == 200 and json.loads(body)["attributes"]["chronozarr"]["variable"] == "data"


def test_no_content_encoding(server: StoreServer) -> None:
    for extra in ({}, {"Range": "bytes=0-99"}):
        for path in (f"{STORE}/0/data/c/0/0/0/0", f"{STORE}/zarr.json", "/viewer/app.mjs"):
            status, headers, body = fetch(server.url, path, headers={"Accept-Encoding": "gzip, br", **extra})
            assert status in (200, 206) and "content-encoding" not in headers
    assert body == b"export const x = 1;\n"[:100]


@pytest.mark.parametrize(
    ("path", "kind"),
    [(f"{STORE}/zarr.json", "application/json"), ("/viewer/index.html", "text/html"), ("/viewer/app.mjs", "text/javascript"),
     ("/viewer/style.css", "text/css"), ("/viewer/app.wasm", "application/wasm"), ("/plain.bin", "application/octet-stream")],
)
def test_content_types(server: StoreServer, path: str, kind: str) -> None:
    assert fetch(server.url, path, "HEAD")[1]["content-type"].split(";")[0] == kind


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("zarr.json", MUTABLE_CACHE),
        ("0/zarr.json", MUTABLE_CACHE),
        ("0/data/zarr.json", MUTABLE_CACHE),
        ("0/time/c/0", MUTABLE_CACHE),
        ("volatility/c/0/0", MUTABLE_CACHE),
        ("0/data/c/1/0/0/0", MUTABLE_CACHE),  # the trailing time shard: timestep 2 of 3, shard_time 2
        ("0/data/c/1/0/1/1", MUTABLE_CACHE),
        ("0/data/c/0/0/0/0", IMMUTABLE_CACHE),
        ("0/x/c/0", IMMUTABLE_CACHE),
    ],
)
def test_cache_classes(server: StoreServer, key: str, expected: str) -> None:
    status, headers, _ = fetch(server.url, f"{STORE}/{key}", "HEAD")
    assert status == 200 and headers["cache-control"] == expected


def test_cache_classes_outside_stores(server: StoreServer) -> None:
    assert fetch(server.url, "/viewer/app.mjs", "HEAD")[1]["cache-control"] == "no-cache"
    assert fetch(server.url, "/plain.bin", "HEAD")[1]["cache-control"] == "no-cache"


def test_trailing_shard_follows_an_append(tmp_path: Path) -> None:
    store = tmp_path / "s"
    write_json(store / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {"chronozarr": {"variable": "data"}}})
    meta = store / "0" / "data" / "zarr.json"
    write_json(meta, array_doc([3, 1, 8, 8], [2, 1, 4, 4], ["time", "band", "y", "x"], sharded=True))
    for t in (0, 1, 2):
        (store / "0" / "data" / "c" / str(t) / "0" / "0").mkdir(parents=True)
        (store / "0" / "data" / "c" / str(t) / "0" / "0" / "0").write_bytes(b"x")
    with StoreServer(tmp_path, short_cache=False, mutable_cache="no-cache") as srv:
        cache = lambda t: fetch(srv.url, f"/s/0/data/c/{t}/0/0/0", "HEAD")[1]["cache-control"]  # noqa: E731
        assert [cache(t) for t in (0, 1, 2)] == [IMMUTABLE_CACHE, "no-cache", IMMUTABLE_CACHE]
        write_json(meta, array_doc([5, 1, 8, 8], [2, 1, 4, 4], ["time", "band", "y", "x"], sharded=True))
        os.utime(meta, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))  # a new mtime, whatever the clock
        assert [cache(t) for t in (0, 1, 2)] == [IMMUTABLE_CACHE, IMMUTABLE_CACHE, "no-cache"]


def test_keep_alive_connection_and_log(server: StoreServer) -> None:
    server.clear_log()
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    for spec in ("bytes=0-9", "bytes=-4"):
        conn.request("GET", "/plain.bin", headers={"Range": spec})
        response = conn.getresponse()
        assert response.status == 206 and len(response.read()) in (10, 4)
    conn.close()
    assert [(r.method, r.path, r.range, r.status, r.bytes_sent) for r in server.requests] == [
        ("GET", "/plain.bin", "bytes=0-9", 206, 10), ("GET", "/plain.bin", "bytes=-4", 206, 4)
    ]


def test_malformed_request_line_still_gets_cors(server: StoreServer) -> None:
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n")
        reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 501") and b"Access-Control-Allow-Origin: *" in reply
