"""encode on a dask.distributed cluster: work units run as cluster tasks and the store is the local one."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
import zarr

import chronozarr

import distributed
import dask.array  # noqa: F401

N_TIME = 5
UNIT_TASK = "chronozarr"  # the prefix of the keys of tasks submitted by distributed.run_on_cluster


@pytest.fixture(scope="module")
def client():
    """Two single-threaded worker processes (so plan and series travel pickled); always shut down."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def inputs(series_factory):
    """A series with nodata pixels, a mask and a coverage plane, big enough for four levels."""
    da = series_factory(n_time=N_TIME, n_band=2, height=70, width=45, seed=7)
    values = da.values.copy()
    rng = np.random.default_rng(11)
    values[rng.random(values.shape) < 0.05] = 0
    values[:, :, :16, :16] = 0  # one all-nodata cell at every timestep
    da = da.copy(data=values)
    mask = (rng.random((N_TIME, 70, 45)) > 0.1).astype(np.uint8)
    coverage = rng.integers(0, 300, size=(N_TIME, 70, 45), dtype=np.uint16)
    return da, mask, coverage


def _objects(root: Path) -> dict[str, bytes]:
    """Every chunk or shard object below the root (metadata documents excluded)."""
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name != "zarr.json":
                path = Path(dirpath) / name
                out[str(path.relative_to(root))] = path.read_bytes()
    return out


def _arrays(group: zarr.Group) -> dict[str, zarr.Array]:
    return {name: node for name, node in group.members(max_depth=None) if isinstance(node, zarr.Array)}


def _assert_same_store(local: Path, remote: Path) -> None:
    a, b = zarr.open_group(local, mode="r"), zarr.open_group(remote, mode="r")
    assert a.attrs.asdict() == b.attrs.asdict()
    arrays_a, arrays_b = _arrays(a), _arrays(b)
    assert sorted(arrays_a) == sorted(arrays_b)
    kinds = {name.split("/")[-1] for name in arrays_a}
    assert {"data", "mask", "coverage", "volatility", "time", "band", "x", "y"} <= kinds
    for name, array in arrays_a.items():
        other = arrays_b[name]
        assert array.dtype == other.dtype and array.shape == other.shape, name
        assert array.attrs.asdict() == other.attrs.asdict(), name
        np.testing.assert_array_equal(array[...], other[...], err_msg=name)
    assert _objects(local) == _objects(remote)


@pytest.mark.parametrize(
    "options",
    [
        {"encoding": "auto"},
        {"encoding": "star-delta", "anchor_interval": 3},
        {"encoding": "none", "shard": True, "shard_time": 2},
        {"encoding": "star-delta", "anchor_interval": 3, "shard": True, "shard_time": 2},
    ],
    ids=["unsharded-auto", "unsharded-star-delta", "sharded-none", "sharded-star-delta"],
)
def test_cluster_windows_write_the_local_store(tmp_path, client, inputs, options):
    da, mask, coverage = inputs
    common = dict(crs="EPSG:32631", chunk_size=16, mask=mask, coverage=coverage, progress=False, **options)

    local = chronozarr.encode(da, tmp_path / "local", **common)
    lazy = da.chunk({"time": 1, "band": -1, "y": -1, "x": -1})
    with distributed.get_task_stream(client=client) as stream:
        remote = chronozarr.encode(lazy, tmp_path / "remote", block_size=2, **common)

    tasks = [t for t in stream.data if str(t["key"]).startswith(UNIT_TASK + "-")]
    assert len(tasks) >= 2, f"no unit ran on the cluster: {sorted({t['key'] for t in stream.data})}"
    assert {t["worker"] for t in tasks} <= set(client.scheduler_info()["workers"])
    assert (local.levels, local.encoding, local.objects, local.nbytes) == (
        remote.levels, remote.encoding, remote.objects, remote.nbytes,
    )
    assert local.levels == 4
    _assert_same_store(tmp_path / "local", tmp_path / "remote")


def test_numpy_input_stays_local_with_a_client(tmp_path, client, inputs):
    """The control for the assertion above: the local path submits no unit task."""
    da, _, _ = inputs
    with distributed.get_task_stream(client=client) as stream:
        chronozarr.encode(da, tmp_path / "store", crs="EPSG:32631", chunk_size=16, progress=False)
    assert not [t for t in stream.data if str(t["key"]).startswith(UNIT_TASK + "-")]


def _slow_mask_plane(plane: np.ndarray, delay: float) -> np.ndarray:
    import time

    time.sleep(delay)
    return plane


def test_a_failing_window_stops_the_others_before_the_store_is_removed(tmp_path, client, inputs):
    """A bad mask value at timestep 0 while the other windows are slow to read (and, with anchor
    interval 1, never read timestep 0): encode raises, and nothing is written after the cleanup."""
    import time

    import dask
    import dask.array

    da, mask, coverage = inputs
    bad = mask.copy()
    bad[0, 0, 0] = 2
    planes = [
        dask.array.from_delayed(dask.delayed(_slow_mask_plane)(bad[t], 0.0 if t == 0 else 0.4), bad.shape[1:], bad.dtype)
        for t in range(N_TIME)
    ]
    out = tmp_path / "store"
    with pytest.raises(chronozarr.InputError, match="other than 0 and 1"):
        chronozarr.encode(
            da.chunk({"time": 1}), out, crs="EPSG:32631", chunk_size=16, encoding="none", anchor_interval=1,
            mask=dask.array.stack(planes), coverage=coverage,
        )
    time.sleep(1.5)
    assert not out.exists()


BIG = 18432  # one timestep of 4 x 18432 x 18432 uint16 is 2.7 GB, more than a worker's 2 GiB
WORKER_LIMIT = 2 * 2**30


def _pattern(t: int, block_info=None):
    """One (1, 4, 2048, 2048) chunk of a cheap, compressible, position-dependent pattern."""
    (_, _), (b0, b1), (y0, y1), (x0, x1) = block_info[None]["array-location"]
    y = np.arange(y0, y1, dtype=np.uint32)[:, None]
    x = np.arange(x0, x1, dtype=np.uint32)[None, :]
    base = ((y // 7 + x // 5 + 3 * t) % 997 + 1).astype(np.uint16)
    return np.stack([base + np.uint16(100 * b) for b in range(b0, b1)])[None]


def _big_series(n_time: int):
    import dask.array as dsa
    import xarray as xr

    chunks = ((1,), (4,), (2048,) * (BIG // 2048), (2048,) * (BIG // 2048))
    steps = [dsa.map_blocks(_pattern, t, dtype=np.uint16, chunks=chunks) for t in range(n_time)]
    return xr.DataArray(
        dsa.concatenate(steps, axis=0),
        dims=("time", "band", "y", "x"),
        coords={
            "time": np.array(["2024-01-01", "2024-01-11"][:n_time], dtype="datetime64[ns]"),
            "band": ["B02", "B03", "B04", "B08"],
            "y": 6_000_000 - (np.arange(BIG) + 0.5) * 10.0,
            "x": 300_000 + (np.arange(BIG) + 0.5) * 10.0,
        },
    )


def _peak_rss() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def _digest(root: Path) -> dict[str, str]:
    import hashlib

    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.mark.parametrize(
    "n_time,options",
    [(1, {"encoding": "none"}), (2, {"encoding": "star-delta", "anchor_interval": 2, "shard": True})],
    ids=["none", "sharded-star-delta"],
)
def test_a_timestep_larger_than_a_worker_is_encoded_on_the_cluster(tmp_path, n_time, options):
    """Every task holds one block, so workers limited to 2 GiB encode a series whose every timestep
    is 2.7 GB; the store equals a local encode object for object, and each worker's peak is reported."""
    da = _big_series(n_time)
    assert da[0].nbytes > WORKER_LIMIT
    common = dict(crs="EPSG:32631", progress=False, **options)
    chronozarr.encode(da, tmp_path / "local", **common)
    local = _digest(tmp_path / "local")
    shutil.rmtree(tmp_path / "local")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit="2GiB", dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        with distributed.get_task_stream(client=client) as stream:
            remote = chronozarr.encode(da, tmp_path / "remote", **common)
        peaks = client.run(_peak_rss)
    tasks = {t["worker"] for t in stream.data if str(t["key"]).startswith(UNIT_TASK + "-")}
    print(f"\nworker peak RSS ({options}): " + ", ".join(f"{p / 2**20:.0f} MiB" for p in peaks.values()))
    assert len(tasks) == 2, "both workers ran units"
    assert max(peaks.values()) < WORKER_LIMIT
    assert remote.levels == 7
    assert _digest(tmp_path / "remote") == local
