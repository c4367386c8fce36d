"""The wrappers any store can be put in: logging names every call and its outcome, and a wrapped
store answers the inner store's capabilities; the writer's output reads through the same rules."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from chronozarr.errors import StoreError
from chronozarr.store import CountingStore, FirstHolding, LoggingStore, MemoryStore
from chronozarr.write.output import Output


def test_logging_names_each_call_its_key_and_outcome(caplog: pytest.LogCaptureFixture) -> None:
    store = LoggingStore(MemoryStore({"a/b": b"12345"}), level=logging.INFO)
    with caplog.at_level(logging.INFO, logger="chronozarr.store"):
        assert store.get_range("a/b", 1, 2) == b"23"
        assert store.get("absent") is None
        with pytest.raises(StoreError):
            store.get_suffix("a/b", 9)
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0].startswith("get_range 1+2 memory://a/b: 2 bytes in ")
    assert lines[1].startswith("get memory://absent: absent in ")
    assert lines[2].startswith("get_suffix 9 memory://a/b failed after ") and "fewer than the 9 asked for" in lines[2]


def test_wrappers_nest_and_keep_the_inner_store_s_capabilities() -> None:
    inner = MemoryStore({"k": b"xyz"})
    store = CountingStore(LoggingStore(inner))
    assert store.get("k") == b"xyz" and store.stats.get == 1 and store.stats.bytes == 3
    assert store.writable and store.local_root is None and store.objects is inner.objects


def test_the_writer_s_reads_of_its_output_refuse_a_fifo(tmp_path: Path) -> None:
    """The output's reads are the directory store's: a FIFO where an object should be is refused
    at once, naming it, instead of blocking or reading as absent."""
    os.mkfifo(tmp_path / "zarr.json")
    output = Output(tmp_path)
    for read in (output.get, output.size, lambda key: output.get_range(key, 0, 1)):
        with pytest.raises(StoreError, match=r"zarr.json is not a regular file"):
            read("zarr.json")


def test_first_holding_reads_each_key_from_the_first_store_that_has_it() -> None:
    """How an append reads back: what it staged before what the store held, absent only when no
    store holds the key, and nothing written through it."""
    staged = MemoryStore({"0/data/c/1/0/0/0": b"new", "only-staged": b"s"})
    held = MemoryStore({"0/data/c/1/0/0/0": b"old-bytes", "only-held": b"held"})
    both = FirstHolding([staged, held])
    assert both.get("0/data/c/1/0/0/0") == b"new" and both.get("only-held") == b"held"
    assert both.get_range("only-held", 1, 2) == b"el" and both.get_suffix("0/data/c/1/0/0/0", 2) == b"ew"
    assert both.size("only-held") == 4 and both.get("absent") is None and both.size("absent") is None
    assert dict(both.list()) == {"0/data/c/1/0/0/0": 3, "only-staged": 1, "only-held": 4}
    with pytest.raises(StoreError, match="read-only"):
        both.put("k", b"x")
    assert "k" not in staged.objects and "k" not in held.objects
