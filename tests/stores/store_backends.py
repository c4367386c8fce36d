"""Every backend of chronozarr.store, each against the real thing: a directory on disk, `chronozarr
serve` on 127.0.0.1, moto's S3 server, fake-gcs-server, Azurite, and memory. A test asks for
`backend`, parametrized indirectly with the backends' names, and runs once per backend (as
zarr-python's StoreTests are subclassed per store). Imported by the test modules of tests/stores."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from emulators import AZURITE_ACCOUNT, AZURITE_KEY, gcs_env

from chronozarr.serve import StoreServer
from chronozarr.store import MemoryStore
from chronozarr.store.bucket import BucketStore
from chronozarr.store.directory import DirectoryStore
from chronozarr.store.http import HttpStore

BACKENDS = ["directory", "memory", "http", "s3", "gs", "az"]
WRITABLE = [name for name in BACKENDS if name != "http"]
FORBIDDEN = "forbidden"  # the key prefix the HTTP server answers 403 for


@dataclass
class Backend:
    """The store under test, a way to place objects in it that does not go through it (HTTP is
    read-only), and, where the backend can refuse a read, a store whose reads are refused."""

    name: str
    store: Any
    place: Callable[[str, bytes], None]
    refused: Callable[[], tuple[Any, str]] | None = None

    def seed(self, objects: dict[str, bytes]) -> None:
        for key, data in objects.items():
            self.place(key, data)


def _directory(tmp_path: Path) -> Backend:
    store = DirectoryStore(tmp_path / "store")
    store.root.mkdir()

    def refused() -> tuple[Any, str]:
        store.put("plain-file", b"x")  # a file where a directory should be: its objects are lost
        return store, "plain-file/below"

    return Backend("directory", store, lambda k, d: store.put(k, d), refused)


def _http(tmp_path: Path) -> Iterator[Backend]:
    site = DirectoryStore(tmp_path / "site")
    site.root.mkdir()
    with StoreServer(site.root, forbidden=frozenset({FORBIDDEN})) as server:
        store = HttpStore(server.url, retries=0)

        def refused() -> tuple[Any, str]:
            site.put(f"{FORBIDDEN}/x", b"secret")
            return store, f"{FORBIDDEN}/x"

        yield Backend("http", store, lambda k, d: site.put(k, d), refused)


def _s3(request: pytest.FixtureRequest) -> Backend:
    endpoint = request.getfixturevalue("aws_env")
    name = f"conformance-{uuid.uuid4().hex[:10]}"
    request.getfixturevalue("s3_server").create_bucket(name)
    store = BucketStore(f"s3://{name}/p", endpoint=endpoint)

    def refused() -> tuple[Any, str]:  # an unsigned read of a private bucket: 403
        store.put("private", b"x")
        return BucketStore(f"s3://{name}/p", endpoint=endpoint, anonymous=True), "private"

    return Backend("s3", store, lambda k, d: store.put(k, d), refused)


def _gs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Backend:
    server = request.getfixturevalue("fake_gcs")
    name = f"conformance-{uuid.uuid4().hex[:10]}"
    server.create_bucket(name)
    gcs_env(monkeypatch, server.service_account(tmp_path))
    store = BucketStore(f"gs://{name}/p", endpoint=server.endpoint)

    def refused() -> tuple[Any, str]:  # a token the service does not accept
        store.put("private", b"x")
        monkeypatch.delenv("GOOGLE_SERVICE_ACCOUNT")
        monkeypatch.setenv("GOOGLE_BEARER_TOKEN", "revoked-token")
        server.refused_tokens.add("revoked-token")
        return BucketStore(f"gs://{name}/p", endpoint=server.endpoint), "private"

    return Backend("gs", store, lambda k, d: store.put(k, d), refused)


def _az(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Backend:
    server = request.getfixturevalue("azurite")
    name = f"conformance-{uuid.uuid4().hex[:10]}"
    server.create_container(name)
    for variable in [n for n in os.environ if n.startswith("AZURE_")]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_NAME", AZURITE_ACCOUNT)
    monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_KEY", AZURITE_KEY)
    store = BucketStore(f"az://{name}/p", endpoint=server.endpoint)

    def refused() -> tuple[Any, str]:  # a wrong account key: Azure answers 403
        store.put("private", b"x")
        monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_KEY", AZURITE_KEY[:-8] + "AAAAAAA=")
        return BucketStore(f"az://{name}/p", endpoint=server.endpoint), "private"

    return Backend("az", store, lambda k, d: store.put(k, d), refused)


@pytest.fixture(name="backend")
def backend_fixture(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    name = request.param
    if name == "http":
        yield from _http(tmp_path)
    elif name == "memory":
        store = MemoryStore()
        yield Backend("memory", store, lambda k, d: store.put(k, d))
    else:
        yield {
            "directory": lambda: _directory(tmp_path),
            "s3": lambda: _s3(request),
            "gs": lambda: _gs(request, monkeypatch, tmp_path),
            "az": lambda: _az(request, monkeypatch),
        }[name]()
