"""`doctor`: is a store served the way browsers and readers need it (docs/hosting.md, section 1)?

For a URL it runs the twelve checks of the hosting checklist, each at the level the checklist gives
when it is missing (`fail` breaks a MUST, `warn` a SHOULD, `info` is advice), and two the checklist
leaves to `curl` but users trip over: an absent key must be 404, and a chunk must carry no
`Content-Encoding` even when the client offers compression. For a directory it validates the store
and runs the decode checks. Every check ends as one line: `ok`, `FAIL`, `warn` or `info`.

Each check asks one thing. The decode checks request identity bodies and fall back to whole-object
GETs, so a host that breaks ranges or compression shows up once, in the check for that, and not
again as a decode failure.

Over HTTP every wait ends after `timeout` seconds and the whole run after `total_timeout`; a host
that stays silent, stalls or cuts a body short, redirects in a loop or fails and then recovers is
reported once for each of those (`doctor_client` sends the requests and keeps count).

This module picks the checks for the target; `doctor_http` holds checks 1-11 and the extras,
`doctor_decode` check 12, `doctor_source` the reader check 12 uses over HTTP and `doctor_plain` its
plain-zarr read, `doctor_report` the report.
"""

from __future__ import annotations

import os
from typing import Any

from ...buckets import is_bucket_url
from ...errors import ChronozarrError
from ...store.bucket import BucketStore
from ...store.http import DEFAULT_TIMEOUT
from .client import DEFAULT_TOTAL_TIMEOUT, is_url
from .decode import ArrayMeta, decode_checks, plain_local, validate_check
from .http import HttpDoctor
from .report import DoctorReport

DEFAULT_ORIGIN = "https://chronozarr.org"


def doctor(
    target: str | os.PathLike[str] | BucketStore, *, origin: str = DEFAULT_ORIGIN, timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT,
) -> DoctorReport:
    """Check how `target` (an http(s) URL, a store directory, an s3://, gs://, az:// URL or a
    BucketStore) is served; every problem with the host or the store is a line of the report.
    A bucket that cannot be read at all (credentials, permissions) raises AccessError.

    Over HTTP each wait (connecting, the first byte of an answer, a pause in a body) ends after
    `timeout` seconds, and the checks stop after `total_timeout` seconds in all, with a finding
    that says so."""
    for name, value in (("timeout", timeout), ("total_timeout", total_timeout)):
        if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
            raise ChronozarrError(f"doctor's {name} must be a positive number of seconds, got {value!r}")
    if isinstance(target, BucketStore):
        return _bucket_doctor(target)
    if is_bucket_url(os.fspath(target)):
        return _bucket_doctor(BucketStore(os.fspath(target)))
    text = os.fspath(target)
    if "://" in text and not is_url(text):
        raise ChronozarrError(
            f"doctor checks a store over HTTP, in an object store or on disk, not {text!r}: give an http(s), "
            "s3://, gs:// or az:// URL (or a local directory)"
        )
    if is_url(text):
        return HttpDoctor(text, origin, timeout, total_timeout).run()
    return _without_http(
        text, text, os.path.isfile(os.path.join(text, "zarr.json")), lambda meta: plain_local(text, meta),
        "skipped for a directory; serve it (chronozarr view, chronozarr serve) and run doctor on its URL",
    )


def _bucket_doctor(source: BucketStore) -> DoctorReport:
    """An object-store URL: the plain-zarr pixel is read through zarr-python's own obstore store."""
    return _without_http(
        source.describe(""), source, source.get("zarr.json") is not None, lambda meta: plain_bucket(source, meta),
        "skipped for an object-store URL; run doctor on the https:// URL the bucket is served at",
    )


def _without_http(name: str, location: Any, has_root: bool, plain_reader: Any, why: str) -> DoctorReport:
    """A target with no HTTP to check: validation and the decode checks only."""
    report = DoctorReport(name)
    if not has_root:
        report.fail("1", "root zarr.json", f"no store at {name}: there is no zarr.json in it")
        return report
    report.info("1-11", "HTTP checks", why)
    validate_check(report, location)
    decode_checks(report, location, plain_reader=plain_reader)
    return report


def plain_bucket(source: BucketStore, meta: ArrayMeta) -> Any:
    """The plain-zarr reader of a bucket: zarr-python over the same obstore store."""
    import zarr
    from zarr.storage import ObjectStore

    def read(index: tuple[int, ...]) -> tuple[Any, str]:
        store = ObjectStore(source.obstore, read_only=True)
        return zarr.open_array(store=store, path=meta.path, mode="r")[index], "zarr.storage.ObjectStore"

    return read
