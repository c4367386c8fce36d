"""`publish`: upload a store to an object store in the order that keeps readers safe (spec 9, 14).

Three phases: the chunk, shard and coordinate objects in parallel (within it, `time/c/0` and
volatility after the chunks and shards, as spec 14 orders an append), then every `zarr.json` below
the root, then the root `zarr.json`. A phase starts only when the one before has finished without an
error, so a reader that finds the root finds a complete store, and an interrupted upload leaves no
root. Each object carries the Cache-Control of its class (`format.caching`), never a
Content-Encoding. A non-empty destination is refused unless the local store is an append of the
store already there (or `force`). With `viewer`, a fourth phase uploads the viewer app under
`viewer/`, so the store opens in a browser with nothing else deployed.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .buckets import is_bucket_url
from .errors import OutputExistsError, PublishError, StoreError
from .format.append_rule import growth_mismatch
from .format.caching import IMMUTABLE, METADATA, REWRITTEN, ROOT, SHORT_TTL_SECONDS, TRAILING, cache_control, chronozarr_block, object_class
from .format.root_block import RootBlock
from .format.zarrjson import parse_json
from .hosted_viewer import CACHE_CONTROL as VIEWER_CACHE
from .hosted_viewer import PREFIX as VIEWER_PREFIX
from .hosted_viewer import viewer_objects
from .store.bucket import BucketStore
from .store.directory import DirectoryStore

# The order objects go up in: (phase shown to the user, classes uploaded together).
STEPS: tuple[tuple[int, frozenset[str]], ...] = (
    (1, frozenset({IMMUTABLE, TRAILING})),
    (1, frozenset({REWRITTEN})),
    (2, frozenset({METADATA})),
    (3, frozenset({ROOT})),
)
VIEWER_PHASE = 4


@dataclass(frozen=True)
class PlannedObject:
    key: str  # relative to the store root, "/"-separated
    path: Path | bytes  # the local file, or the object's bytes (the viewer's entry page)
    object_class: str
    cache_control: str
    phase: int
    step: int
    content_type: str = "application/octet-stream"


@dataclass(frozen=True)
class PublishSummary:
    destination: str
    uploaded: tuple[str, ...]
    skipped_older: int
    seconds: float


# -- planning ----------------------------------------------------------------------------------


def plan(store: str | os.PathLike[str], *, newer_than: float | None = None, short_ttl: int = SHORT_TTL_SECONDS) -> list[PlannedObject]:
    """Every object to upload, in upload order, classified by the store's current state."""
    root = Path(store)
    root_doc = _read_json(root / "zarr.json")
    block = chronozarr_block(root_doc)
    if block is None:
        raise StoreError(f"{root} is not a chronozarr store: no zarr.json with a chronozarr attribute")
    docs: dict[str, Any] = {}

    def array_doc(path: str) -> Any:
        if path not in docs:
            docs[path] = _read_json(root.joinpath(*path.split("/"), "zarr.json"))
        return docs[path]

    objects = []
    for key in sorted(_keys(root)):
        path = root / key
        if newer_than is not None and path.stat().st_mtime <= newer_than:
            continue
        cls = object_class(key, block, array_doc)
        step = next(i for i, (_, classes) in enumerate(STEPS) if cls in classes)
        content_type = "application/json" if key.endswith("zarr.json") else "application/octet-stream"
        objects.append(PlannedObject(key, path, cls, cache_control(cls, short_ttl), STEPS[step][0], step, content_type))
    objects.sort(key=lambda o: (o.step, o.key))
    return objects


def _keys(root: Path) -> Iterable[str]:
    """The keys of the store directory, listed by its store (publish uploads local files and reads
    their mtimes, so its source is a directory). Zarr v3 has no dotfiles (spec 9): `.DS_Store`
    and editor droppings stay home."""
    for key, _ in DirectoryStore(root).list():
        if not any(part.startswith(".") for part in key.split("/")):
            yield key


def _read_json(path: Path) -> Any:
    try:
        return parse_json(path.read_bytes())
    except (OSError, ValueError):
        return None


def parse_newer_than(value: str | float | os.PathLike[str] | None) -> float | None:
    """A POSIX time from a file (its mtime), an ISO 8601 timestamp or seconds since the epoch."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = os.fspath(value)
    if os.path.exists(text):
        return os.stat(text).st_mtime
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise PublishError(f"--newer-than {text!r} is neither an existing file, an ISO 8601 time nor epoch seconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


# -- destinations ------------------------------------------------------------------------------


def open_destination(dest: str, *, endpoint: str | None = None, **config: Any) -> BucketStore:
    """The object-store prefix `dest` (s3://bucket/prefix, gs://..., az://container/prefix).
    Credentials come from the provider's usual environment variables; `endpoint` points the
    destination at another service speaking its API (R2, MinIO, a GCS or Azure emulator)."""
    if not is_bucket_url(dest):
        raise PublishError(f"destination {dest!r} must start with s3://, gs:// or az://")
    return BucketStore(dest, endpoint=endpoint, config=config)


def _put(bucket: BucketStore, obj: PlannedObject) -> None:
    """One upload (a local file streamed and kept, or bytes). Module level, so tests can watch or break it."""
    attributes = {"Cache-Control": obj.cache_control, "Content-Type": obj.content_type}
    if isinstance(obj.path, Path):
        bucket.put_file(obj.key, obj.path, keep=True, attributes=attributes)
    else:
        bucket.put(obj.key, obj.path, attributes=attributes)


def _remote_root(bucket: BucketStore) -> Any:
    raw = bucket.get("zarr.json")
    if raw is None:
        return None
    try:
        return parse_json(raw)
    except ValueError:
        return {}


# -- appends -----------------------------------------------------------------------------------


def append_mismatch(published: Mapping[str, Any] | None, local: Mapping[str, Any]) -> str | None:
    """None when the local root block `local` extends the `published` one (spec 14), else why not;
    the rule itself is format/append_rule's."""
    if published is None:
        return "the destination has objects but no chronozarr root zarr.json (an unfinished upload, or another store)"
    try:
        old = RootBlock.from_dict(published)
    except (ValueError, TypeError) as exc:
        return f"the published root zarr.json has a chronozarr block this version cannot read ({exc})"
    try:
        new = RootBlock.from_dict(local)
    except (ValueError, TypeError) as exc:
        raise StoreError(f"the local store's root zarr.json has a chronozarr block this version cannot read ({exc}); run chronozarr validate on it") from None
    return growth_mismatch(old, new)


# -- the upload --------------------------------------------------------------------------------


def publish(
    store: str | os.PathLike[str],
    dest: str,
    *,
    endpoint: str | None = None,
    newer_than: str | float | os.PathLike[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    concurrency: int = 8,
    short_ttl: int = SHORT_TTL_SECONDS,
    object_store: Any = None,
    viewer: bool = False,
    echo: Callable[[str], None] | None = None,
) -> PublishSummary:
    """Upload `store` to `dest` in three phases; see the module docstring. `object_store` is an
    already configured obstore store (tests, custom credentials) used instead of opening `dest`.
    `viewer` adds a fourth phase: the viewer app under `dest/viewer/` (`hosted_viewer`)."""
    echo = echo or (lambda line: print(line, file=sys.stderr))
    started = time.perf_counter()
    root = Path(store)
    if not (root / "zarr.json").is_file():
        raise StoreError(f"no store at {root}: there is no zarr.json in it")
    threshold = parse_newer_than(newer_than)
    every = plan(root, short_ttl=short_ttl)
    objects = [o for o in every if threshold is None or (isinstance(o.path, Path) and o.path.stat().st_mtime > threshold)]
    skipped = len(every) - len(objects)
    app = _viewer_plan() if viewer else []
    objects += app
    if dry_run:
        for obj in objects:
            echo(f"phase {obj.phase}  {obj.object_class:<9}  {obj.cache_control:<36}  {obj.key}")
        older = f" ({skipped} older ones skipped)" if skipped else ""
        echo(f"dry run: {len(objects)} objects would go to {dest}{older}; nothing uploaded, the destination was not read")
        return PublishSummary(dest, (), skipped, time.perf_counter() - started)

    target = BucketStore(dest, obstore=object_store) if object_store is not None else open_destination(dest, endpoint=endpoint)
    if not force and next(iter(target.list()), None) is not None:
        reason = append_mismatch(chronozarr_block(_remote_root(target)), chronozarr_block(_read_json(root / "zarr.json")) or {})
        if reason is not None:
            raise OutputExistsError(
                f"{dest} is not empty and the local store is not an append of it: {reason}. Publish each encode "
                "under a new prefix (objects are cached as immutable); --force overwrites anyway"
            )
    uploaded: list[str] = []
    for step, (phase, _) in enumerate(STEPS):
        batch = [o for o in objects if o.step == step]
        if not batch:
            continue
        _upload_batch(target, batch, concurrency, dest, phase)
        uploaded.extend(o.key for o in batch)
        echo(f"phase {phase}: {len(batch)} objects uploaded")
    if app:
        for batch in (app[:-1], app[-1:]):  # the entry page once the app it loads is complete
            _upload_batch(target, batch, concurrency, dest, VIEWER_PHASE)
        uploaded.extend(o.key for o in app)
        echo(f"phase {VIEWER_PHASE}: the viewer, {len(app)} objects; open {dest}/{VIEWER_PREFIX}/index.html at the "
             f"https:// address the bucket is served from ({VIEWER_PREFIX}/ alone where the host serves index pages)")
    return PublishSummary(dest, tuple(uploaded), skipped, time.perf_counter() - started)


def _viewer_plan() -> list[PlannedObject]:
    """The viewer app's objects as a last phase, after the store's root (`hosted_viewer`)."""
    return [
        PlannedObject(o.key, o.body, "viewer", VIEWER_CACHE, VIEWER_PHASE, len(STEPS), o.content_type)
        for o in viewer_objects()
    ]


def _upload_batch(target: BucketStore, batch: list[PlannedObject], concurrency: int, dest: str, phase: int) -> None:
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="chronozarr-publish") as pool:
        futures = {pool.submit(_put, target, obj): obj for obj in batch}
        done, pending = wait(futures, return_when=FIRST_EXCEPTION)
        for future in pending:
            future.cancel()
        wait(pending)
    failed = [(futures[f], f.exception()) for f in futures if not f.cancelled() and f.exception() is not None]
    if failed:
        obj, exc = failed[0]
        raise PublishError(
            f"upload of {obj.key} to {dest} failed in phase {phase} ({type(exc).__name__}: {exc}); "
            f"{len(failed)} object(s) failed and later phases were not started, so the root zarr.json "
            "was not uploaded. Fix the cause and run publish again (a first upload needs --force then, since "
            "the prefix now holds objects but no root; an append does not)"
        ) from exc
