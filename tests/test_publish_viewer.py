"""`publish --viewer`: the viewer app beside the store in a bucket (moto's S3 server on 127.0.0.1),
opened in Chromium straight from the bucket with nothing else served."""

from __future__ import annotations

import json
import urllib.request
import uuid
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import obstore  # noqa: F401

import chronozarr  # noqa: E402
from browser_check import assert_drawn, check_page, level0_url, needs_chromium  # noqa: E402
from chronozarr.cli import app  # noqa: E402
from chronozarr.hosted_viewer import entry_page  # noqa: E402
from conftest import make_series  # noqa: E402

runner = CliRunner()


@pytest.fixture(scope="module")
def public_bucket(s3_server) -> str:
    """A bucket anyone may read, as a bucket that hosts a viewer is."""
    name = f"viewer-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(name)
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{name}/*"}]}
    s3_server.client().put_bucket_policy(Bucket=name, Policy=json.dumps(policy))
    return name


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> tuple[Path, np.ndarray]:
    da = make_series(n_time=4, height=60, width=50, seed=7)
    path = tmp_path_factory.mktemp("viewer") / "aoi"
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=2, progress=False)
    return path, da.values


def _get(url: str) -> tuple[bytes, str]:
    with urllib.request.urlopen(url) as response:
        return response.read(), response.headers["Content-Type"]


def test_publish_with_viewer_uploads_the_app_last_with_its_content_types(aws_env, public_bucket, store, s3_server) -> None:
    path, _ = store
    prefix = f"p-{uuid.uuid4().hex[:6]}/aoi"
    s3_server.clear_log()
    result = runner.invoke(app, ["publish", str(path), f"s3://{public_bucket}/{prefix}", "--endpoint", aws_env, "--viewer"])
    assert result.exit_code == 0, result.output
    assert f"open s3://{public_bucket}/{prefix}/viewer/index.html" in result.output
    puts = [r.path.split(f"/{prefix}/", 1)[1] for r in s3_server.log(public_bucket) if r.method == "PUT"]
    root = puts.index("zarr.json")
    assert all(not key.startswith("viewer/") for key in puts[:root]) and puts[-1] == "viewer/index.html"
    base = f"{aws_env}/{public_bucket}/{prefix}/viewer"
    for key, kind in (("index.html", "text/html"), ("viewer/main.js", "text/javascript"), ("viewer/viewer.css", "text/css"),
                      ("src/index.js", "text/javascript"), ("node_modules/numcodecs/dist/zstd.js", "text/javascript"),
                      ("node_modules/zstddec/dist/zstddec.mjs", "text/javascript"), ("viewer/dist/viewer.js", "text/javascript"),
                      ("node_modules/numcodecs/LICENSE", "application/octet-stream")):
        body, content_type = _get(f"{base}/{key}")
        assert content_type.startswith(kind) and body, key
    page, _ = _get(f"{base}/index.html")
    assert page == entry_page((chronozarr.webapps.web_root() / "viewer" / "index.html").read_text())
    assert not any("maplibre" in key for key in puts)


@needs_chromium
def test_the_published_viewer_opens_the_store_from_the_bucket(aws_env, public_bucket, store) -> None:
    path, values = store
    prefix = f"p-{uuid.uuid4().hex[:6]}/aoi"
    result = runner.invoke(app, ["publish", str(path), f"s3://{public_bucket}/{prefix}", "--endpoint", aws_env, "--viewer"])
    assert result.exit_code == 0, result.output
    pixel = (21, 33)
    report = check_page(level0_url(f"{aws_env}/{public_bucket}/{prefix}/viewer/index.html", pixel), pixel)
    assert_drawn(report, values, pixel)


def test_dry_run_lists_the_viewer_and_reads_nothing(public_bucket, store) -> None:
    path, _ = store
    result = runner.invoke(app, ["publish", str(path), f"s3://{public_bucket}/dry", "--viewer", "--dry-run"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    viewer = [line for line in lines if line.startswith("phase 4  viewer")]
    assert viewer and viewer[-1].endswith("viewer/index.html") and all("no-cache" in line for line in viewer)


def test_entry_page_points_its_urls_into_the_app_and_defaults_to_the_store() -> None:
    page = entry_page("<!doctype html><html><head><title>x</title></head></html>").decode()
    assert page.index('<base href="viewer/">') < page.index("<title>")
    assert "'store=../'" in page
