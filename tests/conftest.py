"""Shared fixtures: small deterministic series built in code, never checked-in blobs."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from filelock import FileLock

# What the workers of one run build once and share (tests/packaging: the dists and their venvs).
SHARED_BUILDS = "shared-builds"
TESTS = Path(__file__).resolve().parent
# What `make check` leaves out (CONTRIBUTING.md), by path under tests/; the marker of each is
# registered in pyproject.toml. Tests that open Chromium are marked `browser` by their decorator.
MARKED_PATHS: dict[str, tuple[str, ...]] = {
    "packaging": ("packaging/",),
    "interop": ("interop/", "write/test_interop_gdal.py"),
    "slow": (
        "fuzz/",  # the deterministic slices of every fuzz target
        "test_examples.py",  # a notebook in a real Jupyter kernel
        "test_buckets_emulators.py",  # fake-gcs-server and Azurite
        "test_notebook_map.py",  # leafmap and geemap maps
        "test_demo.py",
        "write/test_distributed.py",  # dask.distributed clusters
        "write/test_bucket_output.py",  # moto S3 with crashes, resumes and a cluster: 13 min of 22 in a check run
        "write/test_append_crash.py",  # processes killed mid-write
        "write/test_resume.py",
        "write/test_reproducible.py",
        "serve/test_serve_limits.py",  # servers held at their limits
        "read/test_hostile_http.py",  # hosts that stall until a deadline
        "read/test_untrusted.py",
        "check/test_doctor_hosts.py",
    ),
}


def make_series(
    n_time: int = 4,
    n_band: int = 2,
    height: int = 37,
    width: int = 29,
    dtype: str = "uint16",
    seed: int = 0,
    bands: list[str] | None = None,
    resolution: float = 10.0,
) -> xr.DataArray:
    """A (time, band, y, x) array on a regular north-up UTM grid with monthly dates."""
    rng = np.random.default_rng(seed)
    kind = np.dtype(dtype)
    if kind.kind == "f":
        values = rng.normal(0.2, 0.1, size=(n_time, n_band, height, width)).astype(dtype)
    else:
        info = np.iinfo(kind)
        low = max(info.min, -2000) if kind.kind == "i" else 1
        high = min(info.max, 5000)
        values = rng.integers(low, high, size=(n_time, n_band, height, width), endpoint=True).astype(dtype)
    times = np.array([np.datetime64("2024-01-01", "M") + np.timedelta64(i, "M") for i in range(n_time)], dtype="datetime64[ns]")
    return xr.DataArray(
        values,
        dims=("time", "band", "y", "x"),
        coords={
            "time": times,
            "band": bands or [f"b{i}" for i in range(n_band)],
            "y": 5_000_000 - (np.arange(height) + 0.5) * resolution,
            "x": 500_000 + (np.arange(width) + 0.5) * resolution,
        },
    )


def _run_dir(factory: pytest.TempPathFactory) -> Path:
    """The temporary directory of the whole run: under pytest-xdist each worker's base temp is a
    child of the controller's, so their parent is common to all workers; without xdist it is the
    base temp itself."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def build_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], None]], Path]:
    """`build_once(name, make)`: the directory `name`, filled by `make` in the first worker that asks
    during this run; the others wait on its lock and reuse it. A failed build leaves nothing behind,
    so the next worker tries again and reports its own failure."""
    root = _run_dir(tmp_path_factory) / SHARED_BUILDS
    root.mkdir(exist_ok=True)

    def build(name: str, make: Callable[[Path], None]) -> Path:
        target = root / name
        with FileLock(str(root / f"{name}.lock")):
            if not (target / ".built").is_file():
                shutil.rmtree(target, ignore_errors=True)
                target.mkdir()
                try:
                    make(target)
                except BaseException:
                    shutil.rmtree(target, ignore_errors=True)
                    raise
                (target / ".built").touch()
        return target

    return build


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The markers `make check` selects on: by path (MARKED_PATHS), and `browser` for every test
    behind browser_check's needs_chromium."""
    from browser_check import CHROMIUM_REASON

    for item in items:
        relative = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
        for name, prefixes in MARKED_PATHS.items():
            if relative.startswith(prefixes):
                item.add_marker(name)
        if any(mark.kwargs.get("reason") == CHROMIUM_REASON for mark in item.iter_markers("skipif")):
            item.add_marker("browser")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The shared builds (venvs of a GB and more) are removed once every worker has ended: by the
    controller under xdist, by the one process without it."""
    if hasattr(session.config, "workerinput"):
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None and getattr(factory, "_basetemp", None) is not None:
        shutil.rmtree(factory.getbasetemp() / SHARED_BUILDS, ignore_errors=True)


@pytest.fixture
def series_factory():
    return make_series


@pytest.fixture(scope="session")
def s3_server():
    """One moto S3 server on 127.0.0.1 for the session (moto's state is per process anyway)."""
    import moto.moto_server.werkzeug_app  # noqa: F401
    from s3server import S3Server

    with S3Server() as server:
        yield server


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, s3_server) -> str:
    """Credentials and endpoint in the environment, as a user sets them; returns the endpoint.
    The instance-metadata endpoint points at a closed loopback port, so a test that finds no
    credentials never sends anything off the machine."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SKIP_SIGNATURE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT", "AWS_ALLOW_HTTP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_METADATA_ENDPOINT", "http://127.0.0.1:9")
    return s3_server.endpoint


def strip_grid_mapping(store) -> None:
    """Make `store` look as stores written before the CF grid mapping existed: no `spatial_ref`
    arrays, no `grid_mapping`/`coordinates` attributes, in the documents and their consolidated copies."""
    import json
    import shutil
    from pathlib import Path

    def clean(doc: dict) -> None:
        for name in ("grid_mapping", "coordinates"):
            doc.get("attributes", {}).pop(name, None)

    root = Path(store)
    for ref in root.glob("*/spatial_ref"):
        shutil.rmtree(ref)
    for path in root.glob("*/*/zarr.json"):
        doc = json.loads(path.read_text())
        clean(doc)
        path.write_text(json.dumps(doc))
    doc = json.loads((root / "zarr.json").read_text())
    nodes = doc.get("consolidated_metadata", {}).get("metadata", {})
    for key in [k for k in nodes if k.endswith("/spatial_ref")]:
        del nodes[key]
    for node in nodes.values():
        clean(node)
    (root / "zarr.json").write_text(json.dumps(doc))
