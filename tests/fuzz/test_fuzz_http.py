"""Fuzz targets: a store served by a host that misbehaves in a random combination of ways (the
`StoreServer` faults, on chunks or on every object). The reader gives the stored values or our
error within the time its timeout and retries allow; doctor ends within its limits and never raises."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from budget import fuzz
from faulty_host import faulty_server
from hostile_stores import build_base
from hypothesis import strategies as st

import chronozarr
from chronozarr.check.doctor import doctor
from chronozarr.errors import ChronozarrError

TIMEOUT = 0.2
STALL = 0.4  # longer than the timeout: only the timeout ends a stall
ROOT = Path(tempfile.mkdtemp(prefix="chronozarr-fuzz-http-"))
atexit.register(shutil.rmtree, ROOT, ignore_errors=True)
for _name in ("star", "sharded"):
    build_base(ROOT / _name / "s", _name)
TRUTH = {name: chronozarr.open_dataset(ROOT / name / "s").read(2) for name in ("star", "sharded")}

FAULTS = st.fixed_dictionaries(
    {},
    optional={
        "range_200": st.booleans(),
        "ranges": st.booleans(),
        "wrong_content_range": st.booleans(),
        "content_range": st.booleans(),
        "suffix_ranges": st.sampled_from([True, False, 200, 416, 501]),
        "short_body": st.booleans(),
        "length_offset": st.integers(-40, 40),
        "gzip_always": st.booleans(),
        "spa_fallback": st.booleans(),
        "head": st.booleans(),
        "missing_status": st.sampled_from([404, 410, 403]),
        "fail_status": st.tuples(st.sampled_from([500, 502, 503]), st.integers(0, 3)),
        "stall_headers": st.sampled_from([0.0, STALL]),
        "stall_body": st.sampled_from([0.0, STALL]),
        "redirect_loop": st.booleans(),
        "fault_keys": st.sampled_from(["", "/c/", "/0/data/", "zarr.json"]),
    },
)
CASES = st.tuples(st.sampled_from(sorted(TRUTH)), FAULTS)
# A read here is at most a dozen requests, each waiting out the timeout twice at worst.
READ_BOUND = 12 * 2 * (TIMEOUT + STALL) + 5


@fuzz("http_answers", CASES, slice_examples=25)
def check_read(case: tuple[str, dict]) -> None:
    """A frame read through a host with a random set of faults: the values, or our error."""
    layout, faults = case
    started = time.monotonic()
    with faulty_server(ROOT / layout, **faults) as server:
        try:
            with chronozarr.open_dataset(f"{server.url}/s", timeout=TIMEOUT, retries=1, backoff=0.01) as store:
                values = store.read(2)
        except ChronozarrError:
            pass
        else:
            np.testing.assert_array_equal(values, TRUTH[layout])
    assert time.monotonic() - started < READ_BOUND


@fuzz("doctor_hosts", CASES, slice_examples=4)
def check_doctor(case: tuple[str, dict]) -> None:
    """doctor against a host with a random set of faults: a report, within its time limit."""
    layout, faults = case
    started = time.monotonic()
    with faulty_server(ROOT / layout, **faults) as server:
        report = doctor(f"{server.url}/s", timeout=TIMEOUT, total_timeout=20)
    assert report.findings
    assert time.monotonic() - started < 20 + 2 * (TIMEOUT + STALL) + 5


test_fuzz_http_answers = check_read
test_fuzz_doctor_hosts = check_doctor
