"""Windows of the time axis as dask.distributed tasks; each task writes its own objects."""

from __future__ import annotations

import math
from dataclasses import replace
import uuid
from collections.abc import Callable
from typing import Any

import xarray as xr

from .plan import Plan
from .source import Series
from .timesteps import RangeResult, write_timesteps


def active_client(data: xr.DataArray) -> Any | None:
    """The current distributed client when the input is dask-backed and one is running."""
    if not _is_dask(data):
        return None
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:
        return None


def _is_dask(data: xr.DataArray) -> bool:
    return type(data.variable._data).__module__.startswith("dask")


def windows(plan: Plan, n_workers: int) -> list[tuple[int, int]]:
    """[start, stop) ranges: whole time shards when sharded, else about two windows per worker."""
    if plan.sharded:
        return plan.time_shards()
    size = max(1, math.ceil(plan.n_time / max(1, 2 * n_workers)))
    return [(s, min(s + size, plan.n_time)) for s in range(0, plan.n_time, size)]


def _window_task(plan: Plan, series: Series, start: int, stop: int, abort_name: str) -> RangeResult | None:
    """Write one window; stop between timesteps once the caller raised the abort event."""
    import dask
    from distributed import Event

    abort = Event(abort_name)
    with dask.config.set(scheduler="sync"):
        return write_timesteps(plan, replace(series, scheduler="sync"), start, stop, should_stop=abort.is_set)


def write_windows(plan: Plan, series: Series, advance: Callable[[int], None]) -> RangeResult:
    """Submit every window to the cluster and merge what they wrote."""
    from distributed import Event, as_completed

    client = active_client(series.data)
    n_workers = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
    abort = Event(f"chronozarr-abort-{uuid.uuid4().hex}", client=client)
    futures = {
        client.submit(_window_task, plan, series, start, stop, abort.name, pure=False): stop - start
        for start, stop in windows(plan, n_workers)
    }
    total = RangeResult()
    try:
        for future in as_completed(futures):
            total.merge(future.result())
            advance(futures[future])
    except BaseException:
        _stop(abort, list(futures))
        raise
    return total


def _stop(abort: Any, futures: list[Any]) -> None:
    """Tell every window to stop and wait until none is writing, so nothing is written after the
    caller removes a failed store."""
    from distributed import wait

    abort.set()
    wait(futures, return_when="ALL_COMPLETED")
