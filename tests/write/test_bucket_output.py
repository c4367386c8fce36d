"""encode, convert and resume into an S3 bucket (moto's server on 127.0.0.1): the same objects,
byte for byte, as a local encode, uploaded in the order readers rely on (the root last)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

import chronozarr
from chronozarr.write import crashpoints
from store_matrix import HASHES, encode_case, object_hashes

EXPECTED = json.loads(HASHES.read_text())
CLI = str(Path(sys.executable).with_name("chronozarr"))


@pytest.fixture
def bucket(aws_env, s3_server):
    name = f"out-{uuid.uuid4().hex[:12]}"
    s3_server.create_bucket(name)
    return name


def _download(s3_server, bucket: str, prefix: str, into: Path) -> Path:
    """Every object under s3://bucket/prefix written to a local tree, to hash as a store."""
    client = s3_server.client()
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/"):
        for entry in page.get("Contents", []):
            target = into / entry["Key"][len(prefix) + 1 :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(client.get_object(Bucket=bucket, Key=entry["Key"])["Body"].read())
    return into


@pytest.mark.parametrize("name", ["auto-unsharded", "delta-sharded", "uint8-mask-coverage-delta"])
def test_a_bucket_store_is_the_local_store_uploaded_root_last(tmp_path, s3_server, bucket, name):
    s3_server.clear_log()
    encode_case(name, f"s3://{bucket}/stores/{name}.zarr", block_size=4, storage_options={"endpoint": s3_server.endpoint})
    local = _download(s3_server, bucket, f"stores/{name}.zarr", tmp_path / "copy")
    assert object_hashes(local) == EXPECTED[name]
    puts = [r.path.split(f"/{bucket}/stores/{name}.zarr/", 1)[1] for r in s3_server.log(bucket) if r.method == "PUT"]
    assert puts[-1] == "zarr.json", "the root is uploaded after every other object"
    documents = [i for i, key in enumerate(puts) if key.endswith("zarr.json")]
    chunks = [i for i, key in enumerate(puts) if "/c/" in key and not key.startswith(".chronozarr")]
    assert max(chunks) < min(documents), "chunks and shards before any zarr.json"
    assert not [key for key in _keys(s3_server, bucket, f"stores/{name}.zarr") if key.startswith(".chronozarr")]


def _keys(s3_server, bucket: str, prefix: str) -> list[str]:
    client = s3_server.client()
    return [e["Key"][len(prefix) + 1 :] for e in client.list_objects_v2(Bucket=bucket, Prefix=prefix + "/").get("Contents", [])]


KILLED = """
import sys
sys.path.insert(0, {tests!r})
from store_matrix import encode_case
encode_case("delta-sharded", {url!r}, block_size=4, workers=2, storage_options={{"endpoint": {endpoint!r}}})
"""


def _killed(url: str, endpoint: str, kill_after: int) -> bool:
    """Encode in a fresh interpreter (obstore's runtime does not survive a fork) with the kill
    hook armed; True when it was killed."""
    script = KILLED.format(tests=str(Path(__file__).parent), url=url, endpoint=endpoint)
    run = subprocess.run([sys.executable, "-c", script], env={**os.environ, crashpoints.KILL_ENV: str(kill_after)}, capture_output=True)
    return run.returncode == -signal.SIGKILL


def test_a_killed_bucket_encode_is_completed_by_resume(tmp_path, s3_server, bucket):
    options = {"endpoint": s3_server.endpoint}
    for kill_after in (3, 40, 120, 200):
        url = f"s3://{bucket}/killed-{kill_after}"
        assert _killed(url, s3_server.endpoint, kill_after)
        with pytest.raises(chronozarr.OutputExistsError, match="--resume"):
            encode_case("delta-sharded", url, block_size=4, storage_options=options)
        encode_case("delta-sharded", url, block_size=4, resume=True, storage_options=options)
        local = _download(s3_server, bucket, f"killed-{kill_after}", tmp_path / f"copy-{kill_after}")
        assert object_hashes(local) == EXPECTED["delta-sharded"], f"killed after step {kill_after}"


def test_cluster_tasks_write_straight_to_the_bucket(tmp_path, s3_server, bucket):
    import distributed
    import dask.array  # noqa: F401
    from store_matrix import CASES, series

    da, extra = series(CASES["delta-sharded"])
    options = {"crs": "EPSG:32633", "chunk_size": 16, "progress": False, **CASES["delta-sharded"]["options"]}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            chronozarr.encode(
                da.chunk({"time": 1, "y": 64, "x": 64}), f"s3://{bucket}/cluster", block_size=2,
                storage_options={"endpoint": s3_server.endpoint}, **options,
            )
    assert object_hashes(_download(s3_server, bucket, "cluster", tmp_path / "copy")) == EXPECTED["delta-sharded"]


def test_the_cli_encodes_and_converts_into_a_bucket(tmp_path, s3_server, bucket, aws_env):
    source = tmp_path / "source.zarr"
    from conftest import make_series

    make_series(n_time=3, height=40, width=30).to_dataset(name="data").to_zarr(source, zarr_format=3, consolidated=True)
    for command, where in (("encode", ["--endpoint", s3_server.endpoint]), ("convert", [])):
        url = f"s3://{bucket}/{command}.zarr"
        env = {**os.environ} if where else {**os.environ, "AWS_ENDPOINT_URL": s3_server.endpoint}
        run = subprocess.run([CLI, command, str(source), url, "--crs", "EPSG:32631", "--chunk-size", "16", "--variable", "data", *where],
                             env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        with chronozarr.open_dataset(url, endpoint=s3_server.endpoint) as store:
            np.testing.assert_array_equal(store.read(2), make_series(n_time=3, height=40, width=30).values[2])


def test_bucket_mistakes_are_one_line(tmp_path, s3_server, aws_env, monkeypatch):
    source = tmp_path / "source.zarr"
    from conftest import make_series

    make_series(n_time=2, height=20, width=20).to_dataset(name="data").to_zarr(source, zarr_format=3, consolidated=True)
    base = [CLI, "encode", str(source), "", "--crs", "EPSG:32631", "--variable", "data"]
    env = {**os.environ, "AWS_ENDPOINT_URL": s3_server.endpoint}
    missing = subprocess.run([*base[:3], "s3://no-such-bucket-here/x", *base[4:]], env=env, capture_output=True, text=True)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "s3://no-such-bucket-here/x" in missing.stderr and "does not exist" in missing.stderr
    bare = {k: v for k, v in env.items() if not k.startswith("AWS_ACCESS") and not k.startswith("AWS_SECRET")}
    nocreds = subprocess.run([*base[:3], "s3://whatever/x", *base[4:]], env=bare, capture_output=True, text=True)
    assert nocreds.returncode == 2 and "Traceback" not in nocreds.stderr and "credentials" in nocreds.stderr


APPEND = """
import sys
sys.path.insert(0, {tests!r})
import chronozarr
from store_matrix import CASES, series
da, extra = series(CASES["delta-sharded"])
chronozarr.append({url!r}, da[5:], storage_options={{"endpoint": {endpoint!r}}}, workers=2)
"""


def test_append_to_a_bucket_store_and_its_crash_safety(tmp_path, s3_server, bucket):
    """An append into a bucket lands the same objects as the same append on disk; killed at
    several points (in a fresh interpreter), running it again completes it to the same objects."""
    from store_matrix import CASES, series

    da, _ = series(CASES["delta-sharded"])
    options = {"crs": "EPSG:32633", "chunk_size": 16, "progress": False, **CASES["delta-sharded"]["options"]}
    local = tmp_path / "local"
    chronozarr.encode(da[:5], local, **options)
    chronozarr.append(local, da[5:])
    expected = object_hashes(local)
    endpoint = {"endpoint": s3_server.endpoint}
    for kill_after in (None, 5, 30, 60):
        url = f"s3://{bucket}/append-{kill_after}"
        chronozarr.encode(da[:5], url, storage_options=endpoint, **options)
        script = APPEND.format(tests=str(Path(__file__).parent), url=url, endpoint=s3_server.endpoint)
        env = {**os.environ} if kill_after is None else {**os.environ, crashpoints.KILL_ENV: str(kill_after)}
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        if kill_after is not None:
            assert run.returncode == -signal.SIGKILL, run.stderr
            with chronozarr.open_dataset(url, endpoint=s3_server.endpoint) as store:
                assert len(store.times) in (5, 8), "a reader sees the old store or the new one"
            run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        copy = _download(s3_server, bucket, f"append-{kill_after}", tmp_path / f"copy-{kill_after}")
        assert object_hashes(copy) == expected, f"killed after step {kill_after}"
