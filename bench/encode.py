"""Encode one synthetic series with chronozarr and with the tools a user would pick instead.

    python bench/encode.py            # 24 x 4 x 2765 x 2759 uint16, plus chronozarr at 2x dates
    python bench/encode.py --small    # 6 x 4 x 1100 x 1000, quick
    python bench/encode.py --dates 12 --no-double --repeats 3 --tools chronozarr,ndpyramid
    python bench/encode.py --small --profile   # also a sampling profile of chronozarr

The series (bench/_common.py) is generated once, in a helper process, into an uncompressed Zarr
v3 source in the work dir: array "data" (time, band, y, x) uint16, one timestep per chunk, with
xarray's coords (with the doubling check, a second source with twice the dates). Each tool then
runs in a fresh subprocess that opens the source lazily, as a user with years of imagery would
(`xr.open_zarr(source, consolidated=False)["data"]`: dask, one timestep per chunk), and writes
it with zstd 5 and 512 px tiles (bench/encode_tools.py):

  chronozarr  chronozarr.encode: full pyramid, auto encoding, volatility, defaults, unsharded
  to_zarr     xarray's to_zarr of level 0 alone (Zarr v3, chunks (1, 4, 512, 512))
  ndpyramid   ndpyramid.pyramid_coarsen to the same levels, then DataTree.to_zarr
  cog         one COG per date through rio-cogeo (zstd 5, 512 px tiles, average overviews)
  floor       zstd 5 of every chunk chronozarr wrote, alone, on a thread pool over all cores

Only the write is timed. Runs alternate between the tools (--repeats each, default 2); os.sync()
runs before every child. Memory is the child's peak RSS (VmHWM, its own), cross-checked by a 5 ms
sampler. CPU is user + system of the child. Bytes are what the tool left on disk. Results go to
bench/results/encode.json (or --output) in the format of bench/record.py.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import encode_tools  # noqa: E402
import record  # noqa: E402

FULL = (24, 4, 2765, 2759)
SMALL = (6, 4, 1100, 1000)
TOOLS = ("to_zarr", "chronozarr", "ndpyramid", "cog")
FLOOR_BATCH_BYTES = 256 * 2**20
WORK = {
    "chronozarr": "full pyramid ({levels} levels), auto encoding ({encoding}), volatility; zstd 5, 512 px chunks",
    "to_zarr": "level 0 only; zstd 5, chunks (1, 4, 512, 512)",
    "ndpyramid": "pyramid_coarsen to the same {levels} levels (block means, boundary pad, back to uint16, one timestep per dask chunk), DataTree.to_zarr; zstd 5, 512 px chunks",
    "cog": "one COG per date with {levels_minus_1} average overviews (rio-cogeo, zstd 5, 512 px tiles)",
    "floor": "zstd 5 of every chunk chronozarr wrote ({chunks} chunks), nothing else, on {cores} threads",
}


# ---------------------------------------------------------------- child side: one tool, one process


def _cpu_seconds() -> float:
    """User plus system CPU time of this process, all threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def make_sources(args: argparse.Namespace) -> None:
    """Child mode: write the source stores (path=dates,...) so the parent stays small."""
    n_band, height, width = (int(v) for v in args.make_sources.split(","))
    stores = {Path(item.rsplit("=", 1)[0]): int(item.rsplit("=", 1)[1]) for item in args.source.split(",")}
    seconds = _common.write_sources(stores, n_band, height, width, seed=args.seed)
    Path(args.result).write_text(json.dumps({"seconds": seconds, "peak_rss": _common.peak_rss_bytes()}))


def child(args: argparse.Namespace) -> None:
    import warnings

    import xarray as xr

    import chronozarr  # noqa: F401  (every child imports the same libraries before "before")
    import zarr  # noqa: F401

    from profiling import Sampler

    # ndpyramid's means go back to uint16 without a fill value (there is no NaN to fill);
    # rio-cogeo notes that zstd COGs need a recent libtiff (GDAL 3.12 has one).
    warnings.filterwarnings("ignore", message=".*floating point data as an integer dtype")
    warnings.filterwarnings("ignore", message="Non-standard compression schema")
    da = xr.open_zarr(args.source, consolidated=False)["data"]
    gc.collect()
    before = _common.rss_bytes()
    writer = encode_tools.WRITERS[args.child]
    sampler = _common.PeakSampler(interval=0.005)
    profile = Sampler() if args.profile else None
    with sampler, profile or contextlib.nullcontext():
        cpu0, t0 = _cpu_seconds(), time.perf_counter()
        extra = writer(da, Path(args.out))
        seconds, cpu = time.perf_counter() - t0, _cpu_seconds() - cpu0
    result = {
        "tool": args.child,
        "shape": [int(s) for s in da.shape],
        "input_bytes": int(da.nbytes),
        "rss_before_write": before,
        "sampled_peak_rss": sampler.peak,
        "process_peak_rss": _common.peak_rss_bytes(),
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        **extra,
    }
    if profile:
        result["profile"] = profile.summary()
    Path(args.result).write_text(json.dumps(result))


# ---------------------------------------------------------------- parent side: runs, floor, rows


def compression_floor(store: Path, level: int = encode_tools.LEVEL) -> dict[str, Any]:
    """zstd of every chunk object the store holds, alone, on a pool of one thread per core.

    Chunks are decompressed (not timed) in batches of about FLOOR_BATCH_BYTES of raw data and
    each batch compressed again on the pool (timed: wall and this process's CPU). numcodecs
    releases the GIL, so the pool runs on every core: no writer of the store can go below it.
    """
    import numcodecs

    codec = numcodecs.Zstd(level=level)
    cores = os.cpu_count() or 1
    chunks = [p for p in sorted(store.rglob("*")) if p.is_file() and "c" in p.relative_to(store).parts]
    wall = cpu = 0.0
    written = 0
    with ThreadPoolExecutor(max_workers=cores) as pool:
        batch: list[bytes] = []
        size = 0
        for i, path in enumerate(chunks):
            raw = codec.decode(path.read_bytes())
            batch.append(raw)
            size += len(raw)
            if size < FLOOR_BATCH_BYTES and i + 1 < len(chunks):
                continue
            cpu0, t0 = time.process_time(), time.perf_counter()
            written += sum(len(b) for b in pool.map(codec.encode, batch))
            wall += time.perf_counter() - t0
            cpu += time.process_time() - cpu0
            batch, size = [], 0
    return {"chunks": len(chunks), "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "bytes": written, "cores": cores}


def run_tool(tool: str, source: Path, work: Path, tag: str, profile: bool = False, floor: bool = False) -> dict[str, Any]:
    out = work / f"{tool}-{tag}.out"
    result_file = work / f"{tool}-{tag}.json"
    os.sync()  # start every run with no dirty pages left over from the previous one
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", tool, "--source", str(source), "--out", str(out), "--result", str(result_file)]
    if profile:
        cmd.append("--profile")
    print(f"  running {tool} ({tag}) on {source.name} ...", flush=True)
    subprocess.run(cmd, check=True)
    result = json.loads(result_file.read_text())
    files, apparent, allocated = _common.tree_bytes(out)
    result.update(run=tag, files=files, disk_bytes=apparent, disk_allocated_bytes=allocated)
    print(f"    {result['seconds']:.1f} s, CPU {result['cpu_seconds']:.1f} s, peak RSS {_mb(result['process_peak_rss'])}, {_mb(apparent)} on disk", flush=True)
    if floor:
        result["floor"] = compression_floor(out)
        print(f"    zstd of its {result['floor']['chunks']} chunks alone: {result['floor']['seconds']:.1f} s wall, {result['floor']['cpu_seconds']:.1f} s CPU", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    return result


def _mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB"


def tool_row(tool: str, runs: list[dict[str, Any]], op: str) -> dict[str, Any]:
    """The results row of one tool: medians and spreads over its runs."""
    first = runs[0]
    work = WORK[tool].format(levels=first.get("levels"), encoding=first.get("encoding"), levels_minus_1=(first.get("levels") or 1) - 1)
    values = {
        "seconds": record.stats([r["seconds"] for r in runs], 3),
        "cpu_seconds": record.stats([r["cpu_seconds"] for r in runs], 3),
        "peak_rss": record.stats([r["process_peak_rss"] for r in runs], 0),
        "bytes": record.stats([r["disk_bytes"] for r in runs], 0),
    }
    kind = "subject" if tool == "chronozarr" else "peer"
    extra = {k: first[k] for k in ("levels", "encoding", "selection_ratio", "objects", "files") if k in first}
    return record.row("encode", op, tool, kind, work, values, same_work=tool != "to_zarr", facts=extra)


def floor_row(floors: list[dict[str, Any]], op: str) -> dict[str, Any]:
    """The floor measured after each chronozarr run, on what that run wrote."""
    values = {key: record.stats([f[key] for f in floors], 3 if key.endswith("seconds") else 0) for key in ("seconds", "cpu_seconds", "bytes")}
    return record.row("encode", op, "zstd of the chunks", "floor", WORK["floor"].format(**floors[0]), values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help=f"quick run on {' x '.join(map(str, SMALL))}")
    parser.add_argument("--dates", type=int, help="number of dates (default 24, or 6 with --small)")
    parser.add_argument("--no-double", action="store_true", help="skip the chronozarr run with twice the dates")
    parser.add_argument("--repeats", type=int, default=2, help="runs per tool, alternating (default 2)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, from {','.join(TOOLS)} (default all)")
    parser.add_argument("--profile", action="store_true", help="also run chronozarr once under the sampling profiler")
    parser.add_argument("--seed", type=int, default=_common.SEED)
    parser.add_argument("--workdir", type=Path, help="where the work dir is created (default: the system temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work dir (source stores) at the end")
    parser.add_argument("--output", type=Path, default=record.RESULTS / "encode.json")
    # child mode
    parser.add_argument("--child", choices=TOOLS, help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    parser.add_argument("--make-sources", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_sources:
        return make_sources(args)
    if args.child:
        return child(args)
    tools = [t for t in args.tools.split(",") if t]
    unknown = set(tools) - set(TOOLS)
    if unknown or "chronozarr" not in tools:
        parser.error(f"--tools takes chronozarr and any of {', '.join(TOOLS)}; got {args.tools}")
    run(args, tools)


def _misses(doc: dict[str, Any]) -> bool:
    from report import verdicts

    return any(v["misses"] for v in verdicts(doc))


def results(args: argparse.Namespace, machine: dict[str, Any], op: str, generation: dict[str, Any],
            runs: dict[str, list[dict[str, Any]]], double: dict[str, Any] | None) -> dict[str, Any]:
    """The results document of one invocation."""
    rows = [tool_row(t, r, op) for t, r in runs.items()]
    rows.append(floor_row([r["floor"] for r in runs["chronozarr"]], op))
    if double is not None:
        rows.append(tool_row("chronozarr", [double], f"{double['shape'][0]} dates (memory scaling)"))
    return record.document(
        "encode", "Encode: a lazy series to a store (or files) on local disk",
        machine=machine, date=_common.now_utc(),
        setup={
            "series": f"{op}, seeded synthetic Sentinel-2-like reflectance (bench/_common.py), seed {args.seed}",
            "source": "uncompressed Zarr v3 read lazily: xr.open_zarr(source, consolidated=False)['data'] (dask, one timestep per chunk), page cache warm",
            "runs": f"{args.repeats} per tool, alternating; os.sync() before each; every tool in a fresh process",
            "memory": "peak RSS of the whole child process (VmHWM)",
            "generate_seconds": round(generation["seconds"], 1),
        },
        metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("cpu_seconds", "CPU", "s"),
                 record.metric("peak_rss", "peak RSS", "B"), record.metric("bytes", "bytes written", "B")],
        rows=rows,
        packages=("zarr", "xarray", "dask", "numcodecs", "ndpyramid", "rio-cogeo", "rasterio"),
        raw={"runs": runs, "double_dates": double},
    )


def run(args: argparse.Namespace, tools: list[str]) -> None:
    machine = _common.machine()
    shape = list(SMALL if args.small else FULL)
    if args.dates:
        shape[0] = args.dates
    n_time, n_band, height, width = shape
    op = f"{n_time} x {n_band} x {height} x {width} uint16"
    work = Path(tempfile.mkdtemp(prefix="chronozarr-bench-", dir=args.workdir))
    source = work / f"source-{n_time}.zarr"
    stores = {source: n_time}
    if not args.no_double:
        stores[work / f"source-{2 * n_time}.zarr"] = 2 * n_time
    print(f"series {op} ({_mb(2 * n_time * n_band * height * width)} raw); work dir {work}; load average {machine['load_average']}")
    try:
        generated = work / "sources.json"
        subprocess.run([
            sys.executable, str(Path(__file__).resolve()), "--make-sources", f"{n_band},{height},{width}",
            "--source", ",".join(f"{p}={n}" for p, n in stores.items()), "--seed", str(args.seed), "--result", str(generated),
        ], check=True)
        generation = json.loads(generated.read_text())
        runs: dict[str, list[dict[str, Any]]] = {t: [] for t in tools}
        for i in range(args.repeats):
            for tool in tools:
                runs[tool].append(run_tool(tool, source, work, f"{n_time}-run{i + 1}", floor=tool == "chronozarr"))
        double = run_tool("chronozarr", list(stores)[-1], work, f"{2 * n_time}") if len(stores) > 1 else None
        doc = results(args, machine, op, generation, runs, double)
        if args.profile or _misses(doc):
            # Where chronozarr's time goes, for the report to show next to the miss.
            profiled = run_tool("chronozarr", source, work, f"{n_time}-profile", profile=True)
            next(r for r in doc["rows"] if r["kind"] == "subject")["profile"] = profiled["profile"]
    finally:
        if args.keep:
            print(f"kept work dir {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    path = record.write(doc, args.output)
    from report import text_table

    print("\n" + text_table(doc))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
