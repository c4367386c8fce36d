"""Claiming an output before an encode: a store is never written over, and what a failed run
started is removed again (write/encode.py)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutputExistsError
from .output import SCRATCH, Output, write_error
from .resume import ResumeLog


@dataclass(frozen=True)
class Claim:
    """What claiming an output found: whether this run starts it, and whether it created it."""

    started: bool
    created: bool


def claim(output: Output, *, resume: bool, dry_run: bool = False) -> Claim:
    """Check that the output may be written and (unless dry_run) create it.

    A store is never written over: the output must be new or empty, unless `resume` continues
    the interrupted encode it holds. The refusal names --resume when that is what the user needs.
    """
    root = output.local_root
    if root is not None and root.exists() and not root.is_dir():
        raise OutputExistsError(f"{root} exists and is not a directory; choose a new output path")
    if output.is_empty():
        created = root is not None and not root.exists()
        if root is not None and created and not dry_run:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise write_error(exc, str(root)) from None
        return Claim(started=True, created=created)
    if resume:
        return Claim(started=False, created=False)
    where = output.describe()
    if output.get(f"{SCRATCH}/run.json") is not None:
        raise OutputExistsError(
            f"{where} holds an interrupted encode; run the same command again with --resume to complete it, "
            "or choose a new path"
        )
    raise OutputExistsError(
        f"{where} is not empty; stores are never overwritten. Choose a new path or remove it first "
        "(an interrupted encode is completed with --resume)"
    )


def discard_claim(output: Output, claimed: Claim, members: Iterable[str], journal: ResumeLog) -> None:
    """Remove what a failed run started: the root `members` it writes and its scratch entry, and
    only when the output holds the run record this run wrote first (the output was empty when it
    was claimed); never anything else that appeared in the output meanwhile. An output directory
    the run created goes too once that leaves it empty (one the user made stays)."""
    if journal.holds_record():
        for name in (*members, SCRATCH):
            output.delete_prefix(name)
    root = output.local_root
    if root is not None and claimed.created:
        with contextlib.suppress(OSError):  # not empty: something not ours is in it, and stays
            root.rmdir()


def sample_scratch(output: Output) -> Path:
    """A local directory for auto selection's sample chunks: inside a directory output (so it
    goes with the encode's record), else in the machine's temporary directory."""
    if output.local_root is not None:
        return output.local_root / SCRATCH / "sample"
    return Path(tempfile.mkdtemp(prefix="chronozarr-sample-"))
