"""gs:// and az:// against real emulators on 127.0.0.1 (fake-gcs-server, Azurite; tests/emulators.py):
an encode, an append and a publish land the same objects as on disk, reads are exact, and the
command line answers a missing bucket or refused credentials in one line."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import obstore  # noqa: F401
import pytest
from conftest import make_series  # noqa: E402
from emulators import AZURITE_ACCOUNT, AZURITE_KEY, Azurite, FakeGCS, azurite_fixture, fake_gcs_fixture, gcs_env  # noqa: E402,F401 (fixtures)
from typer.testing import CliRunner

import chronozarr  # noqa: E402
from chronozarr.cli import app  # noqa: E402
from chronozarr.errors import StoreError  # noqa: E402
from chronozarr.publish import publish  # noqa: E402
from chronozarr.store.bucket import BucketStore  # noqa: E402

OPTIONS: dict[str, Any] = dict(crs="EPSG:32631", chunk_size=16, encoding="star-delta", anchor_interval=3, shard=True, shard_time=3, progress=False)


@dataclass
class Service:
    scheme: str
    server: Any
    bucket: str

    def url(self, name: str, bucket: str | None = None) -> str:
        return f"{self.scheme}://{bucket or self.bucket}/{name}"

    @property
    def options(self) -> dict[str, str]:
        return {"endpoint": self.server.endpoint}

    def objects(self, name: str) -> dict[str, bytes]:
        return self.server.objects(self.bucket, name)


@pytest.fixture(params=["gs", "az"])
def service(request, monkeypatch: pytest.MonkeyPatch, tmp_path_factory) -> Service:
    """One emulator with a fresh bucket (container), and the credentials a user of it sets."""
    name = f"emu-{uuid.uuid4().hex[:10]}"
    if request.param == "gs":
        server = request.getfixturevalue("fake_gcs")
        server.create_bucket(name)
        gcs_env(monkeypatch, server.service_account(tmp_path_factory.mktemp("gcs")))
    else:
        server = request.getfixturevalue("azurite")
        server.create_container(name)
        for variable in [n for n in os.environ if n.startswith("AZURE_")]:
            monkeypatch.delenv(variable)
        monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_NAME", AZURITE_ACCOUNT)
        monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_KEY", AZURITE_KEY)
    return Service(request.param, server, name)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_encode_read_validate_info(service: Service, tmp_path: Path) -> None:
    """The bucket holds the local encode's objects byte for byte, level 0 reads back bit for bit,
    and validate and info read the bucket URL from the command line."""
    da = make_series(n_time=6, height=40, width=36, seed=5)
    chronozarr.encode(da, tmp_path / "local", **OPTIONS)
    url = service.url("enc.zarr")
    chronozarr.encode(da, url, storage_options=service.options, **OPTIONS)
    local = _tree(tmp_path / "local")
    assert service.objects("enc.zarr") == local and "zarr.json" in local
    with chronozarr.open_dataset(url, **service.options) as store:
        for t in range(6):
            np.testing.assert_array_equal(store.read(t), da.values[t])
    checked = _cli("validate", url, "--endpoint", service.server.endpoint)
    assert checked.exit_code == 0, checked.output
    summary = _cli("info", url, "--endpoint", service.server.endpoint)
    assert summary.exit_code == 0 and "6" in summary.output, summary.output
    if service.scheme == "gs":  # reads need no front: stock fake-gcs-server answers them itself
        assert _cli("validate", url, "--endpoint", service.server.backend).exit_code == 0


def test_append_to_the_bucket_is_the_append_on_disk(service: Service, tmp_path: Path) -> None:
    da = make_series(n_time=7, height=24, width=20, seed=9)
    chronozarr.encode(da[:4], tmp_path / "local", **OPTIONS)
    chronozarr.append(tmp_path / "local", da[4:])
    url = service.url("app.zarr")
    chronozarr.encode(da[:4], url, storage_options=service.options, **OPTIONS)
    chronozarr.append(url, da[4:], storage_options=service.options)
    assert service.objects("app.zarr") == _tree(tmp_path / "local")
    with chronozarr.open_dataset(url, **service.options) as store:
        np.testing.assert_array_equal(store.read(6), da.values[6])


def test_publish_uploads_the_local_store(service: Service, tmp_path: Path) -> None:
    da = make_series(n_time=3, height=20, width=20, seed=2)
    chronozarr.encode(da, tmp_path / "store", **OPTIONS)
    publish(tmp_path / "store", service.url("pub"), endpoint=service.server.endpoint, echo=lambda line: None)
    assert service.objects("pub") == _tree(tmp_path / "store")
    with chronozarr.open_dataset(service.url("pub"), **service.options) as store:
        np.testing.assert_array_equal(store.read(2), da.values[2])


def test_a_missing_bucket_is_one_line(service: Service, tmp_path: Path) -> None:
    missing = service.url("x", bucket=f"no-such-{uuid.uuid4().hex[:8]}")
    for args in (["info", missing], ["validate", missing]):
        result = _cli(*args, "--endpoint", service.server.endpoint)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert "does not exist" in result.output and missing in result.output and len(result.output.strip().splitlines()) == 1


def test_refused_credentials_are_one_line(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    chronozarr.encode(make_series(n_time=2, height=16, width=16), service.url("creds"), storage_options=service.options, **OPTIONS)
    if service.scheme == "gs":
        monkeypatch.delenv("GOOGLE_SERVICE_ACCOUNT")
        monkeypatch.setenv("GOOGLE_BEARER_TOKEN", "revoked-token")
        service.server.refused_tokens.add("revoked-token")
    else:
        monkeypatch.setenv("AZURE_STORAGE_ACCOUNT_KEY", AZURITE_KEY[:-8] + "AAAAAAA=")
    result = _cli("info", service.url("creds"), "--endpoint", service.server.endpoint)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "refused the credentials" in result.output and len(result.output.strip().splitlines()) == 1


def test_no_credentials_name_the_variables_to_set(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    variable = {"gs": "GOOGLE_SERVICE_ACCOUNT", "az": "AZURE_STORAGE_ACCOUNT_KEY"}[service.scheme]
    monkeypatch.delenv(variable)
    # the instance-metadata services at a closed loopback port: nothing leaves the machine
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    monkeypatch.setenv("GCE_METADATA_IP", "127.0.0.1:9")
    monkeypatch.setenv("AZURE_MSI_ENDPOINT", "http://127.0.0.1:9/metadata/identity/oauth2/token")
    result = _cli("info", service.url("none"), "--endpoint", service.server.endpoint)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"no credentials found: set {variable}" in result.output, result.output


def test_suffix_ranges_and_deletes_with_missing_keys(service: Service) -> None:
    """Azure has no suffix ranges (a HEAD and a range instead); GCS and Azure stop a many-key
    delete at a missing key, and every other key must still go."""
    bucket = BucketStore(service.url("raw"), endpoint=service.server.endpoint)
    bucket.put("a/x", b"0123456789")
    bucket.put("a/y", b"abc")
    assert bucket.get_suffix("a/x", 4) == b"6789" and bucket.get_suffix("a/absent", 4) is None
    with pytest.raises(StoreError, match=r"raw/a/x has 10 bytes, fewer than the 40 asked for"):
        bucket.get_suffix("a/x", 40)
    bucket.delete(["a/absent", "a/x", "a/also-absent", "a/y"])
    assert list(bucket.list("a/")) == [] and service.objects("raw") == {}


def test_the_endpoint_can_come_from_the_environment(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    chronozarr.encode(make_series(n_time=2, height=16, width=16), service.url("env"), storage_options=service.options, **OPTIONS)
    monkeypatch.setenv({"gs": "GOOGLE_BASE_URL", "az": "AZURE_STORAGE_ENDPOINT"}[service.scheme], service.server.endpoint)
    result = _cli("validate", service.url("env"))
    assert result.exit_code == 0, result.output


def test_a_region_is_refused_outside_s3(service: Service) -> None:
    with pytest.raises(StoreError, match=r"a region is for s3:// URLs; .* names its location through its account"):
        BucketStore(service.url("x"), endpoint=service.server.endpoint, region="eu-west-1")
