"""Check 12's plain-zarr read over HTTP: zarr-python through fsspec, or from a plain GET of the
one object when the host breaks what fsspec needs, bounded by doctor's timeout and time limit."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ...errors import ChronozarrError
from ...format.array_doc import ArrayDocument
from ...format.zarrjson import parse_json
from ...store import DEFAULT_MAX_OBJECT_BYTES
from .client import DoctorClient
from .decode import ArrayMeta

PlainRead = Callable[[tuple[int, ...]], tuple[Any, str]]


def plain_http(client: DoctorClient, meta: ArrayMeta) -> PlainRead:
    """The reader `decode_checks` compares with: fsspec first, a whole-object GET if it fails."""

    def read(index: tuple[int, ...]) -> tuple[Any, str]:
        try:
            return _fsspec(client, meta, index), "fsspec HTTP"
        except Exception as exc:  # noqa: BLE001 - the transport failure is reported by checks 4-8
            value = _whole_object(client, meta, index)
            return value, f"whole-object GET; fsspec failed: {type(exc).__name__}: {str(exc)[:120]}"

    return read


def _fsspec(client: DoctorClient, meta: ArrayMeta, index: tuple[int, ...]) -> Any:
    import aiohttp
    import zarr
    from zarr.storage import FsspecStore

    headers = {"Origin": client.origin, "Accept-Encoding": "identity"}
    wait = client.wait()
    timeout = aiohttp.ClientTimeout(total=client.remaining(), sock_connect=wait, sock_read=wait)
    options = {"headers": headers, "client_kwargs": {"timeout": timeout}}
    store = FsspecStore.from_url(client.base, storage_options=options, read_only=True)
    with warnings.catch_warnings():  # a fallback page makes zarr see v2 documents too
        warnings.simplefilter("ignore")
        return zarr.open_array(store=store, path=meta.path, mode="r")[index]


def _whole_object(client: DoctorClient, meta: ArrayMeta, index: tuple[int, ...]) -> Any:
    """zarr-python on a memory store holding the array's zarr.json and the one object that
    holds `index`, each fetched with a plain GET."""
    import zarr
    from zarr.core.buffer import default_buffer_prototype
    from zarr.storage import MemoryStore

    doc_answer = client.request("GET", f"{meta.path}/zarr.json", limit=64 << 20)
    try:
        doc = parse_json(doc_answer.body) if doc_answer.status == 200 else None
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise ChronozarrError(f"{meta.path}/zarr.json: {doc_answer.what}")
    path = ArrayDocument.from_json(meta.path, doc).key_holding(index)
    key = path[len(meta.path) + 1 :]
    obj = client.request("GET", path, {"Accept-Encoding": "identity"}, limit=DEFAULT_MAX_OBJECT_BYTES)
    buffer = default_buffer_prototype().buffer
    objects = {"zarr.json": buffer.from_bytes(doc_answer.body)}
    if obj.status == 200:
        objects[key] = buffer.from_bytes(obj.body)
    elif obj.status not in (404, 410):
        raise ChronozarrError(f"{path}: {obj.what}")
    return zarr.open_array(store=MemoryStore(objects), mode="r")[index]
