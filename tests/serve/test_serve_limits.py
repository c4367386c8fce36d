"""`chronozarr serve` against a hostile client: absurd ranges are 416, connections are capped and
time out when idle, a log nobody reads never stops the server, and a FIFO in the served tree
blocks nothing. The command is run as a user runs it, in its own process."""

from __future__ import annotations

import http.client
import os
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from chronozarr.serve import StoreServer

PAYLOAD = bytes(range(256)) * 4


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "object.bin").write_bytes(PAYLOAD)
    return tmp_path


def _serve(directory: Path, *extra: str, stderr: int | None = subprocess.PIPE) -> tuple[subprocess.Popen, int]:
    """`chronozarr serve DIR --port 0`, waiting for the line that names its URL."""
    script = Path(sys.executable).parent / "chronozarr"
    child = subprocess.Popen([script, "serve", str(directory), "--port", "0", *extra], stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = child.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if match:
            return child, int(match.group(1))
    child.kill()
    raise AssertionError("chronozarr serve printed no URL")


@pytest.fixture
def served(site: Path) -> Iterator[tuple[subprocess.Popen, int]]:
    child, port = _serve(site)
    yield child, port
    child.kill()
    child.wait(timeout=10)


def _get(port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("spec", ["bytes=" + "9" * 5000 + "-", "bytes=0-" + "9" * 5000, "bytes=-" + "9" * 5000, "bytes=" + "1" * 21 + "-" + "2" * 21])
def test_a_range_with_an_absurd_number_is_416(served, spec):
    _, port = served
    status, _ = _get(port, "/object.bin", {"Range": spec})
    assert status == 416
    assert _get(port, "/object.bin", {"Range": "bytes=0-9"}) == (206, PAYLOAD[:10])


def test_idle_connections_are_capped_and_real_clients_are_served_while_they_are_held(served):
    child, port = served
    idle = []
    try:
        for _ in range(300):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        time.sleep(1.0)
        threads = psutil.Process(child.pid).num_threads()
        assert threads <= 64 + 8, f"{threads} threads for 300 idle connections"
        started = time.monotonic()
        assert _get(port, "/object.bin", timeout=10) == (200, PAYLOAD)  # idle ones are closed to make room
        assert time.monotonic() - started < 5
    finally:
        for sock in idle:
            sock.close()


def test_an_idle_connection_is_closed_after_the_idle_timeout(site):
    with StoreServer(site, idle_timeout=0.5) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        started = time.monotonic()
        assert sock.recv(1) == b""  # the server closed it without a request
        assert time.monotonic() - started < 5
        sock.close()


def test_over_the_cap_a_connection_waits_for_a_slot_and_idle_ones_are_closed_first(site):
    with StoreServer(site, max_connections=2) as server:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(2)]
        time.sleep(0.3)
        assert _get(server.port, "/object.bin") == (200, PAYLOAD)
        # One of them (whichever the server found idle first) is closed to make room: wait on both,
        # as reading the one left open would block.
        readable, _, _ = select.select(held, [], [], 5)
        assert readable and any(sock.recv(1) == b"" for sock in readable)
        for sock in held:
            sock.close()


def test_a_burst_of_connections_past_the_cap_is_queued_not_refused(site):
    """zarrita reading a whole array sends hundreds of requests at once, each on a connection."""
    from concurrent.futures import ThreadPoolExecutor

    with StoreServer(site, max_connections=4) as server, ThreadPoolExecutor(max_workers=100) as pool:
        answers = list(pool.map(lambda i: _get(server.port, f"/object.bin?{i}", timeout=30), range(240)))
    assert answers == [(200, PAYLOAD)] * 240


@pytest.mark.parametrize("extra", [(), ("--log",)])
def test_a_stderr_nobody_reads_never_stops_the_server(site, extra):
    child, port = _serve(site, *extra)
    try:  # about 100 bytes of log per request: 3,000 requests fill a pipe's 64 KiB many times
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        started = time.monotonic()
        for i in range(3000):
            conn.request("GET", f"/object.bin?{i}")
            response = conn.getresponse()
            assert response.status == 200 and response.read() == PAYLOAD
        conn.close()
        assert time.monotonic() - started < 60
    finally:
        child.kill()
        child.wait(timeout=10)


def test_a_fifo_in_the_served_tree_blocks_no_request(site):
    store = site / "s"
    store.mkdir()
    os.mkfifo(store / "zarr.json")
    (store / "chunk").write_bytes(PAYLOAD)
    child, port = _serve(site)
    try:
        assert _get(port, "/s/chunk", timeout=10) == (200, PAYLOAD)
        assert _get(port, "/s/zarr.json", timeout=10)[0] == 404
    finally:
        child.kill()
        child.wait(timeout=10)


def test_with_log_each_request_is_a_line_on_stderr(site):
    child, port = _serve(site, "--log")
    try:
        assert _get(port, "/object.bin?logged")[0] == 200
        assert child.stderr is not None
        deadline = time.monotonic() + 10
        line = ""
        while "object.bin?logged" not in line and time.monotonic() < deadline:
            line = child.stderr.readline()
        assert '"GET /object.bin?logged HTTP/1.1" 200' in line, line
    finally:
        child.kill()
        child.wait(timeout=10)


MALFORMED = [
    b"GET / HTTP/x.y\r\n\r\n",  # a version that is no number
    b"GET / HTTP/1.1 extra\r\n\r\n",  # four words
    b"GET\r\n\r\n",  # one word
    b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + b"\x00" * 40 + b"\r\n\r\n",  # a TLS hello on the plain port
]


def test_a_malformed_request_is_answered_400_without_a_traceback(site):
    child, port = _serve(site)
    try:
        for raw in MALFORMED:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(raw)
                assert sock.recv(64).startswith(b"HTTP/1.1 400 "), raw
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:  # a client that resets its connection
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.sendall(b"GET /object.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _get(port, "/object.bin") == (200, PAYLOAD)
    finally:
        child.kill()
        _, stderr = child.communicate(timeout=10)
    assert "Traceback" not in stderr, stderr
