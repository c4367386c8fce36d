"""Read one `none` store with chronozarr and with what a user would use instead, side by side.

    python bench/read.py            # 24 x 4 x 2765 x 2759 uint16, built once into bench/work/
    python bench/read.py --small    # 6 x 4 x 1100 x 1000
    python bench/read.py --small --reps 3 --no-http

Readers (bench/read_tools.py), on local disk and through chronozarr's own static server on
127.0.0.1 with 50 ms of latency per request (all talk to the same server):
  chronozarr         chronozarr.open_dataset and its reads
  zarr-python        zarr.open_array on 0/data (and the level-3 data), default codec pipeline;
                     over HTTP through FsspecStore
  zarr-python+zarrs  the same with codec_pipeline.path = zarrs.ZarrsCodecPipeline (PyPI zarrs)
  rasterio           the COGs `chronozarr export-cog` writes from the same store, one per date
Operations: open, frame (a whole level-0 timestep), cell (one level-0 chunk), history (one
pixel at every timestep), level3 (a whole level-3 timestep). Every reader returns the same values
(checked first; the COG overviews are GDAL's averages, so level3 is compared between Zarr readers
only). Each operation gets a fresh reader (untimed), one warm-up, then --reps timed runs on
other timesteps or pixels; requests and bytes are counted at the server on one more run.
A dask mean over time of the whole level 0 (xarray, one chunk per dask chunk) is timed through
the chronozarr engine and through xr.open_zarr on the same store, alternating, on local disk.
Before every timed run (each tool's, each floor's) the files it reads are read once, untimed:
every tool starts from a warm page cache. Floors, per operation and run: the same chunks read (or
fetched, 16 at a time) and decoded on every core; the same chunks decoded from memory; the COG tiles decoded from memory.
Results: bench/results/read.json, format of bench/record.py.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import record  # noqa: E402
import read_tools as rt  # noqa: E402

FULL = (24, 4, 2765, 2759)
SMALL = (6, 4, 1100, 1000)
LATENCY = 0.05
WORK = Path(__file__).resolve().parent / "work"
OPS = ("frame", "cell", "history", "level3")
TOOLS: dict[str, tuple[type, str]] = {
    "chronozarr": (rt.ChronozarrReads, "chronozarr.open_dataset, then read / read_cell / read_point"),
    "zarr-python": (rt.ZarrReads, "zarr.open_array of 0/data and the level-3 data, default codec pipeline"),
    "zarr-python+zarrs": (rt.ZarrsReads, "the same arrays with codec_pipeline.path zarrs.ZarrsCodecPipeline"),
    "rasterio": (rt.RasterioReads, "rasterio on `chronozarr export-cog` of the store: one COG per date (DEFLATE, predictor 2, 512 px tiles, overviews 2/4/8), all dates opened"),
}


def build(shape: tuple[int, int, int, int]) -> tuple[Path, Path]:
    """The store (encoding none, zstd 5, 512 px, unsharded) and its COG export, made once."""
    import dask
    import dask.array as da
    import xarray as xr

    import chronozarr

    path = WORK / f"read-{'x'.join(map(str, shape))}.zarr"
    cogs = path.with_name(path.stem + "-cogs")
    if not (path / "zarr.json").exists():
        planes = list(_common.iter_timesteps(*shape))
        lazy = da.stack([da.from_delayed(dask.delayed(lambda p: p)(p), p.shape, p.dtype) for p in planes])
        array = xr.DataArray(lazy, dims=("time", "band", "y", "x"), coords=_common.coords(*shape))
        print(f"building {path} ...", flush=True)
        chronozarr.encode(array, path, crs="EPSG:32631", encoding="none", progress=False)
    if not cogs.is_dir() or len(list(cogs.glob("*.tif"))) != shape[0]:
        print(f"exporting COGs to {cogs} ...", flush=True)
        chronozarr.export_cog(path, cogs, level=0, overwrite=True, progress=False)
    return path, cogs


class Context:
    """What the operations and floors of one run need to know about the store and its export."""

    def __init__(self, shape: tuple[int, int, int, int], path: Path, cogs: Path) -> None:
        import chronozarr

        with chronozarr.open_dataset(path) as store:
            self.level3 = min(3, len(store.levels) - 1)
            self.grids = {k: tuple(lvl.grid) for k, lvl in enumerate(store.levels)}
            self.cs = store.levels[0].chunk_size
        self.shape, self.path, self.cogs = shape, path, cogs
        self.files = sorted(p.name for p in cogs.glob("*.tif"))
        rt.RasterioReads.files = self.files

    def location(self, name: str, base: str) -> str:
        """Where reader `name` finds the series under `base` (the work dir or the server's URL)."""
        return f"{base}/{(self.cogs if name == 'rasterio' else self.path).name}"

    def call(self, op: str, reader: Any, i: int) -> np.ndarray:
        n_time, _, height, width = self.shape
        if op == "history":
            return reader.history(*rt.history_pixel(i, height, width, self.cs))
        return getattr(reader, op)(i % n_time)

    def label(self, op: str) -> str:
        rows, cols = self.grids[0]
        r3, c3 = self.grids[self.level3]
        return {"open": "open the series", "frame": f"level-0 frame ({rows * cols} chunks)", "cell": "one level-0 chunk",
                "history": f"pixel history ({self.shape[0]} dates)", "level3": f"level-{self.level3} frame ({r3 * c3} chunks)"}[op]


def timed(run: Callable[[int], Any], indices: range, before: Callable[[int], Any] | None = None) -> list[float]:
    """Seconds of run(i) for each i; before(i), if given, runs first and untimed."""
    out = []
    for i in indices:
        if before is not None:
            before(i)
        started = time.perf_counter()
        run(i)
        out.append(time.perf_counter() - started)
    return out


def run_files(ctx: Context, op: str, i: int) -> tuple[list[str], list[tuple[str, int, int]]]:
    """What run i of `op` reads: the store's chunk keys and the COG tiles (file, offset, size)."""
    keys = rt.store_keys(op, i, ctx.shape, ctx.grids, ctx.cs, ctx.level3)
    return keys, rt.cog_tiles(op, i, ctx.shape, ctx.files, ctx.cogs, ctx.cs, ctx.level3)


def warm_files(ctx: Context, keys: list[str], tiles: list[tuple[str, int, int]]) -> None:
    """Read, untimed, the store chunks and COG tiles a run is about to read, so every reader and
    floor starts from a warm page cache. Some kernels evict idle page cache within seconds (DAMON
    pageout on the 2026-12-03 machine: a level-0 frame read 4 s after the last one took 300 ms,
    against 55 ms with its files cached), and then whichever tool reads a file first pays the disk
    for the others (js/bench/page-cache.mjs does the same for the browser benchmarks)."""
    for key in keys:
        (ctx.path / key).read_bytes()
    for name, offset, size in tiles:
        _read_range(ctx.cogs / name, offset, size)


def warm(ctx: Context, op: str, i: int) -> None:
    """warm_files() for run i of `op`; for "open", the store's metadata and the COG headers."""
    if op != "open":
        warm_files(ctx, *run_files(ctx, op, i))
        return
    for doc in [ctx.path / "zarr.json", *ctx.path.glob("*/zarr.json"), *ctx.path.glob("*/*/zarr.json")]:
        doc.read_bytes()
    warm_files(ctx, [], [(name, 0, 1 << 16) for name in ctx.files])


def served(server: Any | None, run: Callable[[], Any]) -> dict[str, Any]:
    """Requests and bytes the server answered during run() (nothing without a server)."""
    if server is None:
        run()
        return {}
    server.clear_log()
    run()
    log = server.requests
    return {"requests": record.single(len(log), 0), "bytes": record.single(sum(r.bytes_sent for r in log), 0)}


def measure(name: str, location: str, ctx: Context, reps: int, server: Any | None) -> dict[str, dict[str, Any]]:
    """Per operation: the seconds of each timed run, and requests and bytes of one more run."""
    tool = TOOLS[name][0]
    opened: list[Any] = []
    seconds = timed(lambda i: opened.append(tool(location, ctx.level3)), range(reps), lambda i: warm(ctx, "open", i))
    for reader in opened:
        reader.close()
    out = {"open": {"seconds": record.stats(seconds), **served(server, lambda: tool(location, ctx.level3).close())}}
    for op in OPS:
        reader = tool(location, ctx.level3)
        ctx.call(op, reader, reps)  # warm-up: imports, connection pools, codecs
        seconds = timed(lambda i: ctx.call(op, reader, i), range(reps), lambda i: warm(ctx, op, i))
        out[op] = {"seconds": record.stats(seconds), **served(server, lambda: ctx.call(op, reader, reps + 1))}
        reader.close()
    print(f"  {name:18} " + "  ".join(f"{op} {out[op]['seconds']['median'] * 1000:.1f} ms" for op in out), flush=True)
    return out


def floors(ctx: Context, op: str, reps: int, base_url: str | None) -> list[tuple[str, str, dict[str, Any]]]:
    """The three floors of one operation: (tool, work, values)."""
    import urllib3

    n_band = ctx.shape[1]
    zstd = rt.zstd_decoder("<u2", ctx.cs, n_band)
    deflate = rt.deflate_decoder("<u2", ctx.cs, n_band)
    pool = urllib3.PoolManager(maxsize=rt.HTTP_IN_FLIGHT, block=True)
    io_runs, decode_runs, cog_runs = [], [], []
    for i in range(reps):
        keys, tiles = run_files(ctx, op, i)
        warm_files(ctx, keys, tiles)
        if base_url:
            getters = [functools.partial(lambda u: pool.request("GET", u).data, f"{base_url}/{ctx.path.name}/{k}") for k in keys]
            io_runs.append(timed(lambda _: rt.fetch_all(getters, zstd, rt.HTTP_IN_FLIGHT), range(1))[0])
        else:
            getters = [functools.partial((ctx.path / k).read_bytes) for k in keys]
            io_runs.append(timed(lambda _: rt.fetch_all(getters, zstd, rt.CORES), range(1))[0])
        blobs = [(ctx.path / k).read_bytes() for k in keys]
        decode_runs.append(timed(lambda _: rt.decode_all(blobs, zstd), range(1))[0])
        cog_blobs = [_read_range(ctx.cogs / name, offset, size) for name, offset, size in tiles]
        cog_runs.append(timed(lambda _: rt.decode_all(cog_blobs, deflate), range(1))[0])
    # Requests and bytes of the run the readers are counted on (reps + 1), for a like-for-like column.
    counted, counted_tiles = run_files(ctx, op, reps + 1)
    store_count = {"requests": record.single(len(counted), 0), "bytes": record.single(sum((ctx.path / k).stat().st_size for k in counted), 0)}
    cog_count = {"requests": record.single(len(counted_tiles), 0), "bytes": record.single(sum(size for _, _, size in counted_tiles), 0)}
    how = f"fetched {rt.HTTP_IN_FLIGHT} at a time" if base_url else "read from disk"
    return [
        ("store chunks, I/O + decode", f"the {len(keys)} chunks {how} and zstd-decoded on {rt.CORES} threads, nothing else",
         {"seconds": record.stats(io_runs), **store_count}),
        ("store chunks, decode only", f"the same {len(keys)} chunks zstd-decoded from memory on {rt.CORES} threads",
         {"seconds": record.stats(decode_runs), **store_count}),
        ("COG tiles, decode only", f"the {len(tiles)} COG tiles rasterio needs, DEFLATE + predictor decoded from memory on {rt.CORES} threads",
         {"seconds": record.stats(cog_runs), **cog_count}),
    ]


def _read_range(path: Path, offset: int, size: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)


PROBE = """
import sys, zarr
from zarr.storage import FsspecStore
with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"}):
    a = zarr.open_array(store=FsspecStore.from_url(sys.argv[1], read_only=True), path="0/data", mode="r", zarr_format=3)
c = a.chunks[2]
a[0, :, c : 2 * c, c : 2 * c]  # a whole chunk, as the cell operation reads
"""


def works_over_http(url: str, seconds: float = 30) -> str | None:
    """None when zarrs reads one chunk over HTTP within `seconds`, else what happened (run in a
    process of its own: a hung read holds the GIL and cannot be abandoned in this one)."""
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, url], capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return f"reading one chunk over HTTP did not return within {seconds:.0f} s (the server saw connections but no request)"
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["failed"])[-1]


def check_equal(ctx: Context, base: str, names: list[str]) -> None:
    """Every reader must return the same values before its speed means anything."""
    readers = {name: TOOLS[name][0](ctx.location(name, base), ctx.level3) for name in names}
    for op in OPS:
        results = {name: ctx.call(op, r, 3) for name, r in readers.items() if not (op == "level3" and name == "rasterio")}
        for name, values in results.items():
            if not np.array_equal(values, results["chronozarr"]):
                raise SystemExit(f"{name} and chronozarr disagree on {op} under {base}")
    for r in readers.values():
        r.close()


def rows_for(group: str, ctx: Context, results: dict[str, dict[str, Any]], floor_rows: dict[str, list[Any]]) -> list[dict[str, Any]]:
    rows = []
    for op in ("open", *OPS):
        for name, measured in results.items():
            kind = "subject" if name == "chronozarr" else "peer"
            work = TOOLS[name][1] + ("; level 3 is GDAL's own average overview" if name == "rasterio" and op == "level3" else "")
            rows.append(record.row(group, ctx.label(op), name, kind, work, measured[op]))
        for i, (tool, work, values) in enumerate(floor_rows.get(op, [])):
            rows.append(record.row(group, ctx.label(op), tool, "floor", work, values, target=i == 0))
    return rows


METRICS = [record.metric("seconds", "time", "s", primary=True), record.metric("requests", "requests", "count"), record.metric("bytes", "bytes", "B")]


def dask_means(ctx: Context, reps: int) -> list[dict[str, Any]]:
    """The dask mean over time through each engine, runs alternating; values checked equal first."""
    first = {name: rt.dask_mean(name, ctx.path) for name in rt.DASK_MEAN_TOOLS}
    if not np.array_equal(first["chronozarr"], first["xr.open_zarr"]):
        raise SystemExit("the chronozarr engine and xr.open_zarr disagree on the mean over time")
    seconds: dict[str, list[float]] = {name: [] for name in rt.DASK_MEAN_TOOLS}
    for _ in range(reps):
        for name in rt.DASK_MEAN_TOOLS:
            seconds[name] += timed(lambda _: rt.dask_mean(name, ctx.path), range(1), lambda _: _warm_level0(ctx))
    print("  dask mean: " + "  ".join(f"{n} {statistics.median(s):.2f} s" for n, s in seconds.items()), flush=True)
    op = f"dask mean over time ({ctx.shape[0]} dates, xarray)"
    return [record.row("local disk", op, name, "subject" if name == "chronozarr" else "peer", work, {"seconds": record.stats(seconds[name])})
            for name, work in rt.DASK_MEAN_TOOLS.items()]


def _warm_level0(ctx: Context) -> None:
    """Every level-0 chunk file read once, untimed, before a dask mean (see warm_files())."""
    warm_files(ctx, [k for t in range(ctx.shape[0]) for k in rt.store_keys("frame", t, ctx.shape, ctx.grids, ctx.cs, ctx.level3)], [])


def profile_misses(rows: list[dict[str, Any]], ctx: Context, base: str, reps: int) -> None:
    """For each operation where chronozarr misses a target, where its time goes: the operation
    run `reps` times on a fresh reader under the all-thread sampler (bench/profiling.py)."""
    from profiling import Sampler
    from report import verdicts

    labels = {ctx.label(op): op for op in ("open", *OPS)}
    for verdict in verdicts({"metrics": METRICS, "rows": rows}):
        if not verdict["misses"]:
            continue
        op = labels[verdict["op"]]
        location = ctx.location("chronozarr", base)
        with Sampler() as sampler:
            if op == "open":
                for _ in range(reps):
                    rt.ChronozarrReads(location, ctx.level3).close()
            else:
                reader = rt.ChronozarrReads(location, ctx.level3)
                for i in range(reps):
                    ctx.call(op, reader, i)
                reader.close()
        verdict["subject"]["profile"] = sampler.summary()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help=f"the {' x '.join(map(str, SMALL))} series")
    parser.add_argument("--reps", type=int, default=5, help="timed runs per operation (default 5)")
    parser.add_argument("--no-http", action="store_true", help="local disk only")
    parser.add_argument("--output", type=Path, default=record.RESULTS / "read.json")
    args = parser.parse_args()
    from served import ServedDir

    shape = SMALL if args.small else FULL
    if args.reps + 2 > shape[0]:
        parser.error(f"--reps {args.reps}: at most {shape[0] - 2} on {shape[0]} dates (each run reads a timestep no earlier run read)")
    path, cogs = build(shape)
    ctx = Context(shape, path, cogs)
    machine = _common.machine()
    check_equal(ctx, str(WORK), list(TOOLS))
    rows: list[dict[str, Any]] = []
    notes: dict[str, str] = {}
    print("local disk", flush=True)
    local = {name: measure(name, ctx.location(name, str(WORK)), ctx, args.reps, None) for name in TOOLS}
    rows += rows_for("local disk", ctx, local, {op: floors(ctx, op, args.reps, None) for op in OPS})
    profile_misses(rows, ctx, str(WORK), args.reps)
    rows += dask_means(ctx, min(args.reps, 3))
    if not args.no_http:
        with ServedDir(WORK, latency=LATENCY) as server:
            base = server.url
            failed = works_over_http(ctx.location("zarr-python+zarrs", base))
            names = [n for n in TOOLS if not (failed and n == "zarr-python+zarrs")]
            if failed:
                notes["zarr-python+zarrs over HTTP"] = f"not measured: {failed}"
                print(f"  zarrs over HTTP: {failed}", flush=True)
            check_equal(ctx, base, names)
            print(f"HTTP, {LATENCY * 1000:.0f} ms per request", flush=True)
            remote = {name: measure(name, ctx.location(name, base), ctx, args.reps, server) for name in names}
            remote_rows = rows_for(f"HTTP on 127.0.0.1, {LATENCY * 1000:.0f} ms per request", ctx, remote, {op: floors(ctx, op, args.reps, base) for op in OPS})
            profile_misses(remote_rows, ctx, base, args.reps)
            rows += remote_rows
    pipelines = {name: TOOLS[name][0](str(path), ctx.level3).pipeline_class for name in ("zarr-python", "zarr-python+zarrs")}
    doc = record.document(
        "read", "Python reads: one store, four readers, local disk and HTTP",
        machine=machine, date=_common.now_utc(),
        setup={
            "store": f"{' x '.join(map(str, shape))} uint16, encoding none, zstd 5, 512 px chunks, unsharded ({path.name}); COGs from `chronozarr export-cog --level 0`",
            "runs": f"{args.reps} timed runs per operation on other timesteps or pixels, after one warm-up, each operation on a fresh reader; "
                    "before each timed run the files it reads are read once, untimed (a warm page cache for every tool)",
            "http": f"chronozarr's static server (its own process) on 127.0.0.1, {LATENCY * 1000:.0f} ms slept before every response; requests and bytes counted there",
            "codec pipelines": ", ".join(f"{k}: {v}" for k, v in pipelines.items()),
            "values": "every reader returns identical values (checked before timing)",
            **notes,
        },
        metrics=METRICS,
        rows=rows,
        packages=("zarr", "zarrs", "numcodecs", "rasterio", "fsspec", "aiohttp"),
    )
    out = record.write(doc, args.output)
    from report import text_table

    print("\n" + text_table(doc))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
