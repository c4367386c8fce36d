"""The Python reader against every host in tests/hostile_hosts.py: the stored values or our own
error naming the URL, within the time the timeout and retries allow, for sharded and unsharded
stores alike."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from faulty_host import faulty_server
from hostile_hosts import CLIENT_TIMEOUT, HOSTS, switches

import chronozarr
from chronozarr.errors import ChronozarrError
from chronozarr.store import CountingStore
from chronozarr.store.http import HttpStore

RETRIES = 1
BACKOFF = 0.01
# Every wait of an attempt is bounded by the timeout: connect, first byte, each pause of a body.
# A read here makes at most a few requests, each retried once.
BOUND = 6 * (RETRIES + 1) * CLIENT_TIMEOUT + 5


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, np.ndarray]]:
    from conftest import make_series

    da = make_series(n_time=3, height=32, width=32, seed=9)
    root = tmp_path_factory.mktemp("hostile-http")
    for layout, shard in (("plain", False), ("sharded", True)):
        chronozarr.encode(da, root / layout, crs="EPSG:32631", chunk_size=16, encoding="none", shard=shard, progress=False)
    return root, {"values": da.values}


def _read(url: str) -> np.ndarray:
    with chronozarr.open_dataset(url, timeout=CLIENT_TIMEOUT, retries=RETRIES, backoff=BACKOFF) as store:
        return store.read(2)


# A fault in range answers meets only sharded reads: an unsharded read sends no Range header.
CASES = [(name, layout) for name in sorted(HOSTS) for layout in ("plain", "sharded") if layout == "sharded" or not HOSTS[name].sharded_only]


@pytest.mark.parametrize(("name", "layout"), CASES)
def test_a_misbehaving_host_gives_values_or_our_error_in_time(stores, tmp_path, name, layout):
    root, truth = stores
    shutil.copytree(root / layout, tmp_path / "s")
    started = time.monotonic()
    with faulty_server(tmp_path, **switches(name)) as server:
        try:
            values = _read(f"{server.url}/s")
        except ChronozarrError as exc:
            assert f"{server.url}/s/" in str(exc), f"the error names no object: {exc}"
        else:
            np.testing.assert_array_equal(values, truth["values"][2])
    assert time.monotonic() - started < BOUND


def test_a_body_shorter_than_its_content_length_is_retried_then_reported(stores, tmp_path):
    root, _ = stores
    shutil.copytree(root / "plain", tmp_path / "s")
    with faulty_server(tmp_path, **switches("short_body")) as server:
        source = CountingStore(HttpStore(f"{server.url}/s", timeout=CLIENT_TIMEOUT, retries=2, backoff=BACKOFF))
        with pytest.raises(chronozarr.StoreError, match="shorter than its Content-Length.*gave up after 3 attempts") as info:
            source.get("0/data/c/0/0/0/0")
        assert info.value.url.endswith("/s/0/data/c/0/0/0/0")
        assert source.stats.retries == 2


@pytest.mark.parametrize(("name", "words"), [("stall_before_headers", "sent nothing"), ("stall_mid_body", "sent nothing")])
def test_a_stall_ends_after_the_timeout_per_attempt_naming_it(stores, tmp_path, name, words):
    root, _ = stores
    shutil.copytree(root / "plain", tmp_path / "s")
    with faulty_server(tmp_path, **switches(name)) as server:
        source = HttpStore(f"{server.url}/s", timeout=0.5, retries=1, backoff=BACKOFF)
        started = time.monotonic()
        with pytest.raises(chronozarr.StoreError, match=words):
            source.get("0/data/c/0/0/0/0")
        assert time.monotonic() - started < 2 * 0.5 + 1.0


def test_a_redirect_loop_is_not_retried(stores, tmp_path):
    root, _ = stores
    shutil.copytree(root / "plain", tmp_path / "s")
    with faulty_server(tmp_path, **switches("redirect_loop")) as server:
        source = CountingStore(HttpStore(f"{server.url}/s", timeout=CLIENT_TIMEOUT, retries=3, backoff=BACKOFF))
        with pytest.raises(chronozarr.StoreError, match="redirects"):
            source.get("0/data/c/0/0/0/0")
        assert source.stats.retries == 0
        assert len(server.requests) == 6  # the request and its 5 redirects


def test_the_default_timeouts_settle_within_a_minute_retries_included():
    source = HttpStore("http://127.0.0.1:9")
    worst = (source.retries + 1) * source.timeout + sum(source.backoff * 2**i for i in range(source.retries))
    assert worst <= 60, worst


@pytest.mark.parametrize("name", ["stall_before_headers", "stall_mid_body"])
def test_one_deadline_bounds_every_request_of_a_call_whatever_the_number_of_objects(stores, tmp_path, name):
    """A sharded read of 4 cells, one request at a time, each allowed 4 attempts of 1 s: without a
    deadline for the whole call it would wait for every one of them in turn."""
    root, _ = stores
    shutil.copytree(root / "sharded", tmp_path / "s")
    deadline = 2.5
    with faulty_server(tmp_path, **switches(name)) as server:
        with chronozarr.open_dataset(f"{server.url}/s", timeout=1.0, retries=3, backoff=0.25, deadline=deadline, concurrency=1) as store:
            started = time.monotonic()
            with pytest.raises(chronozarr.StoreError, match=f"the call's {deadline:g} s deadline ran out"):
                store.read(2)
            assert time.monotonic() - started < deadline + 1.0


def test_the_default_deadline_ends_a_call_within_a_minute():
    source = HttpStore("http://127.0.0.1:9")
    assert source.deadline is not None and source.deadline <= 60
    with pytest.raises(chronozarr.StoreError, match="deadline must be"):
        HttpStore("http://127.0.0.1:9", deadline=0)
