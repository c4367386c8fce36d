"""The directory the static server tests serve: a sharded store, viewer files and symlinks that
point out of the root; the server on it and a raw HTTP request that sends its target as given."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from chronozarr.serve import StoreServer

PAYLOAD = bytes(range(256)) * 40  # 10240 bytes, every offset identifiable


ORIGIN = {"Origin": "https://chronozarr.org"}


def write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def array_doc(shape: list[int], chunk_grid: list[int], dims: list[str], sharded: bool) -> dict:
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
    write_json(store / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {"chronozarr": {"spec_version": "0.2.0", "variable": "data"}}})
    write_json(store / "0" / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {}})
    write_json(store / "0" / "data" / "zarr.json", array_doc([3, 1, 8, 8], [2, 1, 4, 4], ["time", "band", "y", "x"], sharded=True))
    write_json(store / "0" / "time" / "zarr.json", array_doc([3], [3], ["time"], sharded=False))
    write_json(store / "0" / "x" / "zarr.json", array_doc([8], [8], ["x"], sharded=False))
    write_json(store / "volatility" / "zarr.json", array_doc([2, 2], [2, 2], ["y", "x"], sharded=False))
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


KEY = f"{STORE}/0/data/c/0/0/0/0"
