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
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .crashpoints import KILL_ENV, crash_points
from .objects import ObjectCounter, ObjectWriter
from .output import LocalOutput

STAGING = ".chronozarr-append-staging"
JOURNAL = ".chronozarr-append-journal"
JOURNAL_VERSION = 1
NEW, REWRITTEN, METADATA = "new", "rewritten", "metadata"


class StagingWriter(ObjectWriter):
    """An ObjectWriter under the staging area whose every write is a crash point."""

    SPOOL = ".chronozarr-spool"

    def __init__(self, store: Path, counter: ObjectCounter | None = None) -> None:
        self.root = Path(store) / STAGING
        super().__init__(LocalOutput(self.root, spool_name=self.SPOOL), counter, step=crash_points.step)

    def path(self, key: str) -> Path:
        return self.root / key

    def staged(self) -> list[str]:
        """Every staged key, sorted."""
        out = []
        for dirpath, dirnames, files in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d != self.SPOOL]
            rel = os.path.relpath(dirpath, self.root)
            out += [name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}" for name in files]
        return sorted(out)

    def flush(self) -> None:
        """fsync every staged file, so the commit never names bytes still only in memory."""
        for key in self.staged():
            fd = os.open(self.path(key), os.O_RDONLY)
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
            "chronozarr_append_journal": JOURNAL_VERSION,
            "times": list(self.times),
            "old_n_time": self.old_n_time,
            "moves": [[m.key, m.kind, m.nbytes] for m in self.moves],
        }

    @classmethod
    def from_json(cls, doc: Any, where: str) -> "Journal":
        try:
            if doc["chronozarr_append_journal"] != JOURNAL_VERSION:
                raise ValueError(f"journal version {doc['chronozarr_append_journal']!r}")
            moves = tuple(Move(str(k), str(kind), int(n)) for k, kind, n in doc["moves"])
            return cls(tuple(str(t) for t in doc["times"]), int(doc["old_n_time"]), moves)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"{where} is not an append journal this version understands ({exc})") from None


def load_journal(store: Path) -> Journal | None:
    """The committed journal of an interrupted append, or None."""
    path = store / JOURNAL
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{path} is not valid JSON ({exc}); it was written by rename, so it was edited") from None
    return Journal.from_json(doc, str(path))


def commit(store: Path, journal: Journal, fsync: bool = True) -> None:
    """Write the journal atomically: after this rename the append will complete, whatever happens.

    With fsync the journal is on disk before the rename, so a power cut cannot commit a journal
    whose content is lost (a killed process needs no flush: the page cache survives it).
    """
    temporary = store / f"{JOURNAL}.tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(journal.to_json(), f)
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    os.replace(temporary, store / JOURNAL)
    if fsync:
        _fsync_directory(store)
    crash_points.step()


def apply(store: Path, journal: Journal, fsync: bool = True) -> None:
    """Move every staged object onto its key in journal order, then remove staging and journal.

    Idempotent: a key whose staged file is gone was moved by an earlier, interrupted apply.
    """
    staging = store / STAGING
    for move in journal.moves:
        source = staging / move.key
        if not source.exists():
            if not (store / move.key).exists():
                raise StoreError(
                    f"append journal lists {move.key} but neither the staged copy nor the object exists; "
                    "the store was changed by something else during the append"
                )
            continue
        target = store / move.key
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)
        crash_points.step()
    discard_staging(store)
    crash_points.step()
    (store / JOURNAL).unlink(missing_ok=True)
    if fsync:
        _fsync_directory(store)


def discard_staging(store: Path) -> None:
    """Remove the staging area (an uncommitted append, or the leftovers of an applied one)."""
    shutil.rmtree(store / STAGING, ignore_errors=True)
    (store / f"{JOURNAL}.tmp").unlink(missing_ok=True)


@contextmanager
def store_lock(store: Path) -> Iterator[None]:
    """One append at a time: an exclusive flock on the store directory, released even on SIGKILL."""
    fd = os.open(store, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"another append is running on {store}; wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
