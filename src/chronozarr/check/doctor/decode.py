"""Check 12 of `doctor`, for directories and URLs alike: the store validates, every level decodes,
and zarr-python alone reads the same pixel as chronozarr."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..validate.run import validate
from .report import DoctorReport


def validate_check(report: DoctorReport, location: Any) -> None:
    """The validator's verdict as one line; its full list is `chronozarr validate`'s job."""
    try:
        result = validate(location)
    except Exception as exc:  # noqa: BLE001 - a validator crash is a finding, not a doctor crash
        report.fail("12", "validate", f"the validator stopped: {type(exc).__name__}: {exc}")
        return
    fails, warns = result.fails, result.warnings
    if fails:
        first = "; ".join(f"{f.section} {f.key}: {f.message}" for f in fails[:3])
        report.fail("12", "validate", f"{len(fails)} rule(s) broken ({first}); run chronozarr validate for all")
    elif warns:
        first = "; ".join(f"{f.section} {f.key}: {f.message}" for f in warns[:3])
        report.warn("12", "validate", f"valid, {len(warns)} warning(s): {first}")
    else:
        report.passed("12", "validate", "the layout follows every MUST of the spec")


@dataclass(frozen=True)
class ArrayMeta:
    """What the plain-zarr check needs of level 0's data array."""

    path: str  # e.g. "0/data"
    doc: Mapping[str, Any]


def decode_checks(report: DoctorReport, location: Any, plain_reader: Any, **open_options: Any) -> None:
    """Cell (0, 0) of the first and last timestep at every level, then the plain-zarr pixel read
    with `plain_reader(meta)`, which differs between a directory and a URL."""
    from ...read.dataset import open_dataset

    try:
        store = open_dataset(location, **open_options)
    except Exception as exc:  # noqa: BLE001
        report.fail("12", "decode", f"the store does not open: {type(exc).__name__}: {exc}")
        return
    with store:
        n_time = len(store.times)
        steps = sorted({0, n_time - 1})
        for level in store.levels:
            name = f"decode level {level.index}"
            try:
                for t in steps:
                    cell = store.read_cell(t, 0, 0, lod=level.index)
                    if not np.asarray(cell).size:
                        raise ValueError("empty result")
            except Exception as exc:  # noqa: BLE001
                report.fail("12", name, f"cell (0, 0) does not decode: {type(exc).__name__}: {exc}")
                continue
            shown = " and ".join(str(t) for t in steps)
            report.passed("12", name, f"cell (0, 0) of timestep {shown} decodes ({level.shape[2]} x {level.shape[3]}, grid {level.grid[0]} x {level.grid[1]})")
        _plain_zarr_check(report, store, plain_reader)
        _history_check(report, store)


def _history_check(report: DoctorReport, store: Any) -> None:
    """A declared history is served: for the data and the mask copy, the first shard's index by
    one range, then an inner chunk."""
    if store.meta.history_problem is not None:
        report.fail("12", "history array", f"declared but unusable, so readers fall back to level 0: {store.meta.history_problem}")
        return
    for name, reader in (("history array", store.history), ("history mask copy", store.history_mask)):
        if reader is None:
            continue
        key = reader.part.shard_key(0, 0, 0)
        before = store.stats.requests
        try:
            reader.inner_chunk(0, 0, 0, 0)
        except Exception as exc:  # noqa: BLE001
            report.fail("12", name, f"{key}: the shard index or an inner chunk cannot be read by range: {type(exc).__name__}: {exc}")
            continue
        report.passed("12", name, f"{key}: shard index and inner chunk read with {store.stats.requests - before} range request(s)")


def _plain_zarr_check(report: DoctorReport, store: Any, plain_reader: Any) -> None:
    """One pixel read by zarr-python alone must equal the chronozarr decode. Plain zarr sees
    residuals on star-delta delta timesteps (spec 0), so the pixel is taken at an anchor."""
    name = "plain zarr pixel"
    level = store.meta.levels[0]
    anchors = list(store.temporal.anchor_indices) if store.encoding == "star-delta" else []
    t = max(anchors) if anchors else len(store.times) - 1
    y, x, band = level.height // 2, level.width // 2, level.shape[1] - 1
    meta = ArrayMeta(f"{level.path}/{store.meta.variable}", {})
    try:
        expected = store.read_point(y, x, lod=0, times=[t])[0, band]
    except Exception as exc:  # noqa: BLE001
        report.fail("12", name, f"chronozarr cannot read pixel ({y}, {x}) of timestep {t}: {exc}")
        return
    try:
        got, how = plain_reader(meta)((t, band, y, x))
    except Exception as exc:  # noqa: BLE001
        report.fail("12", name, f"zarr-python cannot read {meta.path}[{t}, {band}, {y}, {x}]: {type(exc).__name__}: {exc}")
        return
    if _same(got, expected):
        report.passed("12", name, f"{meta.path}[{t}, {band}, {y}, {x}] = {got} through zarr-python ({how}), equal to the chronozarr decode")
    else:
        report.fail("12", name, f"{meta.path}[{t}, {band}, {y}, {x}]: zarr-python ({how}) reads {got}, chronozarr decodes {expected}")


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return bool(np.array_equal(a, b) or (a.dtype.kind == "f" and np.isnan(a).all() and np.isnan(b).all()))


def plain_local(root: str, meta: ArrayMeta) -> Any:
    """The plain-zarr reader of a store directory."""
    import zarr

    def read(index: tuple[int, ...]) -> tuple[Any, str]:
        array = zarr.open_array(store=root, path=meta.path, mode="r")
        return array[index], "local store"

    return read
