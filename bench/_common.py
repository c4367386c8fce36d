"""Shared pieces of the benchmarks: a seeded synthetic series, a peak-RSS sampler, machine facts.

The series imitates Sentinel-2 L2A surface reflectance closely enough for compression to behave
alike: smooth landscape structure at several scales, sharp-edged parcels, a slow seasonal change,
and a few DN of sensor noise on every pixel. Everything comes from one seed, so two processes
building the same shape hold the same values.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import resource
import sys
import threading
import time
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import numpy as np

# Typical range of each band (blue, green, red, near infrared) in DN.
BAND_NAMES = ("B02", "B03", "B04", "B08")
BAND_LEVELS = ((450.0, 250.0), (700.0, 300.0), (800.0, 500.0), (2600.0, 800.0))
NOISE_DN = 5.0
SEED = 20240601


def _smooth(rng: np.random.Generator, height: int, width: int, cell: int) -> np.ndarray:
    """Bilinear upsampling of a coarse random grid with one node every `cell` pixels (float32, ~N(0,1))."""
    gh, gw = height // cell + 2, width // cell + 2
    grid = rng.standard_normal((gh, gw), dtype=np.float32)
    pos_y = np.arange(height, dtype=np.float32) / cell
    pos_x = np.arange(width, dtype=np.float32) / cell
    iy, ix = pos_y.astype(np.int64), pos_x.astype(np.int64)
    wy, wx = (pos_y - iy)[:, None], (pos_x - ix)[None, :]
    rows = grid[iy] * (1 - wy) + grid[iy + 1] * wy
    return rows[:, ix] * (1 - wx) + rows[:, ix + 1] * wx


class _Parcels:
    """Field parcels of about `size` pixels with jittered edges; `field` paints one value per parcel."""

    def __init__(self, rng: np.random.Generator, height: int, width: int, size: int) -> None:
        self.rng = rng
        self.shape = (height // size + 2, width // size + 2)
        jitter_y = (_smooth(rng, height, 1, 64)[:, 0] * size * 0.3).astype(np.int64)
        jitter_x = (_smooth(rng, 1, width, 64)[0] * size * 0.3).astype(np.int64)
        self.iy = np.clip((np.arange(height) + jitter_y) // size, 0, self.shape[0] - 1)
        self.ix = np.clip((np.arange(width) + jitter_x) // size, 0, self.shape[1] - 1)

    def field(self) -> np.ndarray:
        values = self.rng.standard_normal(self.shape, dtype=np.float32)
        return values[self.iy][:, self.ix]


def _landscape(rng: np.random.Generator, parcels: _Parcels, height: int, width: int) -> np.ndarray:
    """One band-independent structure field, roughly N(0,1)."""
    field = 0.55 * _smooth(rng, height, width, 256)
    field += 0.45 * parcels.field()
    field += 0.20 * _smooth(rng, height, width, 24)
    field += 0.05 * _smooth(rng, height, width, 6)
    field += 0.02 * _smooth(rng, height, width, 2)
    return field


def iter_timesteps(n_time: int, n_band: int, height: int, width: int, seed: int = SEED) -> Iterator[np.ndarray]:
    """Yield the series one (band, y, x) uint16 timestep at a time; memory stays bounded.

    The random draws happen in the same order whatever `n_time` is, so a longer series begins
    with exactly the timesteps of a shorter one built from the same seed.
    """
    rng = np.random.default_rng(seed)
    parcels = _Parcels(rng, height, width, 40)
    land = _landscape(rng, parcels, height, width)
    vegetation = _smooth(rng, height, width, 96)  # where the seasonal cycle is strong
    phase = parcels.field() * np.float32(1.5)  # each parcel greens up on its own date
    band_texture = [0.06 * _smooth(rng, height, width, 4) for _ in range(n_band)]
    for t in range(n_time):
        step = np.empty((n_band, height, width), dtype=np.uint16)
        season = np.sin(np.float32(2 * np.pi * t / 12.0) + phase)
        drift = 0.12 * _smooth(rng, height, width, 128)  # haze and illumination, new each date
        for b in range(n_band):
            mean, spread = BAND_LEVELS[b % len(BAND_LEVELS)]
            sign = 1.0 if b % len(BAND_LEVELS) == 3 else -0.4  # NIR rises with green-up, visible falls
            value = land + band_texture[b]
            value += np.float32(0.35 * sign) * season * (1 + vegetation)  # phenology per parcel
            value += drift
            value *= np.float32(spread)
            value += np.float32(mean)
            value += rng.standard_normal((height, width), dtype=np.float32) * np.float32(NOISE_DN)
            np.clip(value, 1, 10000, out=value)
            step[b] = np.rint(value).astype(np.uint16)
        yield step


def make_values(n_time: int, n_band: int, height: int, width: int, seed: int = SEED) -> np.ndarray:
    """The whole (time, band, y, x) uint16 series in memory (see iter_timesteps)."""
    out = np.empty((n_time, n_band, height, width), dtype=np.uint16)
    for t, step in enumerate(iter_timesteps(n_time, n_band, height, width, seed)):
        out[t] = step
    return out


def coords(n_time: int, n_band: int, height: int, width: int, resolution: float = 10.0, start: int = 0) -> dict[str, np.ndarray]:
    """Coordinates of the series (UTM 31N grid, 5-day revisits); `start` offsets the time axis."""
    times = np.datetime64("2024-01-03", "ns") + (start + np.arange(n_time)) * np.timedelta64(5, "D")
    names = np.array([BAND_NAMES[b] if b < len(BAND_NAMES) else f"B{b}" for b in range(n_band)])
    return {
        "time": times,
        "band": names,
        "y": 5_000_040.0 - (np.arange(height) + 0.5) * resolution,
        "x": 600_000.0 + (np.arange(width) + 0.5) * resolution,
    }


def make_dataarray(values: np.ndarray, resolution: float = 10.0, start: int = 0):
    """Wrap values as a (time, band, y, x) DataArray on a UTM 31N grid with 5-day revisits."""
    import xarray as xr

    return xr.DataArray(
        values,
        dims=("time", "band", "y", "x"),
        coords=coords(*values.shape, resolution=resolution, start=start),
        name="data",
    )


def write_sources(stores: dict[Path, int], n_band: int, height: int, width: int, seed: int = SEED) -> float:
    """Write the series into uncompressed Zarr v3 stores, one timestep per chunk, in one pass.

    `stores` maps each path to its number of dates; every store gets the first n timesteps of
    one generator run (so they share their common prefix). Each timestep is generated, written
    (the first with mode "w-", the rest appended along time) and dropped, so memory stays at
    about one timestep plus the generator's fixed fields. Returns the seconds taken.
    """
    started = time.perf_counter()
    n_total = max(stores.values())
    encoding = {"data": {"chunks": (1, n_band, height, width), "compressors": None}}
    for t, step in enumerate(iter_timesteps(n_total, n_band, height, width, seed)):
        ds = make_dataarray(step[None], start=t).to_dataset()
        for path, n_time in stores.items():
            if t >= n_time:
                continue
            if t == 0:
                ds.to_zarr(path, mode="w-", zarr_format=3, consolidated=False, encoding=encoding)
            else:
                ds.to_zarr(path, append_dim="time", zarr_format=3, consolidated=False)
        del ds, step
    return time.perf_counter() - started


def rss_bytes() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def max_rss_bytes() -> int:
    """This process's lifetime peak RSS (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def peak_rss_bytes() -> int:
    """This process's own peak RSS: VmHWM on Linux, else ru_maxrss.

    On Linux ru_maxrss is not this process's alone: the parent's high-water mark at fork time is
    carried through fork and exec, so a child of a big parent reports the parent's peak. VmHWM is
    the high-water mark of the address space this process got at exec.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return max_rss_bytes()


class PeakSampler:
    """Samples this process's RSS every `interval` seconds in a thread; `peak` is the largest seen.

    With interval None only the RSS at entry and exit are taken (no thread).
    """

    def __init__(self, interval: float | None = 0.005) -> None:
        import psutil

        self._process = psutil.Process()
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-rss", daemon=True)
        self.peak = 0

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, int(self._process.memory_info().rss))
            time.sleep(self._interval)

    def __enter__(self) -> "PeakSampler":
        self.peak = int(self._process.memory_info().rss)
        if self._interval is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.peak = max(self.peak, int(self._process.memory_info().rss))


def tree_bytes(root: Path) -> tuple[int, int, int]:
    """(files, apparent bytes, allocated bytes) under root."""
    files = apparent = allocated = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            st = os.stat(os.path.join(dirpath, name))
            files += 1
            apparent += st.st_size
            allocated += st.st_blocks * 512
    return files, apparent, allocated


def machine() -> dict[str, Any]:
    import dask
    import numcodecs
    import numpy
    import xarray
    import zarr

    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "processor": platform.machine(),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "zarr": zarr.__version__,
        "numcodecs": numcodecs.__version__,
        "xarray": xarray.__version__,
        "dask": dask.__version__,
        "memory_bytes": _total_memory(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def _total_memory() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except ImportError:
        return None


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# A chronozarr command in a child of run_child, timed from its first line to its last with the
# heavy imports done before the clock starts (as in the peers' children): format with bench= (the
# folder of _common.py) and args= (the command's argument list).
CLI_CHILD = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import _common
import numpy, pyproj, rasterio, xarray
import chronozarr.convert
from chronozarr.cli import app
started = time.perf_counter()
try:
    app({args!r}, prog_name="chronozarr", standalone_mode=False)
except SystemExit as exc:
    if exc.code:
        raise
print(json.dumps({{"seconds": time.perf_counter() - started, "peak_rss_mb": _common.peak_rss_bytes() / 1e6}}))
"""


def run_child(code: str) -> dict[str, Any]:
    """Run Python `code` in a fresh process (so its peak RSS is its own) and return the JSON object
    its last line of output prints."""
    import json
    import subprocess

    os.sync()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
