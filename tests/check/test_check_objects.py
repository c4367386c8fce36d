"""check/objects.py: validate lists a store through the store interface, so a store on any
listable backend is checked for objects outside the layout, and a directory's entries that cannot
be objects (FIFOs, sockets, links to devices) are named."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

from check_stores import (
    assert_valid,
    base_stores,  # noqa: F401  (fixture)
    copy_store,  # noqa: F401  (fixture)
)

from chronozarr import validate
from chronozarr.check.findings import FAIL
from chronozarr.store import MemoryStore

NOT_REGULAR = "is not a regular file (a FIFO, socket or device, or a link to one): store objects must be regular files"
UNEXPECTED = "unexpected object: not a zarr.json of a node nor a chunk of an array"


def _fails(report, section: str) -> set[tuple[str, str]]:  # noqa: ANN001 (a Report)
    return {(f.key, f.message) for f in report.findings if f.severity == FAIL and f.section == section}


def test_a_store_in_memory_is_listed_for_objects_outside_the_layout(base_stores: dict[str, Path]) -> None:  # noqa: F811
    """Every object of a store held in memory is classified as a directory's would be: its
    sidecars are skipped and the stray object is a finding (memory stores were not listed)."""
    for name in ("unsharded", "sharded"):
        store = MemoryStore.of_directory(base_stores[name])
        assert_valid(validate(store, sample_pyramid=False))
        store.objects[".chronozarr-append.json"] = b"{}"
        store.objects[".chronozarr-scratch/0/data/c/0/0/0/0"] = b"x"
        assert_valid(validate(store, sample_pyramid=False))
        store.objects["0/data/notes.txt"] = b"hello"
        assert _fails(validate(store, sample_pyramid=False), "2") == {("0/data/notes.txt", UNEXPECTED)}


def test_a_directory_s_fifos_sockets_and_device_links_are_named(copy_store: Callable[[str], Path]) -> None:  # noqa: F811
    """What no read can take as an object is one finding each; a link to a regular file is
    classified by its key like the file, and a link to nothing is no object at all."""
    store = copy_store("unsharded")
    os.mkfifo(store / "0" / "fifo")
    os.symlink("/dev/zero", store / "0" / "zero")
    os.symlink(store / "0" / "data" / "zarr.json", store / "0" / "linked.txt")
    os.symlink(store / "absent", store / "0" / "dangling")
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(store / "0" / "sock"))
        report = validate(store, sample_pyramid=False)
    finally:
        listener.close()
    assert _fails(report, "2") == {
        ("0/fifo", NOT_REGULAR), ("0/zero", NOT_REGULAR), ("0/sock", NOT_REGULAR), ("0/linked.txt", UNEXPECTED),
    }
