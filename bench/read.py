"""Read one `none` store with chronozarr and with zarr-python directly, side by side.

    python bench/read.py            # 24 x 4 x 2765 x 2759 uint16, built once into bench/work/
    python bench/read.py --small    # 6 x 4 x 1100 x 1000

Operations, each on local disk and through chronozarr's own static server on 127.0.0.1 with
50 ms of latency injected per request (both tools talk to the same server):
  frame    a whole level-0 timestep (every cell)
  cell     one level-0 chunk
  history  one pixel's values at every timestep
  level3   a whole level-3 timestep
zarr-python opens `0/data` (or `3/data`) with zarr.open_array, over HTTP through FsspecStore.
Each figure is the median of several runs on different timesteps/pixels; requests are counted
at the server. Results go to bench/results/read.json with the machine and date.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

FULL = (24, 4, 2765, 2759)
SMALL = (6, 4, 1100, 1000)
LATENCY = 0.05
WORK = Path(__file__).resolve().parent / "work"


def build_store(shape: tuple[int, int, int, int], path: Path) -> None:
    """Encode the synthetic series (encoding none, zstd 5, 512 px, unsharded) once."""
    import dask
    import dask.array as da
    import xarray as xr

    import chronozarr

    if (path / "zarr.json").exists():
        return
    n_time, n_band, height, width = shape
    planes = list(_common.iter_timesteps(n_time, n_band, height, width))
    lazy = da.stack([da.from_delayed(dask.delayed(lambda p: p)(p), p.shape, p.dtype) for p in planes])
    array = xr.DataArray(lazy, dims=("time", "band", "y", "x"), coords=_common.coords(*shape))
    print(f"building {path} ...", flush=True)
    chronozarr.encode(array, path, crs="EPSG:32631", encoding="none", progress=False)


def timed(run: Callable[[int], Any], reps: int) -> float:
    """Median seconds of run(i) over reps calls (i picks a different timestep or pixel)."""
    run(reps)  # warm-up: imports, connection pools
    times = []
    for i in range(reps):
        started = time.perf_counter()
        run(i)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def operations(shape: tuple[int, int, int, int], level3: int) -> dict[str, Callable[[Any, int], Any]]:
    """The four reads, each as (reader, i) -> values, for either tool's reader object."""
    n_time, _, height, width = shape
    return {
        "frame": lambda r, i: r.frame(i % n_time),
        "cell": lambda r, i: r.cell(i % n_time),
        "history": lambda r, i: r.history((37 * i) % height, (53 * i) % width),
        "level3": lambda r, i: r.level3(i % n_time),
    }


class ChronozarrReads:
    def __init__(self, location: str, level3: int) -> None:
        import chronozarr

        self.store = chronozarr.open_store(location)
        self.coarse_level = level3

    def frame(self, t: int) -> np.ndarray:
        return self.store.read(t)

    def cell(self, t: int) -> np.ndarray:
        return self.store.read_cell(t, 1, 1)

    def history(self, row: int, col: int) -> np.ndarray:
        return self.store.read_point(row, col)

    def level3(self, t: int) -> np.ndarray:
        return self.store.read(t, lod=self.coarse_level)


class ZarrReads:
    def __init__(self, location: str, level3: int) -> None:
        import zarr

        if location.startswith("http"):
            from zarr.storage import FsspecStore

            store = FsspecStore.from_url(location, read_only=True)
        else:
            store = zarr.storage.LocalStore(location, read_only=True)
        self.data = zarr.open_array(store=store, path="0/data", mode="r", zarr_format=3)
        self.coarse = zarr.open_array(store=store, path=f"{level3}/data", mode="r", zarr_format=3)
        self.cs = self.data.chunks[2]

    def frame(self, t: int) -> np.ndarray:
        return self.data[t]

    def cell(self, t: int) -> np.ndarray:
        cs = self.cs
        return self.data[t, :, cs : 2 * cs, cs : 2 * cs]

    def history(self, row: int, col: int) -> np.ndarray:
        return self.data[:, :, row, col]

    def level3(self, t: int) -> np.ndarray:
        return self.coarse[t]


def measure(tool: type, location: str, shape: tuple[int, int, int, int], level3: int, reps: int, server: Any | None) -> dict[str, Any]:
    """Median time and requests per operation for one tool at one location."""
    out: dict[str, Any] = {}
    if server is not None:
        server.clear_log()
    started = time.perf_counter()
    reader = tool(location, level3)
    out["open"] = {"seconds": round(time.perf_counter() - started, 4)}
    if server is not None:
        out["open"]["requests"] = len(server.requests)
    for name, op in operations(shape, level3).items():
        seconds = timed(lambda i: op(reader, i), reps)
        entry: dict[str, Any] = {"seconds": round(seconds, 4)}
        if server is not None:
            server.clear_log()
            op(reader, reps + 1)
            entry["requests"] = len(server.requests)
        out[name] = entry
    return out


def check_equal(shape: tuple[int, int, int, int], path: Path, level3: int) -> None:
    """Both tools must return the same values before their speed means anything."""
    a, b = ChronozarrReads(str(path), level3), ZarrReads(str(path), level3)
    for name, op in operations(shape, level3).items():
        if not np.array_equal(op(a, 3), op(b, 3)):
            raise SystemExit(f"chronozarr and zarr-python disagree on {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "read.json")
    args = parser.parse_args()
    from chronozarr.serve import StoreServer

    shape = SMALL if args.small else FULL
    path = WORK / f"read-{'x'.join(map(str, shape))}.zarr"
    build_store(shape, path)
    import chronozarr

    with chronozarr.open_store(path) as store:
        level3 = min(3, len(store.levels) - 1)
    check_equal(shape, path, level3)
    results: dict[str, Any] = {"shape": list(shape), "level3": level3, "latency_s": LATENCY, "reps": args.reps}
    results["local"] = {
        "zarr-python": measure(ZarrReads, str(path), shape, level3, args.reps, None),
        "chronozarr": measure(ChronozarrReads, str(path), shape, level3, args.reps, None),
    }
    with StoreServer(path.parent, latency=LATENCY) as server:
        url = f"{server.url}/{path.name}"
        results["http"] = {
            "zarr-python": measure(ZarrReads, url, shape, level3, args.reps, server),
            "chronozarr": measure(ChronozarrReads, url, shape, level3, args.reps, server),
        }
    targets = {"frame": (0.8, 0.9), "history": (0.8, 0.9), "cell": (1.1, 1.1), "level3": (None, None)}
    lines = [f"{'where':6} {'op':8} {'zarr-python':>12} {'chronozarr':>11} {'ratio':>6} {'target':>7} {'requests z/c':>13}"]
    for where, index in (("local", 0), ("http", 1)):
        z, c = results[where]["zarr-python"], results[where]["chronozarr"]
        results[where]["ratios"] = {}
        for op in ("open", "frame", "cell", "history", "level3"):
            ratio = c[op]["seconds"] / z[op]["seconds"] if z[op]["seconds"] else float("nan")
            target = targets.get(op, (None, None))[index]
            results[where]["ratios"][op] = {"ratio": round(ratio, 3), "target": target, "pass": None if target is None else ratio <= target}
            reqs = f"{z[op].get('requests', '-')}/{c[op].get('requests', '-')}"
            lines.append(
                f"{where:6} {op:8} {z[op]['seconds'] * 1000:10.1f}ms {c[op]['seconds'] * 1000:9.1f}ms {ratio:6.2f} "
                f"{'' if target is None else f'<= {target}':>7} {reqs:>13}"
            )
    results["machine"] = _common.machine()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))
    print("\n".join(lines))
    print(f"results: {args.output}")


if __name__ == "__main__":
    main()
