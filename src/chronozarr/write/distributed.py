"""Work units as dask.distributed tasks; each task writes its own objects straight to the output.

No two units write one object or one shard (write/units.py), so tasks need no coordination; the
caller records each finished unit and writes the metadata once every unit is done.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import xarray as xr

from ..errors import ClusterError
from .walk import WriteResult


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


class Named(Protocol):
    """A task's item: a work unit or a history shard, named for the task key and the records."""

    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=Named)


def run_on_cluster(
    client: Any,
    task: Callable[[N, str], WriteResult | None],
    items: list[N],
    finished: Callable[[N, WriteResult], None],
) -> None:
    """Submit `task(item, abort event name)` for every item, report each as it finishes; on any
    failure stop the others first."""
    from distributed import Event, as_completed

    abort = Event(f"chronozarr-abort-{uuid.uuid4().hex}", client=client)
    futures = {
        client.submit(task, item, abort.name, pure=False, key=f"chronozarr-{item.name}-{uuid.uuid4().hex[:8]}"): item
        for item in items
    }
    try:
        for future in as_completed(futures):
            item = futures[future]
            result = future.result()
            if result is None:
                raise ClusterError(f"cluster task for {item.name} stopped before it finished")
            finished(item, result)
    except BaseException:
        _stop(abort, list(futures))
        raise


def _stop(abort: Any, futures: list[Any]) -> None:
    """Tell every task to stop and wait until none is writing, so nothing is written after the
    caller reports the failure."""
    from distributed import wait

    abort.set()
    wait(futures, return_when="ALL_COMPLETED")
