"""What an append may change in the root block (spec 14), as one rule: publish uses it to refuse
uploading a store over a published one that it does not extend, and its tests pin it."""

from __future__ import annotations

from dataclasses import replace

from .root_block import APPEND_GROWS, RootBlock

# Where an append stages its objects, and the journal whose presence means it committed and has
# objects left to land: the writer makes them, validate reports them.
APPEND_STAGING = ".chronozarr-append-staging"
APPEND_JOURNAL = ".chronozarr-append-journal"
# Written first into the staging area: what lets a later append remove a staging area it finds
# there (one that holds objects without it was not made by an append, and is left alone).
APPEND_STAGING_MARK = ".chronozarr-staged-by-append"
JOURNAL_MARK = "chronozarr_append_journal"  # the member that makes a JSON document a journal (its version)


def growth_mismatch(published: RootBlock, local: RootBlock) -> str | None:
    """None when `local` is `published` grown at the end of its time axis, else why not.

    Equal outside APPEND_GROWS; the published times a strict prefix of the local ones; the same
    temporal encoding with every published anchor and reference kept; the same levels except for
    their time length; every published level still listed in shard_bytes.
    """
    old, new = published.to_dict(), local.to_dict()
    for name in sorted(set(old) | set(new)):
        if name not in APPEND_GROWS and old.get(name) != new.get(name):
            return f"root attribute chronozarr.{name} differs"
    old_times, new_times = published.times or (), local.times or ()
    if new_times[: len(old_times)] != old_times:
        return "the published timesteps are not the first timesteps of the local store"
    if len(new_times) == len(old_times):
        return "the local store has no timesteps beyond the published ones: it is already published"
    return _temporal_mismatch(published, local) or _levels_mismatch(published, local) or _history_mismatch(published, local)


def _temporal_mismatch(published: RootBlock, local: RootBlock) -> str | None:
    old, new = published.temporal, local.temporal
    if (old.encoding, old.anchor_interval) != (new.encoding, new.anchor_interval):
        return "the temporal encoding differs"
    if new.anchor_indices[: len(old.anchor_indices)] != old.anchor_indices:
        return "published anchors are missing from the local store"
    if any(new.delta_reference.get(t) != ref for t, ref in old.delta_reference.items()):
        return "a published delta reference changed"
    return None


def _levels_mismatch(published: RootBlock, local: RootBlock) -> str | None:
    old_levels, new_levels = published.levels or (), local.levels or ()
    if len(old_levels) != len(new_levels):
        return "the number of levels differs"
    for old, new in zip(old_levels, new_levels, strict=True):
        if replace(old, shape=new.shape) != new:
            return f"level {old.path} differs"
        if old.shape[1:] != new.shape[1:]:
            return f"level {old.path} changed its band or spatial shape"
    if set(published.shard_bytes or {}) - set(local.shard_bytes or {}):
        return "shard_bytes lost a level"
    return None



def _history_mismatch(published: RootBlock, local: RootBlock) -> str | None:
    """The history array kept with its layout, and its full published time blocks unchanged
    (docs/format-history.md: an append rewrites only the blocks it grows)."""
    old, new = published.history, local.history
    if (old is None) != (new is None) or (published.history_problem is None) != (local.history_problem is None):
        return "the history array was added or removed"
    if old is None or new is None:
        return None
    if (old.time_cap, old.chunk_shape, old.shard_shape) != (new.time_cap, new.chunk_shape, new.shard_shape):
        return "the history array's time_cap, chunk_shape or shard_shape differs"
    if (old.mask_shard_bytes is None) != (new.mask_shard_bytes is None):
        return "the history's mask copy was added or removed"
    if old.levels != new.levels:
        return "the levels with a history differ"
    last = max((int(key.split("/")[0]) for key in old.shard_bytes), default=0)
    for mine, theirs in zip(old.every_level, new.every_level, strict=True):
        for before, after in ((mine.shard_bytes, theirs.shard_bytes), (mine.mask_shard_bytes or {}, theirs.mask_shard_bytes or {})):
            if any(after.get(key) != n for key, n in before.items() if int(key.split("/")[0]) < last):
                return "a published history shard of a full time block changed"
    return None
