"""One place turns a path or URL into a store (store/open.py `locate`): the reader's
open_object_store and the writer's open_output both ask it, so they agree on every location."""

from __future__ import annotations

from pathlib import Path

import pytest

from chronozarr.errors import OutputError, StoreError
from chronozarr.store import locate, open_object_store
from chronozarr.store.directory import DirectoryStore
from chronozarr.write.output import open_output

CASES = [  # location, kind, scheme
    ("stores/a", "directory", None),
    ("file:///tmp/a", "directory", "file"),
    ("http://127.0.0.1:1/s", "http", "http"),
    ("https://example.org/s", "http", "https"),
    ("s3://bucket/p", "bucket", "s3"),
    ("GS://bucket/p", "bucket", "gs"),
    ("az://container/p", "bucket", "az"),
    ("ftp://host/s", "other", "ftp"),
]


@pytest.mark.parametrize(("location", "kind", "scheme"), CASES)
def test_locate_names_the_kind_of_store(location: str, kind: str, scheme: str | None) -> None:
    found = locate(location)
    assert (found.kind, found.scheme, found.text) == (kind, scheme, location)


def test_a_directory_location_reads_and_writes_the_same_path(tmp_path: Path) -> None:
    reader = open_object_store(f"file://{tmp_path}")
    assert isinstance(reader, DirectoryStore) and locate(f"file://{tmp_path}").path == tmp_path
    assert open_output(tmp_path / "out").local_root == tmp_path / "out"


def test_the_reader_and_the_writer_refuse_what_they_cannot_use() -> None:
    with pytest.raises(StoreError, match="unsupported URL scheme"):
        open_object_store("ftp://host/s")
    for location in ("ftp://host/s", "http://127.0.0.1:1/s", "file:///tmp/a"):
        with pytest.raises(OutputError, match=f"{location.split('://')[0]}:// is not an output"):
            open_output(location)
    assert open_output("s3://bucket/p").local_root is None
