"""Object-store URLs against moto's S3 server on 127.0.0.1: parsing, reads, writes and the errors."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import obstore  # noqa: F401

from chronozarr.buckets import bucket_error, is_bucket_url, parse_bucket_url  # noqa: E402
from chronozarr.store.bucket import BucketStore  # noqa: E402
from chronozarr.errors import AccessError, StoreError  # noqa: E402


@pytest.fixture(scope="module")
def bucket_name(s3_server) -> str:
    name = f"buckets-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(name)
    return name


def test_urls_are_parsed_and_never_taken_as_paths() -> None:
    assert parse_bucket_url("s3://b/a/b/").url == "s3://b/a/b"
    assert parse_bucket_url("GS://b").prefix == ""
    assert parse_bucket_url("az://container//x").prefix == "x"
    assert is_bucket_url("s3://b/x") and is_bucket_url("az://c") and not is_bucket_url("/tmp/s3:/x")
    assert not is_bucket_url("https://example.org/x")
    for bad, words in (("s3://", "names no bucket"), ("ftp://x/y", "not an object-store URL"), ("s3://b/x?region=y", "no query")):
        with pytest.raises(StoreError, match=words):
            parse_bucket_url(bad)


def test_put_get_range_size_list_delete(aws_env: str, bucket_name: str, tmp_path: Path) -> None:
    bucket = BucketStore(f"s3://{bucket_name}/p", endpoint=aws_env)
    big = tmp_path / "big"
    big.write_bytes(bytes(range(256)) * (40 * 2**10))  # 10 MiB: a multipart upload
    bucket.put("a/zarr.json", b"0123456789", attributes={"Content-Type": "application/json"})
    bucket.put_file("a/big", big, keep=True)
    assert bucket.get("a/zarr.json") == b"0123456789"
    assert bucket.get_range("a/zarr.json", 2, 3) == b"234"
    assert bucket.size("a/big") == big.stat().st_size
    assert bucket.get_range("a/big", 10 * 2**20 - 4, 4) == big.read_bytes()[-4:]
    assert sorted(bucket.list("a/")) == [("a/big", big.stat().st_size), ("a/zarr.json", 10)]
    assert bucket.get("a/absent") is None and bucket.size("a/absent") is None and bucket.get_range("a/absent", 0, 1) is None
    bucket.delete(["a/big", "a/zarr.json"])
    assert list(bucket.list("a/")) == []


def test_a_short_object_is_an_error_not_a_short_read(aws_env: str, bucket_name: str) -> None:
    bucket = BucketStore(f"s3://{bucket_name}/short", endpoint=aws_env)
    bucket.put("x", b"0123456789")
    with pytest.raises(StoreError, match=r"asked for bytes 5-14, the store sent 5 bytes"):
        bucket.get_range("x", 5, 10)


def test_missing_bucket_is_an_error_not_an_absent_key(aws_env: str) -> None:
    with pytest.raises(StoreError, match=r"s3://no-such-bucket-here/p/zarr.json: the bucket does not exist"):
        BucketStore("s3://no-such-bucket-here/p", endpoint=aws_env).get("zarr.json")


def test_anonymous_read_of_a_private_bucket_is_a_403(aws_env: str, bucket_name: str) -> None:
    BucketStore(f"s3://{bucket_name}/anon", endpoint=aws_env).put("zarr.json", b"{}")
    with pytest.raises(StoreError, match=r"anon/zarr.json: access denied \(HTTP 403\)"):
        BucketStore(f"s3://{bucket_name}/anon", endpoint=aws_env, anonymous=True).get("zarr.json")


def test_no_credentials_says_which_to_set(aws_env: str, bucket_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with pytest.raises(StoreError, match=r"no credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"):
        BucketStore(f"s3://{bucket_name}/p", endpoint=aws_env).get("zarr.json")


def test_wrong_region_and_expired_token(aws_env: str, s3_server, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"eu-{uuid.uuid4().hex[:8]}"
    s3_server.create_bucket(name, region="eu-west-1")
    with pytest.raises(StoreError, match=r"the bucket is in another region: set AWS_REGION"):
        BucketStore(f"s3://{name}/p", endpoint=aws_env).get("zarr.json")
    assert BucketStore(f"s3://{name}/p", endpoint=aws_env, region="eu-west-1").get("zarr.json") is None
    s3_server.expired_tokens.add("old-token")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "old-token")
    with pytest.raises(StoreError, match=r"the credentials have expired: renew the session token"):
        BucketStore(f"s3://{name}/p", endpoint=aws_env, region="eu-west-1").get("zarr.json")


def test_a_bare_redirect_is_a_wrong_region() -> None:
    error = bucket_error(RuntimeError("Error performing HEAD http://b.s3.amazonaws.com/k - Server returned non-2xx status code: 301 Moved Permanently: "), "s3://b/k")
    assert str(error).startswith("s3://b/k: the bucket is in another region")


def test_errors_carry_no_foreign_exception_type() -> None:
    error = bucket_error(RuntimeError("Server returned non-2xx status code: 500 Internal Server Error"), "s3://b/k")
    assert type(error) is AccessError and str(error) == "s3://b/k: the store could not be reached or refused the request (HTTP 500)"
