"""Crash safety for append: stage every object, commit with one journal file, then move into place.

An append never changes an object a reader of the old store can see until the whole new state
exists on disk. It runs in three phases:

1. Stage. Every object the append writes (new chunks, the rewritten trailing shards, time/c/0,
   volatility, every changed zarr.json including the root) goes below `.chronozarr-append-staging/`
   under its final key. Readers never look there and `validate` skips `.chronozarr*` entries, so a
   crash here leaves the old store exactly as it was; the next append discards the staging area.
2. Commit. The journal `.chronozarr-append-journal` is written to a temporary name, flushed and
   renamed into place: the rename is the commit point. It lists every staged key in the order
   they must land (data objects, then time/c/0 and volatility, then array zarr.json, the root last).
3. Apply. Each staged object is renamed onto its key (one atomic rename each), then the staging
   area and finally the journal are removed. A crash here leaves the journal, and any later append
   on the store first replays it: a key whose staged file is gone was already moved, so the replay
   is idempotent and ends in the same objects an uninterrupted append writes.

Because the root zarr.json moves last, a reader that loads the root during apply sees either the
old root (whose chunks, offsets and references are unchanged for every timestep it lists) or the
new one with every object it describes already in place.

In an object store (s3://, gs://, az://) the same three phases run with the store's atomic PUTs:
staged objects are copied onto their keys by the store (a replay copies the same bytes again),
then the staging prefix and the journal are deleted. An object store has no lock: run one append
at a time on a bucket store.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..format.append_rule import APPEND_JOURNAL, APPEND_STAGING, APPEND_STAGING_MARK, JOURNAL_MARK
from ..format.zarrjson import parse_json
from .crashpoints import crash_points
from .objects import ObjectCounter, ObjectWriter
from .output import Output

STAGING = APPEND_STAGING
JOURNAL = APPEND_JOURNAL
JOURNAL_VERSION = 1
NEW, REWRITTEN, METADATA = "new", "rewritten", "metadata"


class StagingWriter(ObjectWriter):
    """An ObjectWriter under the staging area whose every write is a crash point. It writes the
    staging mark before anything else, so every staging area an append leaves carries it."""

    SPOOL = ".chronozarr-spool"

    def __init__(self, store: Output, counter: ObjectCounter | None = None) -> None:
        super().__init__(store.child(STAGING), counter, step=crash_points.step)
        self.output.put(APPEND_STAGING_MARK, b"staged by chronozarr append\n")

    def staged(self) -> list[str]:
        """Every staged key, sorted (not the mark, nor the spool)."""
        return sorted(k for k in self.output.keys() if not k.startswith(self.SPOOL + "/") and k != APPEND_STAGING_MARK)

    def size(self, key: str) -> int:
        size = self.output.size(key)
        assert size is not None, key
        return size

    def flush(self) -> None:
        """fsync every staged file, so the commit never names bytes still only in memory (a
        directory's; an object store has its objects durable once a PUT answers)."""
        if self.output.local_root is None:
            return
        for key in self.staged():
            fd = os.open(self.output.path(key), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


@dataclass(frozen=True)
class Move:
    """One object of an append: its key, what it is to the store (new, rewritten or metadata)
    and its size; the journal lists the staged ones in landing order."""

    key: str
    kind: str
    nbytes: int


@dataclass(frozen=True)
class Journal:
    """The commit record of one append: what it adds and every object to move, in order."""

    times: tuple[str, ...]
    old_n_time: int
    moves: tuple[Move, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            JOURNAL_MARK: JOURNAL_VERSION,
            "times": list(self.times),
            "old_n_time": self.old_n_time,
            "moves": [[m.key, m.kind, m.nbytes] for m in self.moves],
        }

    @classmethod
    def from_json(cls, doc: Any, where: str) -> Journal:
        try:
            if doc[JOURNAL_MARK] != JOURNAL_VERSION:
                raise ValueError(f"journal version {doc['chronozarr_append_journal']!r}")
            moves = tuple(Move(str(k), str(kind), int(n)) for k, kind, n in doc["moves"])
            return cls(tuple(str(t) for t in doc["times"]), int(doc["old_n_time"]), moves)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"{where} is not an append journal this version understands ({exc})") from None


def load_journal(store: Output) -> Journal | None:
    """The committed journal of an interrupted append, or None."""
    where = f"{store.describe()}/{JOURNAL}"
    data = store.get(JOURNAL)
    if data is None:
        return None
    try:
        doc = parse_json(data)
    except ValueError as exc:
        raise StoreError(f"{where} {exc}; it was written whole, so it was edited") from None
    return Journal.from_json(doc, where)


def commit(store: Output, journal: Journal, fsync: bool = True) -> None:
    """Write the journal atomically: once it exists the append will complete, whatever happens.

    In a directory it is written to a temporary name and renamed; with fsync it is on disk before
    the rename, so a power cut cannot commit a journal whose content is lost (a killed process
    needs no flush: the page cache survives it). In an object store the PUT is atomic.
    """
    data = json.dumps(journal.to_json()).encode()
    root = store.local_root
    if root is None:
        store.put_atomic(JOURNAL, data)
        crash_points.step()
        return
    temporary = root / f"{JOURNAL}.tmp"
    with open(temporary, "wb") as f:
        f.write(data)
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    os.replace(temporary, root / JOURNAL)
    if fsync:
        _fsync_directory(root)
    crash_points.step()


def apply(store: Output, journal: Journal, fsync: bool = True) -> None:
    """Land every staged object on its key in journal order, then remove staging and journal.

    Idempotent: a key whose staged copy is gone was landed by an earlier, interrupted apply.
    """
    for move in journal.moves:
        if not store.promote(f"{STAGING}/{move.key}", move.key):
            if store.size(move.key) is None:
                raise StoreError(
                    f"append journal lists {move.key} but neither the staged copy nor the object exists; "
                    "the store was changed by something else during the append"
                )
            continue
        crash_points.step()
    # The committed journal says whose staging area this is: no mark needed.
    store.delete_prefix(STAGING)
    _discard_journal_temporary(store)
    crash_points.step()
    store.delete_prefix(JOURNAL)
    if fsync and store.local_root is not None:
        _fsync_directory(store.local_root)


def discard_staging(store: Output) -> None:
    """Remove the staging area of an append that died before it committed, and the temporary
    journal it may have left. Either one that this tool did not write (a staging area holding
    objects but no staging mark, a temporary journal that is not the start of a journal) is a
    StoreError naming it, and nothing is removed. The mark goes last, so an interrupted removal
    leaves an area the next append still recognises."""
    staged = [key for key in store.keys(STAGING) if key.startswith(f"{STAGING}/")]
    if store.size(STAGING) is not None:
        staged.append(STAGING)  # an object at the staging area's own name is nobody's staging
    mark = f"{STAGING}/{APPEND_STAGING_MARK}"
    if staged and mark not in staged:
        raise StoreError(
            f"{store.describe()}/{STAGING} holds {len(staged)} object(s) that chronozarr append did not stage "
            f"(there is no {APPEND_STAGING_MARK} in it); nothing was removed: move it out of the store, then append again"
        )
    for child in sorted({key.split("/")[1] for key in staged if key != STAGING} - {APPEND_STAGING_MARK}):
        store.delete_prefix(f"{STAGING}/{child}")
    store.delete_prefix(STAGING)
    _discard_journal_temporary(store)


def _discard_journal_temporary(store: Output) -> None:
    """Remove the temporary journal a commit writes in a directory, when it is one: empty, or the
    first bytes of a journal document (a commit killed while writing it)."""
    if store.local_root is None:
        return
    name = f"{JOURNAL}.tmp"
    data = store.get(name)
    if data is None:
        return
    head = json.dumps({JOURNAL_MARK: JOURNAL_VERSION}).encode()[:-1]  # '{"chronozarr_append_journal": 1'
    if data[: len(head)] != head[: len(data)]:
        where = f"{store.describe()}/{name}"
        raise StoreError(f"{where} is not a journal chronozarr append wrote; nothing was removed: move it out of the store, then append again")
    store.delete_prefix(name)


@contextmanager
def store_lock(store: Output) -> Iterator[None]:
    """One append at a time: an exclusive flock on a store directory, released even on SIGKILL.
    An object store has no lock (the module docstring says so)."""
    root = store.local_root
    if root is None:
        yield
        return
    fd = os.open(root, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"another append is running on {root}; wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
