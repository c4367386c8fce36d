"""doctor against every host in tests/hostile_hosts.py: each misbehaviour is a finding of its own,
named for what the host did, and the run ends within its timeouts and time limit."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from conftest import make_series
from faulty_host import faulty_server
from hostile_hosts import HOSTS, STALL, switches
from typer.testing import CliRunner

import chronozarr
from chronozarr.check.doctor import doctor
from chronozarr.cli import app
from chronozarr.serve import StoreServer

TOTAL = 60.0
TIMEOUT = 0.5  # doctor sends a few dozen requests; against a stalling host each waits this long


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doctor-hosts")
    da = make_series(n_time=3, height=32, width=32)
    chronozarr.encode(da, root / "s", crs="EPSG:32631", chunk_size=16, encoding="none", shard=True, progress=False)
    return root


@pytest.mark.parametrize("name", sorted(HOSTS))
def test_doctor_names_each_misbehaviour_in_a_finding_of_its_own(site, name):
    check, fragment = HOSTS[name].finding
    started = time.monotonic()
    with faulty_server(site, **switches(name)) as server:
        report = doctor(f"{server.url}/s", timeout=TIMEOUT, total_timeout=TOTAL)
    elapsed = time.monotonic() - started
    found = [f for f in report if f.key.startswith(check) and fragment in f.message and f.severity in ("fail", "warn")]
    assert found, f"no {check!r} finding saying {fragment!r}:\n{report.to_text()}"
    assert elapsed < TOTAL, f"{elapsed:.1f} s"


def test_a_good_host_has_no_transport_findings(site):
    with StoreServer(site) as server:
        report = doctor(f"{server.url}/s", timeout=TIMEOUT)
    names = {f.key for f in report}
    assert not names & {"timeouts", "complete bodies", "redirects", "connection", "transient errors", "time limit"}, report.to_text()
    assert report.status_of("content-length") == "ok", report.to_text()


def test_the_time_limit_ends_doctor_against_a_host_that_never_answers(site):
    started = time.monotonic()
    with faulty_server(site, stall_headers=STALL * 10) as server:  # silent on every key, the root included
        report = doctor(f"{server.url}/s", timeout=5.0, total_timeout=2.0)
    assert time.monotonic() - started < 2.0 + 5.0
    assert report.status_of("time limit") == "fail" or report.status_of("timeouts") == "fail", report.to_text()
    assert not report.ok


def test_the_cli_takes_the_timeouts_and_reports_in_time(site):
    with faulty_server(site, **switches("stall_mid_body")) as server:
        started = time.monotonic()
        result = CliRunner().invoke(app, ["doctor", f"{server.url}/s", "--timeout", str(TIMEOUT), "--total-timeout", "30"])
    assert result.exit_code == 1, result.output
    assert "complete bodies" in result.output and "stalled" in result.output
    assert time.monotonic() - started < 30


def test_a_directory_store_is_unaffected_by_the_http_limits(site, tmp_path):
    shutil.copytree(site / "s", tmp_path / "s")
    report = doctor(tmp_path / "s", timeout=0.001, total_timeout=0.001)
    assert report.ok, report.to_text()


@pytest.mark.parametrize("name", ["stall_before_headers", "stall_mid_body"])
def test_check_12_s_reads_end_with_doctor_s_time_limit_retries_included(site, name):
    """A read that starts with 1.5 s of the limit left, against a host that stalls: its two
    attempts (2 s timeout each) must not run past the limit."""
    from chronozarr.check.doctor_client import Answer
    from chronozarr.check.doctor_http import HttpDoctor
    from chronozarr.check.doctor_source import HostTolerantStore

    with faulty_server(site, **switches(name)) as server:
        host = HttpDoctor(f"{server.url}/s", "https://example.org", timeout=2.0, total_timeout=1.5)
        source = HostTolerantStore(host.url, host.client, Answer(404, {}, b""))
        started = time.monotonic()
        with pytest.raises(chronozarr.StoreError, match="deadline"):
            source.get_range("0/data/c/0/0/0/0", 0, 16)
        assert time.monotonic() - started < 1.5 + 0.5
