"""`validate`: check a store against every MUST of the chronozarr spec, from its raw documents.

The rules live in small modules by subject; this one opens the store, runs them in dependency
order (the root before the levels, the levels before anything that needs a shape) and makes sure
that a malformed store ends as findings, never as a traceback.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping

from ...errors import AccessError, StoreError
from ...format.append_rule import APPEND_JOURNAL, JOURNAL_MARK
from ...format.zarrjson import parse_json
from ...read.history import HistoryWarning
from ...store import ObjectStore, not_a_directory, open_object_store
from ..context import Context, local_root
from ..findings import Report
from ..objects import check_objects
from .checksums import check_checksums
from .coords import check_consolidated, check_coordinates, check_volatility
from .gridmapping import check_grid_mapping
from .history import check_history
from .levels import check_levels
from .pyramid import check_pyramid
from .root import check_nodata_dtype, check_root, check_temporal

Step = Callable[[Context], None]


def validate(store: str | os.PathLike[str] | ObjectStore, *, sample_pyramid: bool = True, sample: int | None = None) -> Report:
    """A Report of every rule the store breaks; `report.ok` is True when no MUST is broken.

    `store` is a directory, an http(s) or s3://, gs://, az:// URL, or an open source. A store that
    cannot be read at all (credentials, permissions, no such bucket) raises AccessError. A store that can be listed
    (every backend but HTTP) is also listed for unexpected objects. `sample_pyramid` reads a few cells per level to check the reductions.
    A history array's inner chunks are compared with level 0, all of them or `sample` chosen at random.
    """
    if isinstance(store, (str, os.PathLike)):
        name = os.fspath(store)
        report = Report(name)
        root_dir = local_root(name)
        if root_dir is not None and not root_dir.is_dir():
            report.fail("2", name, f"no store here: {not_a_directory(root_dir)}")
            return report
        try:
            source = open_object_store(name)
        except StoreError as exc:
            report.fail("9", name, f"cannot open the store: {exc}")
            return report
    else:
        source, root_dir = store, store.local_root
        report = Report(source.describe(""))
    ctx = Context(source=source, report=report, local_root=root_dir, history_sample=sample)
    if not _load_root(ctx):
        return report
    if not check_root(ctx) or _interrupted_append(ctx):
        return report
    steps: list[tuple[str, Step]] = [
        ("2.1", check_levels),
        ("2.3", check_nodata_dtype),
        ("4.1", check_temporal),
        ("2.2", check_coordinates),
        ("3.3", check_grid_mapping),
        ("5", check_volatility),
        ("history", check_history),
        ("3.1", check_consolidated),
        ("2", check_objects),
        ("8", check_checksums),
    ]
    if sample_pyramid:
        steps.append(("6", check_pyramid))
    with warnings.catch_warnings():  # an unusable history declaration is a finding here, not a warning
        warnings.simplefilter("ignore", HistoryWarning)
        for section, step in steps:
            _guarded(ctx, section, step)
    return report


def _load_root(ctx: Context) -> bool:
    """The root zarr.json as an object; a store without one gets a single failure."""
    try:
        raw = ctx.source.get("zarr.json")
    except AccessError:
        raise  # the store could not be read at all: an error for the caller, not a finding
    except (StoreError, OSError) as exc:
        ctx.report.fail("3.1", "zarr.json", f"cannot be read: {exc}")
        return False
    if raw is None:
        ctx.report.fail("3.1", "zarr.json", "missing: not a chronozarr store, or an upload that has not finished")
        return False
    try:
        root = parse_json(raw)
    except ValueError as exc:
        ctx.report.fail("3.1", "zarr.json", str(exc))
        return False
    if not isinstance(root, Mapping):
        ctx.report.fail("3.1", "zarr.json", f"must be a JSON object, got {type(root).__name__}")
        return False
    ctx.root = root
    ctx._docs[""] = root
    return True


def _interrupted_append(ctx: Context) -> bool:
    """True, with a finding that says how to complete it, when an append committed its journal and
    was stopped before it landed every object. The documents and objects it has landed already
    describe the new timesteps while the root does not yet: the rest is checked once it completes."""
    try:  # a journal, not a host's fallback page for an absent key
        raw = ctx.source.get(APPEND_JOURNAL)
        pending = raw is not None and isinstance(doc := parse_json(raw), Mapping) and JOURNAL_MARK in doc
    except (StoreError, OSError, ValueError):
        return False
    if pending:
        ctx.report.warn(
            "14", APPEND_JOURNAL,
            "an append was interrupted after it committed (its journal is still here): readers see the store whole, "
            "as it was before the append or with it once its root landed, and only the root document was checked; "
            "run the same `chronozarr append STORE INPUT` again to complete it (it completes the interrupted append first), "
            "then validate again",
        )
    return pending


def _guarded(ctx: Context, section: str, step: Step) -> None:
    """Run one group of rules; input so malformed that a rule trips over it becomes a finding."""
    try:
        step(ctx)
    except (StoreError, OSError, KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as exc:
        ctx.report.fail(section, "zarr.json", f"could not finish {step.__name__.replace('_', ' ')}: {type(exc).__name__}: {exc}")
