"""publish against a local S3-compatible server (moto): objects, headers, order, refusals."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

import obstore  # noqa: F401
import boto3  # noqa: F401

import obstore.store  # noqa: E402

import chronozarr  # noqa: E402
from chronozarr import publish as publish_module  # noqa: E402
from chronozarr.cli import app  # noqa: E402
from chronozarr.errors import OutputExistsError, StoreError  # noqa: E402
from chronozarr.publish import PublishError, append_mismatch, parse_newer_than, plan, publish  # noqa: E402
from chronozarr.format.caching import chronozarr_block  # noqa: E402
from conftest import make_series  # noqa: E402

BUCKET = "chronozarr-test"
SHORT = "public, max-age=300"  # docs/hosting.md: objects an append rewrites
IMMUTABLE = "public, max-age=31536000, immutable"  # docs/hosting.md: every other object


@pytest.fixture(scope="module")
def s3(s3_server):
    """The session's moto S3 server with this module's bucket; yields (endpoint, boto3 client)."""
    s3_server.create_bucket(BUCKET)
    return s3_server.endpoint, s3_server.client()


@pytest.fixture(autouse=True)
def aws_environment(aws_env: str) -> None:
    """publish reads credentials from the environment, as it does for users."""


def _target(endpoint: str, prefix: str):
    return obstore.store.S3Store(
        BUCKET, prefix=prefix, endpoint=endpoint, access_key_id="testing", secret_access_key="testing",
        region="us-east-1", client_options={"allow_http": True}, virtual_hosted_style_request=False,
    )


def _remote(client, prefix: str) -> dict[str, dict]:
    """key below prefix -> head_object answer."""
    keys = [o["Key"] for o in client.list_objects_v2(Bucket=BUCKET, Prefix=prefix + "/").get("Contents", [])]
    return {k[len(prefix) + 1 :]: client.head_object(Bucket=BUCKET, Key=k) for k in keys}


def _local(store: Path) -> set[str]:
    return {p.relative_to(store).as_posix() for p in store.rglob("*") if p.is_file()}


def _encode(path: Path, n_time: int, **options) -> Path:
    da = make_series(n_time=n_time, height=40, width=30)
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, encoding="none", progress=False, **options)
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("publish")
    return {
        "sharded": _encode(base / "sharded", 5, shard=True, shard_time=2),
        "unsharded": _encode(base / "unsharded", 5),
        "first3": _encode(base / "first3", 3),
    }


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys put, in the order their upload finished."""
    done: list[str] = []
    lock = threading.Lock()
    real_put = publish_module._put

    def put(store, obj):
        real_put(store, obj)
        with lock:
            done.append(obj.key)

    monkeypatch.setattr(publish_module, "_put", put)
    return done


def _prefix() -> str:
    return f"aoi-{uuid.uuid4().hex[:8]}/chronozarr-1"


@pytest.mark.parametrize("layout", ["sharded", "unsharded"])
def test_upload_objects_headers_and_order(s3, stores, recorded, layout: str) -> None:
    endpoint, client = s3
    store, prefix = stores[layout], _prefix()
    summary = publish(store, f"s3://{BUCKET}/{prefix}", endpoint=endpoint, echo=lambda line: None)
    remote = _remote(client, prefix)
    assert set(remote) == _local(store) == set(summary.uploaded)
    for key, head in remote.items():
        assert "ContentEncoding" not in head, key
        assert head["ContentLength"] == (store / key).stat().st_size
        assert (client.get_object(Bucket=BUCKET, Key=f"{prefix}/{key}")["Body"].read()) == (store / key).read_bytes()
        if key.endswith("zarr.json") or key.endswith("time/c/0") or key == "volatility/c/0/0":
            assert head["CacheControl"] == SHORT, key
        elif layout == "sharded" and "/data/c/2/" in key:  # the trailing time shard of shard_time 2
            assert head["CacheControl"] == SHORT, key
        else:
            assert head["CacheControl"] == IMMUTABLE, key
    # Order: data objects, then time/volatility, then metadata below the root, then the root, last.
    assert recorded[-1] == "zarr.json"
    position = {key: i for i, key in enumerate(recorded)}
    metadata = [k for k in recorded if k.endswith("zarr.json") and k != "zarr.json"]
    rewritten = [k for k in recorded if k.endswith("time/c/0") or k == "volatility/c/0/0"]
    data = [k for k in recorded if k not in metadata and k not in rewritten and k != "zarr.json"]
    assert max(position[k] for k in data) < min(position[k] for k in rewritten)
    assert max(position[k] for k in rewritten) < min(position[k] for k in metadata)


def test_interrupted_upload_leaves_no_root(s3, stores, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint, client = s3
    prefix, calls = _prefix(), []
    real_put = publish_module._put

    def flaky(store, obj):
        calls.append(obj.key)
        if len(calls) == 5:
            raise ConnectionError("injected failure")
        real_put(store, obj)

    monkeypatch.setattr(publish_module, "_put", flaky)
    with pytest.raises(PublishError, match="phase 1.*root zarr.json was not uploaded"):
        publish(stores["unsharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, concurrency=2, echo=lambda line: None)
    remote = _remote(client, prefix)
    assert remote and "zarr.json" not in remote
    assert not any(k.endswith("zarr.json") for k in remote)  # phase 2 never started either
    # The prefix now holds objects but no root: a plain rerun is refused, --force finishes it.
    monkeypatch.setattr(publish_module, "_put", real_put)
    with pytest.raises(OutputExistsError, match="no chronozarr root"):
        publish(stores["unsharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, echo=lambda line: None)
    publish(stores["unsharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, force=True, echo=lambda line: None)
    assert set(_remote(client, prefix)) == _local(stores["unsharded"])


def test_dry_run_prints_classes_and_uploads_nothing(s3, stores, recorded) -> None:
    endpoint, client = s3
    prefix, lines = _prefix(), []
    publish(stores["sharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, dry_run=True, echo=lines.append)
    assert recorded == [] and _remote(client, prefix) == {}
    objects = lines[:-1]
    assert len(objects) == len(_local(stores["sharded"]))
    assert objects[-1].split() == ["phase", "3", "root", "public,", "max-age=300", "zarr.json"]
    assert any(line.split()[2] == "trailing" and line.endswith("0/data/c/2/0/0/0") for line in objects)
    assert any("immutable" in line and line.endswith("0/data/c/0/0/0/0") for line in objects)
    result = CliRunner().invoke(app, ["publish", str(stores["sharded"]), "s3://nowhere/x", "--dry-run"])
    assert result.exit_code == 0 and "dry run" in result.output


def test_non_empty_prefix_is_refused_unless_forced(s3, stores, recorded) -> None:
    endpoint, client = s3
    prefix = _prefix()
    client.put_object(Bucket=BUCKET, Key=f"{prefix}/something-else", Body=b"x")
    with pytest.raises(OutputExistsError, match="not empty"):
        publish(stores["unsharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, echo=lambda line: None)
    assert recorded == []
    publish(stores["unsharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, echo=lambda line: None, force=True)
    # A second publish of the same store is not an append either.
    with pytest.raises(OutputExistsError, match="already published"):
        publish(stores["unsharded"], f"s3://{BUCKET}/{prefix}", endpoint=endpoint, echo=lambda line: None)


def test_append_is_published_with_newer_than(s3, stores, tmp_path: Path, recorded) -> None:
    endpoint, client = s3
    prefix = _prefix()
    dest = f"s3://{BUCKET}/{prefix}"
    publish(stores["first3"], dest, object_store=_target(endpoint, prefix), echo=lambda line: None)
    # The 5-timestep store is the 3-timestep one grown at the end; mark what an append touches.
    grown = tmp_path / "grown"
    shutil.copytree(stores["unsharded"], grown)
    stamp = tmp_path / "stamp"
    stamp.touch()
    past = time.time() - 3600
    os.utime(stamp, (past, past))
    touched = {k for k in _local(grown) if k.endswith("zarr.json") or "/c/3/" in k or "/c/4/" in k or k.endswith("time/c/0") or k == "volatility/c/0/0"}
    for key in _local(grown):
        when = time.time() if key in touched else past - 60
        os.utime(grown / key, (when, when))
    recorded.clear()
    summary = publish(grown, dest, endpoint=endpoint, newer_than=str(stamp), echo=lambda line: None)
    assert set(summary.uploaded) == touched == set(recorded)
    assert recorded[-1] == "zarr.json" and summary.skipped_older == len(_local(grown)) - len(touched)
    remote_root = json.loads(client.get_object(Bucket=BUCKET, Key=f"{prefix}/zarr.json")["Body"].read())
    assert len(chronozarr_block(remote_root)["times"]) == 5


def _root_block(times: int, anchors: list[int], shard: int) -> dict:
    """A chronozarr root block of a star-delta store with `times` timesteps, written out by hand."""
    return {
        "spec_version": "0.2.0", "variable": "data", "times": [f"2024-01-0{t + 1}T00:00:00Z" for t in range(times)],
        "bands": [{"name": "B04", "dtype": "uint16"}], "nodata": 0, "crs": "EPSG:32631",
        "temporal": {"encoding": "star-delta", "anchor_interval": 2, "anchor_indices": anchors,
                     "delta_reference": {str(t): t - t % 2 for t in range(times) if t % 2}},
        "levels": [{"path": "0", "resolution": 10.0, "transform": [10.0, 0.0, 500000.0, 0.0, -10.0, 4000000.0],
                    "shape": [times, 1, 8, 8], "grid": [1, 1]}],
        "shard_bytes": {"0": {"0/0/0": shard}},
    }


def test_append_rules() -> None:
    base, grown = _root_block(2, [0], 10), _root_block(3, [0, 2], 15)
    assert append_mismatch(base, grown) is None
    assert "already published" in append_mismatch(base, base)
    assert "crs" in append_mismatch(base, {**grown, "crs": "EPSG:4326"})
    assert "nodata" in append_mismatch(base, {**grown, "nodata": 1})
    assert "bands" in append_mismatch(base, {**grown, "bands": [{"name": "B03", "dtype": "uint16"}]})
    assert "first timesteps" in append_mismatch(base, {**grown, "times": [grown["times"][0], "2023-12-31T00:00:00Z", grown["times"][2]]})
    changed = json.loads(json.dumps(grown))
    changed["temporal"]["delta_reference"]["1"] = 2
    assert "reference changed" in append_mismatch(base, changed)
    moved = json.loads(json.dumps(grown))
    moved["temporal"]["anchor_indices"] = [2]
    assert "anchors are missing" in append_mismatch(base, moved)
    wider = json.loads(json.dumps(grown))
    wider["levels"][0]["shape"][3] = 9
    assert "spatial shape" in append_mismatch(base, wider)
    shifted = json.loads(json.dumps(grown))
    shifted["levels"][0]["transform"][2] = 500010.0
    assert "level 0 differs" in append_mismatch(base, shifted)
    assert "no chronozarr root" in append_mismatch(None, grown)
    assert "cannot read" in append_mismatch({"spec_version": "9.9"}, grown)
    with pytest.raises(StoreError, match="local store"):
        append_mismatch(base, {})


def test_append_rules_accept_a_real_append(stores, tmp_path: Path) -> None:
    """A store and the same store after `append` (written by the writer, not by hand) pass the rule."""
    grown = tmp_path / "grown"
    shutil.copytree(stores["first3"], grown)
    before = chronozarr_block(json.loads((grown / "zarr.json").read_text()))
    chronozarr.append(grown, make_series(n_time=5, height=40, width=30)[3:], progress=False)
    after = chronozarr_block(json.loads((grown / "zarr.json").read_text()))
    assert len(after["times"]) == len(before["times"]) + 2
    assert append_mismatch(before, after) is None
    assert "already published" in append_mismatch(after, after)


def test_plan_and_newer_than_parsing(stores, tmp_path: Path) -> None:
    objects = plan(stores["sharded"])
    assert [o.phase for o in objects] == sorted(o.phase for o in objects)
    assert objects[-1].key == "zarr.json" and objects[-1].phase == 3
    stamp = tmp_path / "stamp"
    stamp.touch()
    assert parse_newer_than(str(stamp)) == stamp.stat().st_mtime
    assert parse_newer_than("1700000000") == 1700000000.0
    assert parse_newer_than("2023-11-14T22:13:20Z") == 1700000000.0
    with pytest.raises(PublishError):
        parse_newer_than("not a time")
    with pytest.raises(PublishError, match="s3://"):
        publish(stores["sharded"], "/tmp/elsewhere", echo=lambda line: None)


def test_a_store_with_history_is_published_whole_and_its_append_accepted(s3, tmp_path: Path, recorded) -> None:
    """The history shards go up with their cache class (the last time block short-lived), and an
    append that grew the array is accepted as growth of the published store."""
    endpoint, client = s3
    prefix = _prefix()
    dest = f"s3://{BUCKET}/{prefix}"
    da = make_series(n_time=10, height=40, width=30)
    options = {"crs": "EPSG:32631", "chunk_size": 16, "encoding": "none", "progress": False, "history": True, "history_time": 4}
    chronozarr.encode(da[:6], tmp_path / "s", **options)
    publish(tmp_path / "s", dest, object_store=_target(endpoint, prefix), echo=lambda line: None)
    remote = _remote(client, prefix)
    assert set(remote) == _local(tmp_path / "s")
    assert remote["history/c/0/0/0/0"]["CacheControl"] == IMMUTABLE and remote["history/c/1/0/0/0"]["CacheControl"] == SHORT
    chronozarr.append(tmp_path / "s", da[6:10], progress=False)
    recorded.clear()
    publish(tmp_path / "s", dest, endpoint=endpoint, echo=lambda line: None)
    assert {k for k in recorded if k.startswith("history/c/")} >= {"history/c/1/0/0/0", "history/c/2/0/0/0"}
    remote_root = json.loads(client.get_object(Bucket=BUCKET, Key=f"{prefix}/zarr.json")["Body"].read())
    assert chronozarr_block(remote_root)["history"] == json.loads((tmp_path / "s" / "zarr.json").read_text())["attributes"]["chronozarr"]["history"]
