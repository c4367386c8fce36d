"""The package as users install it: the wheel and the sdist built from this checkout, each installed
into a fresh venv outside it, with the core dependencies only and again with every extra.

Each variant is installed once per run, shared by the pytest-xdist workers (pip's cache makes the
downloads a one-time cost); pip compiles the bytecode at install, since the many console-script runs
would otherwise each compile xarray, pandas and zarr again where PYTHONDONTWRITEBYTECODE is set. The
checks then run its console script and its Python, never this checkout's.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import venv
from pathlib import Path

import numpy as np
import pytest

from browser_check import assert_drawn, check_page, level0_url, needs_chromium
from conftest import make_series

REPO = Path(__file__).resolve().parents[2]
JS = REPO / "js"
ALL_EXTRAS = "all"
VARIANTS = [("wheel", "core"), ("wheel", "all"), ("sdist", "core"), ("sdist", "all")]
IDS = [f"{kind}-{extras}" for kind, extras in VARIANTS]
# What a core install cannot do, and the extra each says to install.
NEEDS_AN_EXTRA = [
    (["export-cog", "{store}", "{tmp}/cogs"], "geo"),
    (["info", "s3://bucket/store"], "cloud"),
    (["publish", "{store}", "s3://bucket/store"], "cloud"),
    (["encode", "{tmp}/input.nc", "{tmp}/from-nc"], "netcdf"),
]

pytestmark = pytest.mark.skipif(not (JS / "node_modules" / "maplibre-gl").is_dir(), reason="js/node_modules missing: run make js")


class Installed:
    """One fresh venv with chronozarr installed from a built distribution."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"
        self.cli = root / "bin" / "chronozarr"

    def run(self, *args: str, cwd: Path, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=_clean_env(), stdin=subprocess.DEVNULL
        )
        if check and result.returncode != 0:
            raise AssertionError(f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result


def _ctrl_c_stops() -> None:
    """In the child before exec: SIGINT back to its default, as in a terminal. A run started in the
    background by a shell (`cmd &`, nohup) inherits SIGINT ignored, and Python then keeps ignoring
    it, so the Ctrl-C these tests send would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, as a user stops `view` and `demo`; a process still running 30 s later is killed, so
    no server outlives its test, and the test fails."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"{process.args} did not stop within 30 s of Ctrl-C") from None


def _clean_env() -> dict[str, str]:
    """The environment without this checkout's venv or source tree on any path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(REPO)))
    return env


@pytest.fixture(scope="session")
def dists(build_once) -> dict[str, Path]:
    """The sdist, and the wheel `build` makes from it (so the sdist is checked to be complete):
    built once per run, whichever worker asks first."""

    def make(out: Path) -> None:
        subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)], check=True, capture_output=True, timeout=600)

    out = build_once("dist", make)
    (wheel,) = out.glob("chronozarr-*.whl")
    (sdist,) = out.glob("chronozarr-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="session")
def installs(dists: dict[str, Path], build_once) -> dict[tuple[str, str], Installed]:
    """Each variant's venv, installed once per run by the first worker that needs it (removed at the
    end of the run by conftest's pytest_sessionfinish)."""

    class Lazy(dict):  # type: ignore[type-arg]
        def __missing__(self, key: tuple[str, str]) -> Installed:
            kind, extras = key
            target = str(dists[kind]) + (f"[{ALL_EXTRAS}]" if extras == "all" else "")

            def make(root: Path) -> None:
                venv.create(root, with_pip=True, symlinks=True)
                Installed(root).run(
                    root / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", target, cwd=root, timeout=900
                )

            installed = Installed(build_once(f"venv-{kind}-{extras}", make))
            self[key] = installed
            return installed

    return Lazy()


@pytest.fixture(scope="session")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Zarr input, a NetCDF file and an encoded store, all outside the checkout."""
    import chronozarr

    tmp = tmp_path_factory.mktemp("install-work")
    da = make_series(n_time=3, height=40, width=30)
    da.to_dataset(name="data").to_zarr(tmp / "input.zarr", zarr_format=3, consolidated=False)
    da.to_dataset(name="data").to_netcdf(tmp / "input.nc")
    chronozarr.encode(da, tmp / "store", crs="EPSG:32631", chunk_size=16, encoding="none", progress=False)
    np.save(tmp / "values.npy", da.values)
    return tmp


def _commands() -> list[str]:
    from chronozarr.cli import app

    return [c.name for c in app.registered_commands if c.name]


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_every_command_has_help(installs, work: Path, variant) -> None:
    installed = installs[variant]
    assert installed.run(installed.cli, "--help", cwd=work).stdout.startswith("Usage: chronozarr")
    for command in _commands():
        result = installed.run(installed.cli, command, "--help", cwd=work)
        assert result.stdout.startswith(f"Usage: chronozarr {command}") and "Examples:" in result.stdout, command


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_encode_validate_info(installs, work: Path, variant, tmp_path: Path) -> None:
    installed = installs[variant]
    out = tmp_path / "encoded"
    installed.run(installed.cli, "encode", work / "input.zarr", out, "--crs", "EPSG:32631", "--chunk-size", "16", cwd=tmp_path)
    assert installed.run(installed.cli, "validate", out, cwd=tmp_path).stdout.strip().endswith("valid (0 fail, 0 warn, 0 info)")
    summary = json.loads(installed.run(installed.cli, "info", out, "--json", cwd=tmp_path).stdout)
    assert summary["times"]["count"] == 3 and summary["crs"] == "EPSG:32631"
    read = "import chronozarr, numpy, sys; s = chronozarr.open_dataset(sys.argv[1]); numpy.save(sys.argv[2], numpy.stack([s.read(t) for t in range(3)]))"
    installed.run(installed.python, "-c", read, out, tmp_path / "read.npy", cwd=tmp_path)
    np.testing.assert_array_equal(np.load(tmp_path / "read.npy"), np.load(work / "values.npy"))


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_every_public_module_imports(installs, work: Path, variant) -> None:
    installed = installs[variant]
    script = (
        "import importlib, pkgutil, chronozarr\n"
        "names = [m.name for m in pkgutil.walk_packages(chronozarr.__path__, 'chronozarr.') if not m.name.endswith('__main__')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(len(names), chronozarr.__file__)\n"
    )
    count, where = installed.run(installed.python, "-c", script, cwd=work).stdout.split()
    assert int(count) > 60 and str(installed.root) in where and str(REPO) not in where


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_a_missing_extra_is_named(installs, work: Path, kind: str) -> None:
    installed = installs[(kind, "core")]
    for args, extra in NEEDS_AN_EXTRA:
        argv = [a.format(store=work / "store", tmp=work) for a in args]
        result = installed.run(installed.cli, *argv, cwd=work, check=False)
        assert result.returncode == 2, (argv, result.stdout, result.stderr)
        assert f"pip install 'chronozarr[{extra}]'" in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr


def _served_url(process: subprocess.Popen[str], pattern: str) -> str:
    """The first URL the command prints on a line matching `pattern`."""
    assert process.stdout is not None
    seen = []
    for line in process.stdout:
        seen.append(line)
        match = re.match(pattern, line)
        if match:
            return match.group(1)
    raise AssertionError(f"no URL printed: {''.join(seen)}")


@needs_chromium
@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_view_from_an_install_draws_the_store_in_chromium(installs, work: Path, kind: str) -> None:
    installed = installs[(kind, "core")]
    pixel = (12, 9)
    process = subprocess.Popen(
        [str(installed.cli), "view", str(work / "store")], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=_clean_env(), stdin=subprocess.DEVNULL, preexec_fn=_ctrl_c_stops,
    )
    try:
        printed = _served_url(process, r"Viewer: (\S+)")
        report = check_page(level0_url(printed, pixel), pixel)
    finally:
        _interrupt(process)
    assert_drawn(report, np.load(work / "values.npy"), pixel)


@needs_chromium
def test_demo_and_the_notebook_viewer_from_the_wheel(installs, work: Path, tmp_path: Path) -> None:
    installed = installs[("wheel", "all")]
    demo = subprocess.Popen(
        [str(installed.cli), "demo", str(tmp_path), "--small", "--port", "0"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=_clean_env(), stdin=subprocess.DEVNULL, preexec_fn=_ctrl_c_stops,
    )
    try:
        printed = _served_url(demo, r"viewer: (http\S+)")
        report = check_page(printed, (10, 10))
    finally:
        _interrupt(demo)
    assert report["errors"] == [] and report["drawn"]["drawn"] == report["drawn"]["on"] > 100, report
    # chronozarr.view() in a notebook: the widget's iframe URL, served by the kernel's process.
    script = "import sys, chronozarr; w = chronozarr.view(sys.argv[1]); print('widget:', w.url, flush=True); sys.stdin.read()"
    kernel = subprocess.Popen(
        [str(installed.python), "-c", script, str(work / "store")], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.PIPE, text=True, env=_clean_env(),
    )
    pixel = (20, 30)
    try:
        report = check_page(level0_url(_served_url(kernel, r"widget: (\S+)"), pixel), pixel)
    finally:
        assert kernel.stdin is not None
        kernel.stdin.close()
        kernel.wait(timeout=30)
    assert_drawn(report, np.load(work / "values.npy"), pixel)
