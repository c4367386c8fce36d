"""Each fault the static server can put on (`--fault`): the misbehaviour of a real host that the
readers and doctor are tested against, one at a time; unknown switches are refused."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest
from faulty_host import faulty_server
from served_site import KEY, ORIGIN, PAYLOAD, STORE, fetch, site  # noqa: F401  (fixture)

from chronozarr.serve import MUTABLE_CACHE, StoreServer


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
    with faulty_server(site, range_200=True) as srv:
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
    with faulty_server(site, wrong_content_range=True) as srv:
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
    with faulty_server(site, fail_status=(503, 2)) as srv:
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
