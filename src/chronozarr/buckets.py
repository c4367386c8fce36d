"""Object-store URLs: the one place that parses `s3://`, `gs://` and `az://`, opens an obstore
store for them and turns what the store answers into our errors (the objects themselves are read
and written by `chronozarr.store.bucket`).

Supported: `s3://bucket/prefix` (AWS S3), `gs://bucket/prefix` (Google Cloud Storage),
`az://container/prefix` (Azure Blob Storage; the account comes from `AZURE_STORAGE_ACCOUNT_NAME`). A
URL with one of these schemes is never taken as a local path, and `parse_bucket_url` refuses any
other `scheme://`.

`endpoint` (`--endpoint` on the command line) sends the requests to another service that speaks the
same API, for every scheme: for s3:// an S3-compatible service (R2, MinIO, moto; path-style
requests), for gs:// the base URL of a GCS emulator or private endpoint (fake-gcs-server), for az://
the blob service URL of the account, path included (Azurite: `http://127.0.0.1:10000/devstoreaccount1`).
An `http://` endpoint is allowed (loopback emulators). `region` is for s3:// only; every other
obstore setting passes through `config` (`storage_options={"config": {...}}` in Python).

Credentials and anonymous access are read from the environment as obstore reads them
(`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`,
`AWS_ENDPOINT_URL`, `AWS_SKIP_SIGNATURE=true` for a public bucket; `GOOGLE_SERVICE_ACCOUNT` (a
service-account JSON; for an emulator one with `"disable_oauth": true`), `GOOGLE_APPLICATION_CREDENTIALS`,
`GOOGLE_BASE_URL`; `AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY`, `AZURE_STORAGE_SAS_TOKEN`,
`AZURE_STORAGE_ENDPOINT`, ...). Nothing here stores or prints a credential.

API (obstore is the `cloud` extra; a missing extra raises MissingExtraError naming it):

    is_bucket_url(text) -> bool                 s3://, gs:// or az://
    parse_bucket_url(text) -> BucketURL         scheme, bucket, prefix; StoreError when malformed
    obstore_for(url, *, endpoint=None, region=None, anonymous=False, config=None)
                                                the obstore store rooted at the URL's prefix
    bucket_error(exc, where) -> AccessError     what the store answered, as one actionable line
    absent(exc, where)                          nothing for a missing key; a missing bucket's 404 raises

Reading and writing the objects is `chronozarr.store.bucket.BucketStore`'s (the one object-store
interface), which raises what `bucket_error` makes of every failure: an AccessError (a StoreError;
never an obstore or OS exception) naming the URL and what the store answered: no credentials,
refused credentials, an expired token, 403, a missing bucket, a wrong region. Requests time out
after 30 s and are retried 3 times (obstore's own default is 10 over 3 min).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from .errors import AccessError, StoreError
from .extras import import_extra

SCHEMES = ("s3", "gs", "az")
EXTRA = "cloud"
TIMEOUT = "30s"
# object_store retries up to 10 times over 3 minutes by default; a reader wants an answer sooner.
RETRIES = 3
MULTIPART_CHUNK = 8 * 2**20
# The obstore setting `endpoint` becomes, per scheme, and the environment variables that give it.
_ENDPOINT_SETTING = {"s3": "endpoint", "gs": "base_url", "az": "endpoint"}
_ENDPOINT_ENV = {
    "s3": ("AWS_ENDPOINT_URL", "AWS_ENDPOINT"),
    "gs": ("GOOGLE_BASE_URL",),
    "az": ("AZURE_STORAGE_ENDPOINT", "AZURE_ENDPOINT"),
}


@dataclass(frozen=True)
class BucketURL:
    scheme: str
    bucket: str
    prefix: str  # without leading or trailing "/", may be ""

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.bucket}" + (f"/{self.prefix}" if self.prefix else "")


def is_bucket_url(text: object) -> bool:
    return isinstance(text, str) and text.split("://", 1)[0].lower() in SCHEMES and "://" in text


def parse_bucket_url(text: str) -> BucketURL:
    """The parts of an object-store URL; a StoreError for another scheme or a missing bucket."""
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        raise StoreError(f"{text!r} is not an object-store URL: give s3://bucket/prefix, gs://bucket/prefix or az://container/prefix")
    bucket, _, prefix = rest.strip("/").partition("/")
    if not bucket:
        raise StoreError(f"{text!r} names no bucket: give {scheme.lower()}://BUCKET/prefix")
    if "?" in rest or "#" in rest:
        raise StoreError(f"{text!r}: an object-store URL takes no query or fragment; pass options (endpoint, region) separately")
    return BucketURL(scheme.lower(), bucket, "/".join(p for p in prefix.split("/") if p))


def obstore_for(
    url: str,
    *,
    endpoint: str | None = None,
    region: str | None = None,
    anonymous: bool = False,
    config: Mapping[str, Any] | None = None,
) -> Any:
    """An obstore store rooted at the URL's prefix. `endpoint` points the URL at another service
    speaking its API (an S3-compatible service, a GCS or Azure emulator; plain http allowed);
    `region` (s3:// only) and `anonymous` (unsigned requests, for public buckets) override the
    environment; `config` passes further obstore settings through."""
    parsed = parse_bucket_url(url)
    store_module = import_extra("obstore.store", EXTRA, f"reading or writing {parsed.scheme}:// URLs")
    settings: dict[str, Any] = dict(config or {})
    key = _ENDPOINT_SETTING[parsed.scheme]
    if endpoint:
        settings.setdefault(key, endpoint)
        if parsed.scheme == "s3":
            settings.setdefault("virtual_hosted_style_request", False)
    if region:
        if parsed.scheme != "s3":
            raise StoreError(f"a region is for s3:// URLs; {url} names its location through its account")
        settings.setdefault("region", region)
    if anonymous:
        settings.setdefault("skip_signature", True)
    client = dict(settings.pop("client_options", {}) or {})
    client.setdefault("timeout", TIMEOUT)
    # Our client options replace those obstore would read from the environment, so a plain-http
    # endpoint (a local MinIO, moto or emulator) given either way is allowed here.
    given = settings.get(key) or next((os.environ[name] for name in _ENDPOINT_ENV[parsed.scheme] if os.environ.get(name)), "")
    if str(given).startswith("http://"):
        client.setdefault("allow_http", True)
    retry = settings.pop("retry_config", None) or {
        "max_retries": RETRIES,
        "retry_timeout": timedelta(seconds=60),
        "backoff": {"init_backoff": timedelta(milliseconds=250), "max_backoff": timedelta(seconds=4), "base": 2},
    }
    try:
        return store_module.from_url(parsed.url, client_options=client, retry_config=retry, **settings)
    except Exception as exc:  # obstore raises its own classes and ValueError for bad settings
        raise bucket_error(exc, parsed.url) from None


def absent(exc: FileNotFoundError, where: str) -> None:
    """Nothing for a missing key (the caller answers None); a missing bucket also answers 404,
    and that is an error."""
    if _code(str(exc)) == "NoSuchBucket" or "ContainerNotFound" in str(exc):
        raise bucket_error(exc, where) from None


# A token request to the instance-metadata service: no credentials were found in the environment.
_NO_CREDENTIALS = "no credentials found"
_CREDENTIAL_HINTS = {
    "s3": "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_SKIP_SIGNATURE=true for a public bucket",
    "gs": "set GOOGLE_SERVICE_ACCOUNT (a service-account JSON file) or GOOGLE_APPLICATION_CREDENTIALS",
    "az": "set AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN, or AZURE_SKIP_SIGNATURE=true for a public container",
}
# (error code or message fragment, what it means and how to fix it). First match wins.
_ANSWERS: tuple[tuple[str, str], ...] = (
    ("NoSuchBucket", "the bucket does not exist (check its name, and the endpoint when one is given)"),
    ("ContainerNotFound", "the container does not exist (check its name and AZURE_STORAGE_ACCOUNT_NAME)"),
    ("ExpiredToken", "the credentials have expired: renew the session token (AWS_SESSION_TOKEN) and try again"),
    ("TokenRefreshRequired", "the credentials have expired: renew the session token and try again"),
    ("InvalidAccessKeyId", "the access key is not known to this store: check AWS_ACCESS_KEY_ID (and the endpoint)"),
    ("SignatureDoesNotMatch", "the store refused the request signature: check AWS_SECRET_ACCESS_KEY"),
    ("InvalidToken", "the session token is malformed or not for these keys: check AWS_SESSION_TOKEN"),
    ("PermanentRedirect", "the bucket is in another region: set AWS_REGION (region= in Python) to the bucket's region"),
    ("AuthorizationHeaderMalformed", "the bucket is in another region: set AWS_REGION (region= in Python) to the bucket's region"),
    ("IllegalLocationConstraintException", "the bucket is in another region: set AWS_REGION (region= in Python) to the bucket's region"),
    ("/latest/api/token", _NO_CREDENTIALS),
    ("169.254.169.254", _NO_CREDENTIALS),
    ("/computeMetadata/v1/instance/service-accounts/", _NO_CREDENTIALS),  # GCE metadata, wherever it is
    ("/metadata/identity/oauth2/token", _NO_CREDENTIALS),  # Azure managed identity, wherever it is
    ("Account must be specified", "no storage account: set AZURE_STORAGE_ACCOUNT_NAME (and AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN)"),
    ("AuthenticationFailed", "the store refused the credentials: check AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN"),
    ("Server failed to authenticate the request", "the store refused the credentials: check AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN"),
    ("AccessDenied", "access denied (HTTP 403): the credentials lack permission for this key, or the bucket is private"),
    ("AuthorizationFailure", "access denied (HTTP 403): the credentials lack permission for this key"),
)
_STATUS = re.compile(r"status code: (\d{3})")
_CODE = re.compile(r"<Code>([^<]+)</Code>")


def _code(message: str) -> str | None:
    match = _CODE.search(message)
    return match.group(1) if match else None


def bucket_error(exc: BaseException, where: str) -> AccessError:
    """One line naming `where` and what the store answered, with the fix when we know it."""
    message = str(exc)
    code = _code(message)
    for needle, meaning in _ANSWERS:
        if needle == code or needle in message:
            if meaning == _NO_CREDENTIALS:
                meaning = f"{meaning}: {_CREDENTIAL_HINTS.get(where.partition('://')[0], _CREDENTIAL_HINTS['s3'])}"
            return AccessError(f"{where}: {meaning}" + (f" (the store answered {code})" if code and code != needle else ""))
    status = _STATUS.search(message)
    kind = type(exc).__name__
    if status and status.group(1) == "301":  # S3's redirect to the bucket's region, e.g. to a HEAD: no body
        return AccessError(f"{where}: the bucket is in another region: set AWS_REGION (region= in Python) to the bucket's region (HTTP 301)")
    if kind == "PermissionDeniedError" or (status and status.group(1) == "403"):
        return AccessError(
            f"{where}: access denied (HTTP 403): the bucket is private or the credentials lack permission; "
            "set credentials in the environment (AWS_ACCESS_KEY_ID, ...) or check the bucket policy"
        )
    if kind == "UnauthenticatedError" or (status and status.group(1) == "401"):
        return AccessError(f"{where}: the store refused the credentials (HTTP 401): check them in the environment")
    if kind == "UnknownConfigurationKeyError" or isinstance(exc, ValueError):
        return AccessError(f"{where}: the store settings are not valid: {_first_line(message)}")
    answer = f"HTTP {status.group(1)}" + (f" {code}" if code else "") if status else _first_line(message)
    return AccessError(f"{where}: the store could not be reached or refused the request ({answer})")


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else "no message"
    return line if len(line) <= 300 else line[:297] + "..."
