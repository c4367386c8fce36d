"""The static server: ranges, CORS, 404s, cache classes, confinement to its root, and each fault."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from chronozarr.serve import IMMUTABLE_CACHE, MUTABLE_CACHE, StoreServer, parse_range, Unsatisfiable

PAYLOAD = bytes(range(256)) * 40  # 10240 bytes, every offset identifiable
ORIGIN = {"Origin": "https://chronozarr.org"}


def _json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def _array(shape: list[int], chunk_grid: list[int], dims: list[str], sharded: bool) -> dict:
    codecs: list[dict] = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if sharded:
        inner = [1] + chunk_grid[1:]
        codecs = [{"name": "sharding_indexed", "configuration": {"chunk_shape": inner, "codecs": codecs}}]
    return {
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk_grid}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "codecs": codecs,
        "fill_value": 0,
        "dimension_names": dims,
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A served directory: a sharded store (3 timesteps, shard_time 2), viewer files, a secret."""
    base = tmp_path_factory.mktemp("site")
    root = base / "www"
    store = root / "stores" / "aoi" / "chronozarr-1"
    _json(store / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {"chronozarr": {"spec_version": "0.2.0", "variable": "data"}}})
    _json(store / "0" / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {}})
    _json(store / "0" / "data" / "zarr.json", _array([3, 1, 8, 8], [2, 1, 4, 4], ["time", "band", "y", "x"], sharded=True))
    _json(store / "0" / "time" / "zarr.json", _array([3], [3], ["time"], sharded=False))
    _json(store / "0" / "x" / "zarr.json", _array([8], [8], ["x"], sharded=False))
    _json(store / "volatility" / "zarr.json", _array([2, 2], [2, 2], ["y", "x"], sharded=False))
    for key in ("0/data/c/0/0/0/0", "0/data/c/1/0/0/0", "0/data/c/1/0/1/1", "0/time/c/0", "0/x/c/0", "volatility/c/0/0"):
        (store / key).parent.mkdir(parents=True, exist_ok=True)
        (store / key).write_bytes(PAYLOAD)
    (store / "0" / "data" / "c" / "1" / "0" / "0" / "9").write_bytes(b"")  # an empty object
    viewer = root / "viewer"
    viewer.mkdir()
    (viewer / "index.html").write_text("<!doctype html><title>viewer</title>")
    (viewer / "app.mjs").write_text("export const x = 1;\n")
    (viewer / "style.css").write_text("body{}")
    (viewer / "app.wasm").write_bytes(b"\0asm")
    (root / "plain.bin").write_bytes(PAYLOAD)
    (root / "empty").mkdir()
    (base / "secret.txt").write_text("outside the root")
    (root / "escape").symlink_to(base / "secret.txt")
    (root / "escape-dir").symlink_to(base)
    (root / "inside-link").symlink_to(root / "plain.bin")
    return root


@pytest.fixture(scope="module")
def server(site: Path):
    with StoreServer(site, port=0) as srv:
        yield srv


STORE = "/stores/aoi/chronozarr-1"


def fetch(url: str, path: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection, the target sent exactly as given (no normalisation)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        conn.close()


# -- ranges ----------------------------------------------------------------------------------


def test_full_get(server: StoreServer) -> None:
    status, headers, body = fetch(server.url, f"{STORE}/0/data/c/0/0/0/0", headers=ORIGIN)
    assert status == 200 and body == PAYLOAD
    assert headers["content-length"] == str(len(PAYLOAD))
    assert headers["accept-ranges"] == "bytes"
    assert headers["content-type"] == "application/octet-stream"
    assert headers["access-control-allow-origin"] == "*"
    assert "content-range" in headers["access-control-expose-headers"].lower()
    assert headers["timing-allow-origin"] == "*"
    assert "etag" in headers and "last-modified" in headers


@pytest.mark.parametrize(
    ("spec", "first", "last"),
    [("bytes=0-99", 0, 99), ("bytes=100-199", 100, 199), ("bytes=10000-", 10000, 10239), ("bytes=-16", 10224, 10239),
     ("bytes=10200-99999", 10200, 10239), ("bytes=-99999", 0, 10239), ("bytes=5-5", 5, 5)],
)
def test_ranges(server: StoreServer, spec: str, first: int, last: int) -> None:
    status, headers, body = fetch(server.url, f"{STORE}/0/data/c/0/0/0/0", headers={"Range": spec, **ORIGIN})
    assert status == 206
    assert body == PAYLOAD[first : last + 1]
    assert headers["content-range"] == f"bytes {first}-{last}/{len(PAYLOAD)}"
    assert headers["content-length"] == str(last - first + 1)
    assert headers["accept-ranges"] == "bytes"
    assert headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("spec", ["bytes=10240-", "bytes=20000-30000", "bytes=-0"])
def test_unsatisfiable_range(server: StoreServer, spec: str) -> None:
    status, headers, body = fetch(server.url, f"{STORE}/0/data/c/0/0/0/0", headers={"Range": spec})
    assert status == 416
    assert headers["content-range"] == f"bytes */{len(PAYLOAD)}"
    assert headers["access-control-allow-origin"] == "*"
    assert body == b""


def test_range_of_empty_object_is_unsatisfiable(server: StoreServer) -> None:
    status, headers, _ = fetch(server.url, f"{STORE}/0/data/c/1/0/0/9", headers={"Range": "bytes=-4"})
    assert status == 416 and headers["content-range"] == "bytes */0"


@pytest.mark.parametrize("spec", ["bytes=0-9,20-29", "bytes=9-0", "items=0-9", "bytes=a-b", "bytes=-"])
def test_multi_and_malformed_ranges_get_the_whole_body(server: StoreServer, spec: str) -> None:
    status, headers, body = fetch(server.url, f"{STORE}/0/data/c/0/0/0/0", headers={"Range": spec})
    assert status == 200 and body == PAYLOAD and "content-range" not in headers


def test_parse_range_unit() -> None:
    assert parse_range("bytes=0-0", 1) == (0, 0)
    assert parse_range(" Bytes = 3 - ", 10) == (3, 9)
    assert parse_range("bytes=0-1, 3-4", 10) is None
    with pytest.raises(Unsatisfiable):
        parse_range("bytes=10-", 10)


def test_if_range_mismatch_sends_whole_body(server: StoreServer) -> None:
    status, _, body = fetch(server.url, "/plain.bin", headers={"Range": "bytes=0-9", "If-Range": '"stale"'})
    assert status == 200 and body == PAYLOAD


def test_head(server: StoreServer) -> None:
    status, headers, body = fetch(server.url, f"{STORE}/0/data/c/0/0/0/0", "HEAD", ORIGIN)
    assert status == 200 and body == b""
    assert headers["content-length"] == str(len(PAYLOAD))
    assert headers["access-control-allow-origin"] == "*"
    status, headers, _ = fetch(server.url, f"{STORE}/0/data/c/0/0/0/0", "HEAD", {"Range": "bytes=-16"})
    assert status == 206 and headers["content-length"] == "16"


def test_etag_revalidation(server: StoreServer) -> None:
    _, headers, _ = fetch(server.url, "/plain.bin")
    status, again, body = fetch(server.url, "/plain.bin", headers={"If-None-Match": headers["etag"]})
    assert status == 304 and body == b"" and again["etag"] == headers["etag"]
    assert again["access-control-allow-origin"] == "*"


# -- CORS ------------------------------------------------------------------------------------


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


# -- 404s and confinement --------------------------------------------------------------------


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


def test_query_string_ignored(server: StoreServer) -> None:
    status, _, body = fetch(server.url, f"{STORE}/zarr.json?sig=abc&x=../../secret")
    assert status == 200 and json.loads(body)["attributes"]["chronozarr"]["variable"] == "data"


# -- encodings and types ---------------------------------------------------------------------


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


# -- cache classes ---------------------------------------------------------------------------


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
    _json(store / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {"chronozarr": {"variable": "data"}}})
    meta = store / "0" / "data" / "zarr.json"
    _json(meta, _array([3, 1, 8, 8], [2, 1, 4, 4], ["time", "band", "y", "x"], sharded=True))
    for t in (0, 1, 2):
        (store / "0" / "data" / "c" / str(t) / "0" / "0").mkdir(parents=True)
        (store / "0" / "data" / "c" / str(t) / "0" / "0" / "0").write_bytes(b"x")
    with StoreServer(tmp_path, short_cache=False, mutable_cache="no-cache") as srv:
        cache = lambda t: fetch(srv.url, f"/s/0/data/c/{t}/0/0/0", "HEAD")[1]["cache-control"]  # noqa: E731
        assert [cache(t) for t in (0, 1, 2)] == [IMMUTABLE_CACHE, "no-cache", IMMUTABLE_CACHE]
        _json(meta, _array([5, 1, 8, 8], [2, 1, 4, 4], ["time", "band", "y", "x"], sharded=True))
        os.utime(meta, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))  # a new mtime, whatever the clock
        assert [cache(t) for t in (0, 1, 2)] == [IMMUTABLE_CACHE, IMMUTABLE_CACHE, "no-cache"]


# -- concurrency and the log -----------------------------------------------------------------


def test_concurrent_ranges(server: StoreServer) -> None:
    key = f"{STORE}/0/data/c/0/0/0/0"

    def one(i: int) -> bool:
        first = (i * 97) % len(PAYLOAD)
        last = min(first + 50 + i, len(PAYLOAD) - 1)
        status, headers, body = fetch(server.url, key, headers={"Range": f"bytes={first}-{last}"})
        return status == 206 and body == PAYLOAD[first : last + 1] and headers["content-range"] == f"bytes {first}-{last}/{len(PAYLOAD)}"

    server.clear_log()
    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(one, range(100)))
    assert all(results)
    log = server.requests
    assert len(log) == 100 and {r.status for r in log} == {206} and all(r.path == key for r in log)


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


# -- faults ----------------------------------------------------------------------------------


KEY = f"{STORE}/0/data/c/0/0/0/0"


def test_fault_no_cors(site: Path) -> None:
    with StoreServer(site, cors=False) as srv:
        _, headers, _ = fetch(srv.url, KEY, headers=ORIGIN)
        assert not any(h.startswith("access-control-") for h in headers)
        status, headers, _ = fetch(srv.url, KEY, "OPTIONS", {**ORIGIN, "Access-Control-Request-Headers": "range"})
        assert not any(h.startswith("access-control-") for h in headers)


def test_fault_no_expose_headers(site: Path) -> None:
    with StoreServer(site, expose_headers=False) as srv:
        headers = fetch(srv.url, KEY)[1]
        assert headers["access-control-allow-origin"] == "*" and "access-control-expose-headers" not in headers


def test_fault_no_timing_allow_origin(site: Path) -> None:
    with StoreServer(site, timing_allow_origin=False) as srv:
        assert "timing-allow-origin" not in fetch(srv.url, KEY)[1]


def test_fault_ranges_ignored(site: Path) -> None:
    with StoreServer(site, ranges=False) as srv:
        status, headers, body = fetch(srv.url, KEY, headers={"Range": "bytes=0-9"})
        assert status == 200 and body == PAYLOAD and "accept-ranges" not in headers and "content-range" not in headers


def test_fault_range_200(site: Path) -> None:
    with StoreServer(site, range_200=True) as srv:
        status, headers, body = fetch(srv.url, KEY, headers={"Range": "bytes=0-9"})
        assert status == 200 and body == PAYLOAD and headers["accept-ranges"] == "bytes"


def test_fault_suffix_ranges(site: Path) -> None:
    with StoreServer(site, suffix_ranges=False) as srv:
        assert fetch(srv.url, KEY, headers={"Range": "bytes=-16"})[0] == 400
        assert fetch(srv.url, KEY, headers={"Range": "bytes=0-15"})[0] == 206
    with StoreServer(site, suffix_ranges=200) as srv:
        status, _, body = fetch(srv.url, KEY, headers={"Range": "bytes=-16"})
        assert status == 200 and body == PAYLOAD


def test_fault_wrong_content_range(site: Path) -> None:
    with StoreServer(site, wrong_content_range=True) as srv:
        status, headers, body = fetch(srv.url, KEY, headers={"Range": "bytes=0-9"})
        assert status == 206 and headers["content-range"] != "bytes 0-9/10240" and len(body) == 10
        status, headers, _ = fetch(srv.url, KEY, headers={"Range": "bytes=-10"})
        assert status == 206 and headers["content-range"] != "bytes 10230-10239/10240"


def test_fault_spa_fallback(site: Path) -> None:
    with StoreServer(site, spa_fallback=True) as srv:
        status, headers, body = fetch(srv.url, f"{STORE}/0/data/c/7/0/0/0")
        assert status == 200 and headers["content-type"].startswith("text/html") and b"<html" in body
        assert fetch(srv.url, KEY, headers={"Range": "bytes=0-3"})[2] == PAYLOAD[:4]


def test_fault_gzip(site: Path) -> None:
    with StoreServer(site, gzip=True) as srv:
        status, headers, body = fetch(srv.url, KEY, headers={"Accept-Encoding": "gzip"})
        assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == PAYLOAD
        # a range cuts the compressed bytes, as a compressing CDN does: the shard index moves
        status, headers, body = fetch(srv.url, KEY, headers={"Accept-Encoding": "gzip", "Range": "bytes=-16"})
        assert status == 206 and headers["content-encoding"] == "gzip" and body != PAYLOAD[-16:]
        status, headers, body = fetch(srv.url, KEY)  # no Accept-Encoding, no compression
        assert "content-encoding" not in headers and body == PAYLOAD


def test_fault_no_head(site: Path) -> None:
    with StoreServer(site, head=False) as srv:
        status, headers, _ = fetch(srv.url, KEY, "HEAD")
        assert status == 405 and "HEAD" not in headers["allow"]
        assert fetch(srv.url, KEY)[0] == 200


def test_fault_short_cache(site: Path) -> None:
    with StoreServer(site, short_cache=True) as srv:
        assert fetch(srv.url, KEY, "HEAD")[1]["cache-control"] == MUTABLE_CACHE


def test_fault_latency(site: Path) -> None:
    with StoreServer(site, latency=0.2) as srv:
        started = time.perf_counter()
        fetch(srv.url, KEY, "HEAD")
        assert time.perf_counter() - started >= 0.2


def test_fault_forbidden(site: Path) -> None:
    with StoreServer(site, forbidden={f"{STORE}/0/data"}) as srv:
        status, headers, _ = fetch(srv.url, KEY)
        assert status == 403 and headers["access-control-allow-origin"] == "*"
        assert fetch(srv.url, f"{STORE}/0/data/c/99/0/0/0")[0] == 403  # absent keys too, like a bucket
        assert fetch(srv.url, f"{STORE}/zarr.json")[0] == 200


def test_fault_missing_status(site: Path) -> None:
    with StoreServer(site, missing_status=403) as srv:
        assert fetch(srv.url, f"{STORE}/0/data/c/99/0/0/0")[0] == 403


def test_fault_fail_status(site: Path) -> None:
    with StoreServer(site, fail_status=(503, 2)) as srv:
        statuses = [fetch(srv.url, KEY)[0] for _ in range(4)]
        assert statuses == [503, 503, 200, 200]
        assert [r.status for r in srv.requests] == statuses
        assert fetch(srv.url, KEY)[1]["access-control-allow-origin"] == "*"


def test_bad_switches(site: Path) -> None:
    with pytest.raises(TypeError):
        StoreServer(site, no_such_switch=True)
    with pytest.raises(ValueError):
        StoreServer(site, suffix_ranges=7)
    with pytest.raises(NotADirectoryError):
        StoreServer(site / "plain.bin")
