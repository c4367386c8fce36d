"""info, validate, doctor and export-cog on s3:// URLs (moto's S3 server on 127.0.0.1), configured as
users configure them: the environment, or --endpoint; and the bad input of a bucket: one line, exit 2."""

from __future__ import annotations

import json
import uuid

import numpy as np
import pytest
from typer.testing import CliRunner

import obstore  # noqa: F401

import chronozarr  # noqa: E402
from chronozarr.cli import app  # noqa: E402
from chronozarr.publish import publish  # noqa: E402
from conftest import make_series  # noqa: E402

runner = CliRunner()


@pytest.fixture(scope="module")
def published(tmp_path_factory, s3_server):
    """A none store in a us-east-1 bucket; returns (bucket, values)."""
    name = f"cli-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(name)
    da = make_series(n_time=3, height=40, width=30)
    store = tmp_path_factory.mktemp("cli") / "s"
    chronozarr.encode(da, store, crs="EPSG:32631", chunk_size=16, encoding="none", progress=False)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AWS_ACCESS_KEY_ID", "testing")
        env.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        publish(store, f"s3://{name}/aoi", endpoint=s3_server.endpoint, echo=lambda line: None)
    return name, da.values


@pytest.fixture
def endpoint_env(aws_env: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The endpoint as users of an S3-compatible service set it, in the environment."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", aws_env)
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    return aws_env


def test_info_and_validate_from_the_environment(endpoint_env, published) -> None:
    bucket, values = published
    result = runner.invoke(app, ["info", f"s3://{bucket}/aoi", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["store"] == f"s3://{bucket}/aoi" and summary["times"]["count"] == values.shape[0]
    result = runner.invoke(app, ["validate", f"s3://{bucket}/aoi"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1].endswith("valid (0 fail, 0 warn, 0 info)")


def test_endpoint_option_and_doctor(aws_env, published) -> None:
    bucket, _ = published
    result = runner.invoke(app, ["doctor", f"s3://{bucket}/aoi", "--endpoint", aws_env])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("info") and "HTTP checks" in line for line in lines)
    assert any("plain zarr pixel" in line and "zarr.storage.ObjectStore" in line and line.startswith("ok") for line in lines)
    result = runner.invoke(app, ["info", "/tmp/a-directory", "--endpoint", aws_env])
    assert result.exit_code == 2 and "--endpoint is for s3://, gs:// and az:// stores" in result.output


def test_export_cog_from_s3(aws_env, published, tmp_path) -> None:
    import rasterio
    bucket, values = published
    result = runner.invoke(app, ["export-cog", f"s3://{bucket}/aoi", str(tmp_path), "--times", "-1", "--endpoint", aws_env])
    assert result.exit_code == 0, result.output
    (tif,) = tmp_path.glob("*.tif")
    with rasterio.open(tif) as src:
        np.testing.assert_array_equal(src.read(), values[-1])


@pytest.mark.parametrize("command", ["info", "validate", "doctor"])
def test_bad_buckets_end_in_one_line_and_exit_2(aws_env, published, s3_server, monkeypatch, command) -> None:
    bucket, _ = published
    eu = f"cli-eu-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(eu, region="eu-west-1")
    s3_server.expired_tokens.add("expired-session")
    cases = [
        (f"s3://no-such-bucket-{uuid.uuid4().hex[:6]}/aoi", {}, "the bucket does not exist"),
        (f"s3://{eu}/aoi", {}, "the bucket is in another region: set AWS_REGION"),
        (f"s3://{bucket}/aoi", {"AWS_SESSION_TOKEN": "expired-session"}, "the credentials have expired"),
        (f"s3://{bucket}/aoi", {"AWS_ACCESS_KEY_ID": None, "AWS_SECRET_ACCESS_KEY": None}, "no credentials found"),
        (f"s3://{bucket}/aoi", {"AWS_ACCESS_KEY_ID": None, "AWS_SECRET_ACCESS_KEY": None, "AWS_SKIP_SIGNATURE": "true"}, "access denied (HTTP 403)"),
    ]
    for url, env, words in cases:
        with monkeypatch.context() as patch:
            for key, value in env.items():
                patch.delenv(key) if value is None else patch.setenv(key, value)
            result = runner.invoke(app, [command, url, "--endpoint", aws_env])
        assert result.exit_code == 2, (url, env, result.output)
        assert result.stderr.startswith(f"error: {url}/zarr.json: ") and words in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
