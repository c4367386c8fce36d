"""The rules of chronozarr.store.interface, checked on every backend with the same tests: absent
keys read as None, exact ranges and suffixes or an error naming the object, bounded reads, listing,
writes, refusals, and what a crash between two puts of an encode leaves."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import make_series
from emulators import azurite_fixture, fake_gcs_fixture  # noqa: F401 (fixtures)
from store_backends import BACKENDS, WRITABLE, Backend, backend_fixture  # noqa: F401 (fixture)

import chronozarr
from chronozarr.errors import ChronozarrError, StoreError
from chronozarr.store import CountingStore, FirstHolding, MemoryStore, ObjectStore, counted

# bytes 0..255, twice: every range of it is known without asking the store
DATA = bytes(range(256)) * 2


def backends(names: list[str]):  # noqa: ANN201 (a pytest decorator)
    return pytest.mark.parametrize("backend", names, indirect=True)


class TestEveryBackend:
    @backends(BACKENDS)
    def test_get_range_suffix_size_give_the_object_s_bytes(self, backend: Backend) -> None:
        backend.seed({"a/b/c": DATA, "zarr.json": b"{}"})
        store = backend.store
        assert store.get("a/b/c") == DATA and store.get("zarr.json") == b"{}"
        assert store.get_range("a/b/c", 300, 12) == DATA[300:312]
        assert store.get_range("a/b/c", 0, len(DATA)) == DATA
        assert store.get_suffix("a/b/c", 7) == DATA[-7:]
        assert store.get_suffix("a/b/c", len(DATA)) == DATA
        assert store.size("a/b/c") == 512

    @backends(BACKENDS)
    def test_a_missing_key_is_none_from_every_read(self, backend: Backend) -> None:
        backend.seed({"a/present": b"x"})
        store = backend.store
        for key in ("absent", "a/absent", "absent/below"):
            assert store.get(key) is None
            assert store.get_range(key, 0, 1) is None
            assert store.get_suffix(key, 1) is None
            assert store.size(key) is None

    @backends(BACKENDS)
    def test_a_range_past_the_end_is_an_error_naming_the_object(self, backend: Backend) -> None:
        backend.seed({"obj": DATA[:100]})
        store = backend.store
        for read in (lambda: store.get_range("obj", 90, 20), lambda: store.get_range("obj", 100, 1), lambda: store.get_suffix("obj", 101)):
            with pytest.raises(StoreError) as info:
                read()
            assert "obj" in str(info.value)

    @backends(BACKENDS)
    def test_a_read_over_its_bound_is_refused_before_it_is_held(self, backend: Backend) -> None:
        backend.seed({"big": DATA})
        with pytest.raises(StoreError, match=r"big.* is 512 bytes, more than the 100-byte limit on one object"):
            backend.store.get("big", max_bytes=100)
        assert backend.store.get("big", max_bytes=512) == DATA

    @backends(BACKENDS)
    def test_a_key_outside_the_store_is_refused(self, backend: Backend) -> None:
        for key in ("../escape", "/absolute", "a/../../b"):
            with pytest.raises(StoreError, match="outside the store"):
                backend.store.get(key)

    @backends([name for name in BACKENDS if name != "memory"])
    def test_a_refused_read_is_an_error_not_an_absent_key(self, backend: Backend) -> None:
        """403 (HTTP, S3's unsigned read of a private bucket, Azure's wrong key), a refused token
        (GCS), a file where a directory should be (a directory): never None, never fill."""
        assert backend.refused is not None
        store, key = backend.refused()
        for read in (lambda: store.get(key), lambda: store.get_range(key, 0, 1), lambda: store.size(key)):
            with pytest.raises(StoreError) as info:
                read()
            assert key in str(info.value)

    @backends(BACKENDS)
    def test_counting_wraps_any_backend(self, backend: Backend) -> None:
        backend.seed({"obj": DATA})
        store = CountingStore(backend.store)
        store.get("obj"), store.get_range("obj", 1, 10), store.get_suffix("obj", 5), store.size("obj"), store.get("absent")
        assert store.stats() | {"retries": 0, "range_answered_whole": 0} == {
            "requests": 4, "gets": 1, "ranges": 1, "suffixes": 1, "heads": 1, "missing": 1,
            "bytes": 512 + 10 + 5, "retries": 0, "range_answered_whole": 0,
        }
        assert counted(store) is store and store.describe("obj") == backend.store.describe("obj")


class TestWritableBackends:
    @backends(WRITABLE)
    def test_put_list_copy_delete(self, backend: Backend, tmp_path: Path) -> None:
        store = backend.store
        assert store.writable and list(store.list()) == []
        store.put("a/x", DATA)
        store.put("a/y", memoryview(DATA)[:3], atomic=True)
        spooled = tmp_path / "spooled.part"
        spooled.write_bytes(DATA[:50])
        store.put_file("b/z", spooled)
        assert not spooled.exists()  # handed over
        store.copy("a/x", "c/x")
        assert sorted(store.list()) == [("a/x", 512), ("a/y", 3), ("b/z", 50), ("c/x", 512)]
        assert sorted(store.list("a")) == sorted(store.list("a/")) == [("a/x", 512), ("a/y", 3)]
        assert store.get("c/x") == DATA and store.get("b/z") == DATA[:50]
        store.delete(["a/x", "a/never-there"])
        store.delete("also-never-there")
        store.delete_prefix("c")
        assert sorted(store.list()) == [("a/y", 3), ("b/z", 50)]

    @backends(WRITABLE)
    def test_deletes_never_reach_past_what_they_name(self, backend: Backend, tmp_path: Path) -> None:
        """put_file(keep=True) (publish uploading a user's store) leaves the user's file as it was;
        delete_prefix removes its prefix only, not a neighbour whose name merely starts the same."""
        store = backend.store
        users = tmp_path / "users-file.bin"
        users.write_bytes(DATA)
        store.put_file("kept/obj", users, keep=True)
        assert users.read_bytes() == DATA and store.get("kept/obj") == DATA
        store.put("run/a", DATA)
        store.put("run-neighbour/b", DATA)
        store.put("runner", DATA)
        store.delete_prefix("run")
        assert sorted(key for key, _ in store.list()) == ["kept/obj", "run-neighbour/b", "runner"]
        assert users.read_bytes() == DATA

    @backends(WRITABLE)
    def test_a_crash_between_two_puts_leaves_no_store(self, backend: Backend, tmp_path: Path) -> None:
        """The writer puts the root zarr.json last: objects without it are no store to any reader,
        and the put that completes it makes the store whole."""
        chronozarr.encode(make_series(n_time=3, height=16, width=16, seed=2), tmp_path / "s", crs="EPSG:32631", chunk_size=8, progress=False)
        local = MemoryStore.of_directory(tmp_path / "s").objects
        for key, data in local.items():
            if key != "zarr.json":
                backend.store.put(key, data)
        with pytest.raises(StoreError, match="no zarr.json"):
            chronozarr.open_dataset(backend.store)
        backend.store.put("zarr.json", local["zarr.json"])
        with chronozarr.open_dataset(backend.store) as opened, chronozarr.open_dataset(tmp_path / "s") as truth:
            np.testing.assert_array_equal(opened.read(2), truth.read(2))


class TestReadOnly:
    @backends(["http"])
    def test_writes_to_a_read_only_store_are_refused(self, backend: Backend, tmp_path: Path) -> None:
        store = backend.store
        assert not store.writable
        for write in _writes(store, tmp_path):
            with pytest.raises(StoreError, match="read-only"):
                write()

    def test_stores_read_as_one_refuse_every_write_and_keep_their_objects(self, tmp_path: Path) -> None:
        """FirstHolding (append's staging before the store) deletes, moves and writes nothing."""
        staged, held = MemoryStore({"0/zarr.json": b"staged"}), MemoryStore({"0/zarr.json": b"held", "k": b"held"})
        both = FirstHolding([staged, held])
        for write in _writes(both, tmp_path):
            with pytest.raises(StoreError, match="read-only"):
                write()
        assert dict(staged.list()) == {"0/zarr.json": 6} and dict(held.list()) == {"0/zarr.json": 4, "k": 4}
        assert both.get("0/zarr.json") == b"staged" and both.get("k") == b"held"


def _writes(store: ObjectStore, tmp_path: Path) -> list[Callable[[], object]]:
    """Every write of the store interface, each on a key the store may hold."""
    local = tmp_path / "local-file"
    local.write_bytes(b"x")
    return [
        lambda: store.put("k", b"x"), lambda: store.put_file("k", local, keep=True), lambda: store.copy("k", "b"),
        lambda: store.move("k", "b"), lambda: store.delete("k"), lambda: store.delete(["k", "0/zarr.json"]),
        lambda: store.delete_prefix("0"), lambda: store.delete_prefix(""),
    ]


class TestDirectory:
    @backends(["directory"])
    def test_fifos_and_devices_are_refused_by_every_read_without_blocking(self, backend: Backend) -> None:
        store = backend.store
        os.mkfifo(store.root / "fifo")
        os.symlink("/dev/zero", store.root / "device")
        started = time.monotonic()
        for key in ("fifo", "device"):
            for read in (store.get, lambda k: store.get_range(k, 0, 4), lambda k: store.get_suffix(k, 4), store.size):
                with pytest.raises(StoreError, match="not a regular file") as info:
                    read(key)
                assert str(store.root / key) in str(info.value)
        assert time.monotonic() - started < 5

    @backends(["directory"])
    def test_a_listing_names_fifos_and_devices_without_a_size_and_follows_links(self, backend: Backend) -> None:
        """A checker listing the store sees what no read can take as an object (size None); a link
        lists as the file it points to, and a link to nothing is no object."""
        backend.seed({"a/obj": DATA})
        root = backend.store.root
        os.mkfifo(root / "a" / "fifo")
        os.symlink("/dev/zero", root / "device")
        os.symlink(root / "a" / "obj", root / "a" / "link")
        os.symlink(root / "absent", root / "dangling")
        assert sorted(backend.store.list()) == sorted([("a/obj", 512), ("a/link", 512), ("a/fifo", None), ("device", None)])

    @backends(["directory"])
    def test_a_directory_where_an_object_should_be_is_named(self, backend: Backend) -> None:
        (backend.store.root / "dir").mkdir()
        with pytest.raises(StoreError, match="is a directory where the store has an object"):
            backend.store.get("dir")

    @backends(["directory"])
    def test_a_write_that_fails_is_our_error_naming_the_object(self, backend: Backend) -> None:
        backend.store.put("file", b"x")
        with pytest.raises(ChronozarrError, match=r"cannot write .*file/below"):
            backend.store.put("file/below", b"y")
