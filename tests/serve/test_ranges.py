"""The static server's byte ranges: single, suffix and open ranges are 206 with a matching
Content-Range, unsatisfiable ones 416, malformed and multi-range requests get the whole body;
HEAD, If-Range and ETag revalidation; many ranges at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from served_site import ORIGIN, PAYLOAD, STORE, fetch, server, site  # noqa: F401  (fixtures: server needs site)

from chronozarr.serve import StoreServer, RangeNotSatisfiable, parse_range


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
    with pytest.raises(RangeNotSatisfiable):
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
