"""doctor against the local server: a good host passes, each fault gives exactly its finding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import make_series
from faulty_host import faulty_server
from typer.testing import CliRunner

import chronozarr
from chronozarr.check import doctor_plain
from chronozarr.check.doctor import doctor
from chronozarr.check.doctor_caching import looks_versioned
from chronozarr.cli import app
from chronozarr.serve import StoreServer

# Advice lines every host gets (checks 10 and 11): the local server sends Timing-Allow-Origin and
# has no edge cache, so both are `info` on a correct host, as the checklist says they always are.
ADVICE = {"timing-allow-origin", "edge cache"}
PROBE = "0/data/c/0/0/0/0"


def _encode(path: Path, n_time: int, **options) -> None:
    da = make_series(n_time=n_time, height=40, width=30)
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=16, encoding="none", progress=False, **options)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Stores at versioned prefixes: sharded (shard 0 complete, so immutable), unsharded, a
    whole-axis shard (its only shard is the trailing one), and sharded without shard_bytes."""
    root = tmp_path_factory.mktemp("doctor-site")
    _encode(root / "sharded" / "chronozarr-1", 5, shard=True, shard_time=2)
    _encode(root / "unsharded" / "chronozarr-1", 5)
    _encode(root / "whole" / "chronozarr-1", 5, shard=True)
    bare = root / "bare" / "chronozarr-1"
    shutil.copytree(root / "sharded" / "chronozarr-1", bare)
    doc = json.loads((bare / "zarr.json").read_text())
    del doc["attributes"]["chronozarr"]["shard_bytes"]
    (bare / "zarr.json").write_text(json.dumps(doc))
    return root


def _problems(report) -> dict[str, str]:
    """Every check that did not pass, by name, without the advice lines."""
    return {f.key: f.severity for f in report if f.severity != "ok" and f.key not in ADVICE}


@pytest.mark.parametrize("store", ["sharded", "unsharded"])
def test_good_host_passes_everything(site: Path, store: str) -> None:
    with StoreServer(site) as srv:
        report = doctor(f"{srv.url}/{store}/chronozarr-1")
    assert report.ok and _problems(report) == {}, report.to_text()
    assert {f.key for f in report if f.severity == "info"} == ADVICE
    names = [f.key for f in report]
    for expected in ("root zarr.json", "CORS on zarr.json", "consolidated metadata", f"byte range on {PROBE}",
                     f"CORS on byte range {PROBE}", "CORS expose Content-Range", "suffix range", "CORS preflight",
                     "HEAD", "cache-control", "no content-encoding", "absent key 404", "validate",
                     "decode level 0", "decode level 1", "decode level 2", "plain zarr pixel"):
        assert expected in names
    assert "fsspec HTTP" in next(f.message for f in report if f.key == "plain zarr pixel")


CORS_LOST = {"CORS on zarr.json": "fail", f"CORS on byte range {PROBE}": "fail", "CORS expose Content-Range": "fail", "HEAD": "warn"}
# (server switches, problems on the sharded store, problems on the unsharded store)
FAULTS = [
    ({"cors": False}, CORS_LOST | {"CORS preflight": "warn"}, CORS_LOST | {"CORS preflight": "info"}),
    ({"expose_headers": False}, {"CORS expose Content-Range": "fail"}, {"CORS expose Content-Range": "fail"}),
    ({"ranges": False}, {f"byte range on {PROBE}": "fail", "suffix range": "fail"}, {f"byte range on {PROBE}": "warn", "suffix range": "info"}),
    ({"range_200": True}, {f"byte range on {PROBE}": "fail", "suffix range": "fail"}, {f"byte range on {PROBE}": "warn", "suffix range": "info"}),
    ({"suffix_ranges": False}, {"suffix range": "fail"}, {"suffix range": "info"}),
    ({"spa_fallback": True}, {"absent key 404": "fail"}, {"absent key 404": "fail"}),
    ({"missing_status": 403}, {"absent key 404": "fail"}, {"absent key 404": "fail"}),
    ({"gzip": True}, {"no content-encoding": "fail"}, {"no content-encoding": "fail"}),
    ({"head": False}, {"HEAD": "warn"}, {"HEAD": "warn"}),  # sharded with shard_bytes: a warning
    ({"short_cache": True}, {"cache-control": "warn"}, {"cache-control": "warn"}),  # versioned prefix
]


@pytest.mark.parametrize("switches,sharded,unsharded", FAULTS, ids=[",".join(f[0]) for f in FAULTS])
def test_each_fault_gives_exactly_its_finding(site: Path, switches: dict, sharded: dict, unsharded: dict) -> None:
    with faulty_server(site, **switches) as srv:
        for store, expected in (("sharded", sharded), ("unsharded", unsharded)):
            report = doctor(f"{srv.url}/{store}/chronozarr-1")
            assert _problems(report) == expected, f"{store}:\n{report.to_text()}"
            assert report.ok == ("fail" not in expected.values())


def test_head_fails_for_a_sharded_store_without_shard_bytes(site: Path) -> None:
    with StoreServer(site, head=False) as srv:
        report = doctor(f"{srv.url}/bare/chronozarr-1")
    assert _problems(report) == {"HEAD": "fail"}, report.to_text()


def test_one_time_shard_warns_on_cache_control_as_documented(site: Path) -> None:
    # The probe object is the store's only, trailing, shard: an append rewrites it, so it is served
    # with a short lifetime, and the hosting guide says doctor warns on a versioned prefix then.
    with StoreServer(site) as srv:
        report = doctor(f"{srv.url}/whole/chronozarr-1")
    assert _problems(report) == {"cache-control": "warn"}
    assert "trailing shard" in next(f.message for f in report if f.key == "cache-control")


def test_short_cache_on_an_unversioned_prefix_is_info(tmp_path: Path, site: Path) -> None:
    shutil.copytree(site / "unsharded" / "chronozarr-1", tmp_path / "store")
    with StoreServer(tmp_path, short_cache=True) as srv:
        report = doctor(f"{srv.url}/store")
    assert _problems(report) == {"cache-control": "info"}


def test_plain_zarr_falls_back_to_whole_object_reads(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(doctor, meta, index):
        raise OSError("no fsspec here")

    monkeypatch.setattr(doctor_plain, "_fsspec", broken)
    with StoreServer(site) as srv:
        for store in ("sharded", "unsharded"):
            report = doctor(f"{srv.url}/{store}/chronozarr-1")
            check = next(f for f in report if f.key == "plain zarr pixel")
            assert check.severity == "ok" and "whole-object GET" in check.message


def test_local_directory_runs_validation_and_decoding(site: Path) -> None:
    report = doctor(site / "sharded" / "chronozarr-1")
    assert report.ok and _problems(report) == {"HTTP checks": "info"}
    assert [f.key for f in report if f.severity == "ok"] == ["validate", "decode level 0", "decode level 1", "decode level 2", "plain zarr pixel"]
    missing = doctor(site / "nothing-here")
    assert not missing.ok and missing.fails[0].key == "root zarr.json"


def test_absent_store_and_unreachable_host_are_failures(site: Path) -> None:
    with StoreServer(site) as srv:
        report = doctor(f"{srv.url}/no/such/store")
        url = srv.url
    assert [(f.key, f.severity) for f in report] == [("root zarr.json", "fail")]
    gone = doctor(f"{url}/sharded/chronozarr-1", timeout=2)
    assert not gone.ok


def test_versioned_prefixes() -> None:
    for yes in ("https://h/aoi/chronozarr-3", "https://h/x/v2/", "/data/2026-09", "s/20260930", "a/store_v1.2"):
        assert looks_versioned(yes), yes
    for no in ("https://h/aoi/store", "demo.zarr", "https://h/sentinel2"):
        assert not looks_versioned(no), no


def test_cli_lines_json_and_exit_status(site: Path) -> None:
    runner = CliRunner()
    with StoreServer(site) as good:
        result = runner.invoke(app, ["doctor", f"{good.url}/unsharded/chronozarr-1"])
        assert result.exit_code == 0, result.output
        lines = result.output.strip().splitlines()
        assert lines[0].startswith("ok   root zarr.json") and "ready to serve" in lines[-1]
        as_json = runner.invoke(app, ["doctor", f"{good.url}/unsharded/chronozarr-1", "--json", "--origin", "https://example.org"])
        doc = json.loads(as_json.output)
        assert doc["ok"] and doc["counts"]["fail"] == 0 and doc["counts"]["info"] == 2
    with StoreServer(site, head=False) as warned:  # warnings alone exit 0
        assert runner.invoke(app, ["doctor", f"{warned.url}/unsharded/chronozarr-1"]).exit_code == 0
    with StoreServer(site, cors=False) as bad:
        result = runner.invoke(app, ["doctor", f"{bad.url}/unsharded/chronozarr-1"])
        assert result.exit_code == 1 and "FAIL CORS on zarr.json" in result.output
    assert runner.invoke(app, ["doctor", "s3://bucket/store"]).exit_code == 2
