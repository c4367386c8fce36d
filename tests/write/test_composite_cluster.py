"""A composite written with a dask.distributed client running: periods x blocks run as cluster tasks
(the scene reads travel pickled to a worker process) and the store equals a local run's, object
for object."""

from __future__ import annotations

from pathlib import Path

import distributed
from append_helpers import file_hashes
from composite_scenes import make_scenes, write_items

from chronozarr.convert import convert

DATES = ["2024-01-03T10:00:00Z", "2024-01-23T10:00:00Z", "2024-02-02T10:00:00Z", "2024-03-12T10:00:00Z"]
UNIT_TASK = "chronozarr-"  # the prefix of the keys of tasks the writer submits (write/distributed.py)


def test_a_cluster_composite_equals_a_local_one(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    items = write_items(tmp_path / "in", make_scenes(DATES, seed=31, cloudy=0.7))

    def run(out: Path) -> None:
        convert(items, out, assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], composite="month", reducer="medoid",
                gap_fill="carry-forward", chunk_size=8, block_size=2, progress=False, encoding="star-delta", anchor_interval=2)

    run(tmp_path / "local")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, distributed.get_task_stream(client=client) as stream:
        run(tmp_path / "cluster")
    tasks = [t for t in stream.data if str(t["key"]).startswith(UNIT_TASK) and "composite" not in str(t["key"])]
    assert len(tasks) >= 2, sorted({str(t["key"]) for t in stream.data})
    assert file_hashes(tmp_path / "cluster", sidecars=False) == file_hashes(tmp_path / "local", sidecars=False)
