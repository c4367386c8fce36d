"""The limits the Python package keeps are those of js/src/reader/limits.json, the file the JS
reader loads too (js/test/limits.test.js checks its side). The file is read here on its own and
compared with the constants the modules use, so a value typed again in a module would show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chronozarr import limits, webapps
from chronozarr.errors import MissingFileError
from chronozarr.format import codecs, metadata, shard_index, temporal, zarrjson
from chronozarr.read import region
from chronozarr.store import http

FILE = json.loads((Path(__file__).resolve().parents[1] / "js" / "src" / "reader" / "limits.json").read_text(encoding="utf-8"))


def test_the_format_takes_its_limits_from_the_shared_file() -> None:
    assert zarrjson.MAX_JSON_DEPTH == FILE["json_depth"]
    assert metadata.DTYPES == tuple(FILE["data_types"])
    assert temporal.STAR_DELTA_DTYPES == tuple(FILE["star_delta_data_types"])
    assert codecs.CODEC_NAMES == tuple(FILE["codecs"])  # the keys of the codec table
    assert (codecs.BLOSC_CNAMES, codecs.BLOSC_SHUFFLES) == (tuple(FILE["blosc_cnames"]), tuple(FILE["blosc_shuffles"]))
    for n in (1, 4, 117):
        assert shard_index.index_nbytes(n) == n * FILE["shard_index_entry_bytes"] + FILE["shard_index_checksum_bytes"]


def test_the_reader_and_the_http_store_take_theirs_from_it() -> None:
    assert region.INDEX_BYTES == FILE["shard_index_cache_bytes"]
    assert http.DEFAULT_TIMEOUT == FILE["request_timeout_seconds"]
    assert http.DEFAULT_DEADLINE == FILE["call_deadline_seconds"]


def test_a_document_nested_past_the_shared_depth_is_refused() -> None:
    depth = FILE["json_depth"]
    assert zarrjson.parse_json(("[" * depth + "]" * depth).encode()) == json.loads("[" * depth + "]" * depth)
    with pytest.raises(ValueError, match=f"nested deeper than {depth} levels"):
        zarrjson.parse_json(("[" * (depth + 1) + "]" * (depth + 1)).encode())


def test_the_wheel_carries_the_file_where_the_loader_looks_first() -> None:
    """setup.py copies webapps' app directories (src among them) into chronozarr/web/."""
    assert "src" in webapps.APPS
    assert limits.CANDIDATES[0] == Path(webapps.__file__).resolve().parent / "web" / "src" / "reader" / "limits.json"


def test_a_missing_file_is_an_error_that_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(limits, "CANDIDATES", (tmp_path / "a.json", tmp_path / "b.json"))
    with pytest.raises(MissingFileError, match="limits.json is missing"):
        limits._load()
