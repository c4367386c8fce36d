"""Reading stores from s3:// on moto's S3 server (127.0.0.1): exact values, and what each read costs,
counted by the source and in the server's own request log."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import xarray as xr

import obstore  # noqa: F401

import chronozarr  # noqa: E402
from chronozarr.store.bucket import BucketStore  # noqa: E402
from chronozarr.errors import AccessError, StoreError  # noqa: E402
from chronozarr.publish import publish  # noqa: E402
from conftest import make_series  # noqa: E402

LAYOUTS = {
    "none": dict(encoding="none"),
    "star": dict(encoding="star-delta", anchor_interval=3),
    "sharded": dict(encoding="star-delta", anchor_interval=3, shard=True, shard_time=6),
}


@pytest.fixture(scope="module")
def bucket(s3_server) -> str:
    name = f"read-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(name)
    return name


@pytest.fixture(scope="module")
def stores(tmp_path_factory, s3_server, bucket):
    """Three layouts of one 6-timestep series on a 4 x 3 cell grid, published to the bucket."""
    da = make_series(n_time=6, height=64, width=48, seed=3)
    root = tmp_path_factory.mktemp("bucket-stores")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_ACCESS_KEY_ID", "testing")
        env.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        env.setenv("AWS_REGION", "us-east-1")
        for name, options in LAYOUTS.items():
            chronozarr.encode(da, root / name, crs="EPSG:32631", chunk_size=16, progress=False, **options)
            publish(root / name, f"s3://{bucket}/{name}", endpoint=s3_server.endpoint, echo=lambda line: None)
    return da.values


def _open(bucket: str, name: str, endpoint: str, **options):
    return chronozarr.open_dataset(f"s3://{bucket}/{name}", endpoint=endpoint, **options)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_timestep_reads_back_exactly(aws_env, stores, bucket, layout) -> None:
    with _open(bucket, layout, aws_env) as store:
        for t in range(stores.shape[0]):
            np.testing.assert_array_equal(store.read(t), stores[t])
        np.testing.assert_array_equal(store.read_point(40, 30), stores[:, :, 40, 30])


def test_opening_is_one_get_and_a_frame_one_get_per_cell(aws_env, stores, bucket, s3_server) -> None:
    s3_server.clear_log()
    with _open(bucket, "none", aws_env) as store:
        assert store.stats.requests == 1 and [(r.method, r.path) for r in s3_server.log(bucket)] == [("GET", f"/{bucket}/none/zarr.json")]
        s3_server.clear_log()
        np.testing.assert_array_equal(store.read(2), stores[2])
        log = s3_server.log(bucket)
        assert (store.stats.get, store.stats.range) == (13, 0)  # the open, then 12 cells
        assert len(log) == 12 and all(r.method == "GET" and r.range is None for r in log)


def test_sharded_index_once_per_shard_with_bounded_ranges(aws_env, stores, bucket, s3_server) -> None:
    with _open(bucket, "sharded", aws_env) as store:
        s3_server.clear_log()
        np.testing.assert_array_equal(store.read(0), stores[0])
        first = s3_server.log(bucket)
        assert len(first) == 24  # 12 indexes + 12 chunks
        assert all(r.method == "GET" and r.range and not r.range.startswith("bytes=-") for r in first)
        s3_server.clear_log()
        np.testing.assert_array_equal(store.read(5), stores[5])  # a delta of anchor 3, indexes cached
        assert len(s3_server.log(bucket)) == 24
        s3_server.clear_log()
        np.testing.assert_array_equal(store.read(4), stores[4])  # anchor 3 cached
        assert len(s3_server.log(bucket)) == 12


def test_without_shard_bytes_the_index_is_a_suffix_range(aws_env, stores, bucket, s3_server, tmp_path) -> None:
    import json

    source = BucketStore(f"s3://{bucket}/sharded", endpoint=aws_env)
    copy = BucketStore(f"s3://{bucket}/sharded-no-lengths", endpoint=aws_env)
    for key, _ in source.list():
        data = source.get(key)
        if key == "zarr.json":
            doc = json.loads(data)
            del doc["attributes"]["chronozarr"]["shard_bytes"]
            data = json.dumps(doc).encode()
        copy.put(key, data)
    with _open(bucket, "sharded-no-lengths", aws_env) as store:
        s3_server.clear_log()
        np.testing.assert_array_equal(store.read(0), stores[0])
        suffixes = [r for r in s3_server.log(bucket) if r.range and r.range.startswith("bytes=-")]
        assert len(suffixes) == 12 and len(s3_server.log(bucket)) == 24


def test_sixteen_requests_in_flight(aws_env, bucket, s3_server, tmp_path) -> None:
    da = make_series(n_time=1, height=96, width=96, seed=5)  # 36 cells at level 0
    chronozarr.encode(da, tmp_path / "wide", crs="EPSG:32631", chunk_size=16, encoding="none", progress=False)
    publish(tmp_path / "wide", f"s3://{bucket}/wide", endpoint=aws_env, echo=lambda line: None)
    with _open(bucket, "wide", aws_env) as store:
        s3_server.latency = 0.05
        try:
            s3_server.clear_log()
            np.testing.assert_array_equal(store.read(0), da.values[0])
        finally:
            s3_server.latency = 0.0
        assert len(s3_server.log(bucket)) == 36 and s3_server.max_in_flight == 16


def test_absent_chunk_and_shard_read_as_fill(aws_env, stores, bucket) -> None:
    for name in ("none", "sharded"):
        source, target = BucketStore(f"s3://{bucket}/{name}", endpoint=aws_env), BucketStore(f"s3://{bucket}/{name}-holes", endpoint=aws_env)
        for key, _ in source.list():
            if key != "0/data/c/0/0/1/2":  # timestep 0 (or time shard 0), cell (1, 2)
                target.put(key, source.get(key))
        with _open(bucket, f"{name}-holes", aws_env) as store:
            frame = store.read(0)
            expected = stores[0].copy()
            expected[:, 16:32, 32:48] = 0  # cell (1, 2) is fill (nodata 0)
            np.testing.assert_array_equal(frame, expected)


def test_a_private_bucket_without_access_is_an_error_not_fill(aws_env, stores, bucket) -> None:
    with pytest.raises(AccessError, match=rf"s3://{bucket}/none/zarr.json: access denied \(HTTP 403\)"):
        _open(bucket, "none", aws_env, anonymous=True)


def test_a_prefix_without_a_store(aws_env, bucket) -> None:
    with pytest.raises(StoreError, match="zarr.json"):
        _open(bucket, "nothing-here", aws_env)


def test_xarray_engine_reads_s3(aws_env, stores, bucket) -> None:
    ds = xr.open_dataset(f"s3://{bucket}/star", engine="chronozarr", physical=False, storage_options={"endpoint": aws_env})
    np.testing.assert_array_equal(ds["data"].values, stores)
    ds.close()


def test_an_unknown_scheme_is_refused_not_taken_as_a_path() -> None:
    for url in ("ftp://host/store", "hdfs://cluster/store"):
        with pytest.raises(StoreError, match="unsupported URL scheme"):
            chronozarr.open_dataset(url)
