"""Encode one synthetic series with chronozarr and with xarray's to_zarr, side by side.

    python bench/encode.py            # 24 x 4 x 2765 x 2759 uint16, plus chronozarr at 2x dates
    python bench/encode.py --small    # 6 x 4 x 1100 x 1000, quick
    python bench/encode.py --dates 12 --no-double --repeats 3
    python bench/encode.py --small --profile   # chronozarr hotspots (cProfile, single-threaded)

The series is generated once (in a helper process, so the parent stays small), timestep by
timestep, into an uncompressed Zarr v3 source store in the work dir: array "data" (time, band,
y, x) uint16, one timestep per chunk, with xarray's coords. With the doubling check the same pass
also writes a source with twice the dates, whose first dates are the same. The sources live for this invocation only (the work dir is removed unless --keep).

Each tool then runs in its own fresh subprocess that opens the source lazily, as a user with
years of imagery would: xr.open_zarr(source, consolidated=False)["data"] (dask, one timestep per
chunk), and writes it. Only the write is timed. The source is read from the page cache (it was
just written and caches are not dropped); os.sync() runs before every child. Memory is the whole
child process's peak RSS (VmHWM from /proc/self/status; ru_maxrss is also recorded but on Linux
it carries the parent's high-water mark through fork and exec), cross-checked by a 5 ms sampler
during the write; the RSS just before the write (interpreter, imports, the lazy array) is
reported too.

(a) chronozarr.encode: full pyramid, auto encoding selection, volatility, defaults
    (zstd 5, 512 px chunks, unsharded);
(b) xarray.Dataset.to_zarr of level 0 alone: Zarr v3, chunks (1, 4, 512, 512), zstd 5, no
    consolidated metadata (dask's default threaded scheduler).

Runs alternate to_zarr, chronozarr, to_zarr, chronozarr, ... (--repeats per tool, default 2) so
noise is visible; the table gives the median and min. Then one chronozarr run on the doubled
dates judges the memory scaling. Results go to bench/results/encode.json (or --output) with the
machine, load average at start and date.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

FULL = (24, 4, 2765, 2759)
SMALL = (6, 4, 1100, 1000)
CHUNK = 512
LEVEL = 5
CRS = "EPSG:32631"
GB = 1_000_000_000
TARGET_TIME_RATIO = 1.0
TARGET_PEAK_RSS = 1 * GB
TARGET_DOUBLING = 0.10


# ---------------------------------------------------------------- child side: one tool, one process


def _write_chronozarr(da: Any, out: Path, profile: bool) -> dict[str, Any]:
    import chronozarr

    if profile:
        return _profiled(lambda: chronozarr.encode(da, out, crs=CRS, progress=False))
    summary = chronozarr.encode(da, out, crs=CRS, progress=False)
    return {
        "levels": summary.levels,
        "encoding": summary.encoding,
        "selection_ratio": summary.selection_ratio,
        "objects": summary.objects,
    }


def _write_to_zarr(da: Any, out: Path, profile: bool) -> dict[str, Any]:
    import zarr

    ds = da.to_dataset(name="data")
    encoding = {"data": {"chunks": (1, da.shape[1], CHUNK, CHUNK), "compressors": [zarr.codecs.ZstdCodec(level=LEVEL)]}}
    ds.to_zarr(out, mode="w-", zarr_format=3, consolidated=False, encoding=encoding)
    return {}


class _InlineExecutor:
    """A stand-in for ThreadPoolExecutor running every job at submit, so cProfile sees all the work."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> "_InlineExecutor":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        from concurrent.futures import Future

        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # pragma: no cover - surfaced by future.result()
            future.set_exception(exc)
        return future

    def map(self, fn: Any, *iterables: Any) -> Any:
        return list(map(fn, *iterables))


def _profiled(run: Any) -> dict[str, Any]:
    """Run single-threaded under cProfile and return the top functions by own and cumulative time."""
    import cProfile
    import io
    import pstats

    from chronozarr.write import selection, timesteps

    timesteps.ThreadPoolExecutor = _InlineExecutor  # type: ignore[attr-defined,misc]
    selection.ThreadPoolExecutor = _InlineExecutor  # type: ignore[attr-defined,misc]
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    report: dict[str, Any] = {}
    for key in ("tottime", "cumulative"):
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).strip_dirs().sort_stats(key).print_stats(25)
        report[f"profile_{key}"] = buffer.getvalue()
    return report


def _cpu_seconds() -> float:
    """User plus system CPU time of this process, all threads: tells idle cores from busy ones."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def make_sources(args: argparse.Namespace) -> None:
    """Child mode: write the source stores (path=dates,...) so the parent stays small."""
    n_band, height, width = (int(v) for v in args.make_sources.split(","))
    stores = {Path(item.rsplit("=", 1)[0]): int(item.rsplit("=", 1)[1]) for item in args.source.split(",")}
    seconds = _common.write_sources(stores, n_band, height, width, seed=args.seed)
    Path(args.result).write_text(json.dumps({"seconds": seconds, "peak_rss": _common.peak_rss_bytes()}))


def child(args: argparse.Namespace) -> None:
    import xarray as xr

    if args.child == "chronozarr":
        import chronozarr  # noqa: F401  (imported before the "before" RSS, like to_zarr's zarr)
    else:
        import zarr  # noqa: F401
    if args.profile:
        import dask

        dask.config.set(scheduler="synchronous")  # reads in the profiled thread too
    da = xr.open_zarr(args.source, consolidated=False)["data"]
    gc.collect()
    before = _common.rss_bytes()
    writer = {"chronozarr": _write_chronozarr, "to_zarr": _write_to_zarr}[args.child]
    # cProfile in Python 3.12 sees every thread, so the sampler stays off while profiling.
    sampler = _common.PeakSampler(interval=None if args.profile else 0.005)
    with sampler:
        cpu0 = _cpu_seconds()
        t0 = time.perf_counter()
        extra = writer(da, Path(args.out), args.profile)
        seconds = time.perf_counter() - t0
        cpu = _cpu_seconds() - cpu0
    process_peak = _common.peak_rss_bytes()
    result = {
        "tool": args.child,
        "shape": [int(s) for s in da.shape],
        "input_bytes": int(da.nbytes),
        "source_chunks": [int(c[0]) for c in da.chunks] if da.chunks else None,
        "rss_before_write": before,
        "sampled_peak_rss": sampler.peak,
        "process_peak_rss": process_peak,
        "ru_maxrss": _common.max_rss_bytes(),
        "writer_rss": process_peak - before,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        **extra,
    }
    Path(args.result).write_text(json.dumps(result))


# ---------------------------------------------------------------- parent side: orchestration, report


def compression_seconds(store: Path) -> dict[str, Any]:
    """Single-threaded CPU time zstd 5 takes to compress every chunk object the store holds.

    Every chunk is decompressed and compressed again, timed alone: the work no writer of that
    store can avoid, whatever its overheads. Divided by the cores, it is a floor for wall time.
    """
    import numcodecs

    codec = numcodecs.Zstd(level=LEVEL)
    total, chunks = 0.0, 0
    for path in sorted(store.rglob("*")):
        if not path.is_file() or "c" not in path.relative_to(store).parts:
            continue
        raw = codec.decode(path.read_bytes())
        start = time.process_time()
        codec.encode(raw)
        total += time.process_time() - start
        chunks += 1
    cores = os.cpu_count() or 1
    return {"chunks": chunks, "cpu_seconds": round(total, 3), "wall_floor_seconds": round(total / cores, 3), "cores": cores}


def run_tool(
    tool: str, source: Path, work: Path, tag: str, profile: bool = False, floor: bool = False
) -> dict[str, Any]:
    out = work / f"{tool}-{tag}.zarr"
    result_file = work / f"{tool}-{tag}.json"
    os.sync()  # start every run with no dirty pages left over from the previous one
    cmd = [
        sys.executable, str(Path(__file__).resolve()), "--child", tool, "--source", str(source),
        "--out", str(out), "--result", str(result_file),
    ]
    if profile:
        cmd.append("--profile")
    print(f"  running {tool} ({tag}) on {source.name} ...", flush=True)
    subprocess.run(cmd, check=True)
    result = json.loads(result_file.read_text())
    files, apparent, allocated = _common.tree_bytes(out)
    result.update(run=tag, files=files, disk_bytes=apparent, disk_allocated_bytes=allocated)
    if tool == "to_zarr":
        _, data_bytes, _ = _common.tree_bytes(out / "data")
        result["data_bytes"] = data_bytes
        result["compressed_over_raw"] = round(data_bytes / result["input_bytes"], 4)
    print(
        f"    {result['seconds']:.1f} s, peak RSS {_mb(result['process_peak_rss'])} "
        f"(before write {_mb(result['rss_before_write'])}), {_mb(apparent)} on disk", flush=True
    )
    if floor:
        result["compression"] = compression_seconds(out)
        print(f"    compressing its {result['compression']['chunks']} chunks alone: {result['compression']['cpu_seconds']:.1f} s CPU", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    return result


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median / min / max of the per-run figures; sizes come from the first run (they are identical)."""
    out: dict[str, Any] = {"runs": len(runs)}
    for key in ("seconds", "cpu_seconds", "process_peak_rss", "sampled_peak_rss", "rss_before_write", "writer_rss"):
        values = [r[key] for r in runs]
        median = statistics.median(values)
        median = round(median, 3) if key.endswith("seconds") else int(median)
        out[key] = {"median": median, "min": min(values), "max": max(values), "all": values}
    first = runs[0]
    for key in ("files", "disk_bytes", "disk_allocated_bytes", "data_bytes", "compressed_over_raw",
                "input_bytes", "shape", "levels", "encoding", "selection_ratio", "objects"):
        if key in first:
            out[key] = first[key]
    out["sizes_identical_across_runs"] = len({(r["files"], r["disk_bytes"]) for r in runs}) == 1
    if "compression" in first:
        out["compression"] = first["compression"]
    return out


def _mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def _spread(values: list[float], fmt: Any) -> str:
    return " / ".join(fmt(v) for v in values)


def table(base: dict[str, Any], cz: dict[str, Any], double: dict[str, Any] | None) -> str:
    sec = lambda v: f"{v:.1f} s"  # noqa: E731
    n = base["runs"]
    rows = [
        (f"wall time, median of {n}", sec(base["seconds"]["median"]), sec(cz["seconds"]["median"]),
         _ratio(cz["seconds"]["median"], base["seconds"]["median"])),
        (f"wall time, min of {n}", sec(base["seconds"]["min"]), sec(cz["seconds"]["min"]),
         _ratio(cz["seconds"]["min"], base["seconds"]["min"])),
        ("wall time, each run", _spread(base["seconds"]["all"], sec), _spread(cz["seconds"]["all"], sec), ""),
        (f"CPU time (user + sys), median of {n}", sec(base["cpu_seconds"]["median"]), sec(cz["cpu_seconds"]["median"]),
         _ratio(cz["cpu_seconds"]["median"], base["cpu_seconds"]["median"])),
        (f"peak RSS, process, median of {n}", _mb(base["process_peak_rss"]["median"]), _mb(cz["process_peak_rss"]["median"]),
         _ratio(cz["process_peak_rss"]["median"], base["process_peak_rss"]["median"])),
        ("peak RSS, process, each run", _spread(base["process_peak_rss"]["all"], _mb), _spread(cz["process_peak_rss"]["all"], _mb), ""),
        ("RSS before write, median", _mb(base["rss_before_write"]["median"]), _mb(cz["rss_before_write"]["median"]), ""),
        ("bytes on disk", _mb(base["disk_bytes"]), _mb(cz["disk_bytes"]), _ratio(cz["disk_bytes"], base["disk_bytes"])),
        ("files", f"{base['files']:,}", f"{cz['files']:,}", _ratio(cz["files"], base["files"])),
        ("encoding", "-", str(cz.get("encoding")), ""),
    ]
    head = ("", "to_zarr (level 0)", "chronozarr (pyramid)", "chronozarr/to_zarr")
    if double is not None:
        d = double
        extra = [
            sec(d["seconds"]["median"]), "", "", sec(d["cpu_seconds"]["median"]), _mb(d["process_peak_rss"]["median"]), "",
            _mb(d["rss_before_write"]["median"]), _mb(d["disk_bytes"]), f"{d['files']:,}", str(d.get("encoding")),
        ]
        rows = [r + (e,) for r, e in zip(rows, extra)]
        head = head + (f"chronozarr, {d['shape'][0]} dates (1 run)",)
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in [head] + rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def targets(base: dict[str, Any], cz: dict[str, Any], double: dict[str, Any] | None) -> dict[str, Any]:
    t_cz, t_base = cz["seconds"]["median"], base["seconds"]["median"]
    rss = cz["process_peak_rss"]["median"]
    out: dict[str, Any] = {
        "time_ratio_le_1.0": {
            "value": round(t_cz / t_base, 3),
            "pass": t_cz <= TARGET_TIME_RATIO * t_base,
            "note": "median chronozarr / median to_zarr wall time",
            "min_over_min": round(cz["seconds"]["min"] / base["seconds"]["min"], 3),
        },
    }
    if "compression" in cz:
        floor = cz["compression"]["wall_floor_seconds"]
        out["time_ratio_le_1.0"]["compression_floor_ratio"] = round(floor / t_base, 3)
        out["time_ratio_le_1.0"]["floor_note"] = (
            "chronozarr's zstd work alone (every chunk it writes, compressed once, spread perfectly over "
            "all cores) over to_zarr's median wall time: no writer of this store can go below it"
        )
    out.update({
        "process_peak_rss_lt_1GB": {
            "value": rss,
            "pass": cz["process_peak_rss"]["max"] < TARGET_PEAK_RSS,
            "note": "whole chronozarr process peak (VmHWM), median of runs; pass needs every run below",
        },
    })
    if double is not None:
        change = double["process_peak_rss"]["median"] / rss - 1 if rss else float("inf")
        out["doubling_dates_peak_rss_within_10pct"] = {
            "value": round(change, 4),
            "pass": abs(change) <= TARGET_DOUBLING,
            "note": f"process peak RSS at {double['shape'][0]} dates vs median at {cz['shape'][0]} dates",
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true", help=f"quick run on {' x '.join(map(str, SMALL))}")
    parser.add_argument("--dates", type=int, help="number of dates (default 24, or 6 with --small)")
    parser.add_argument("--no-double", action="store_true", help="skip the chronozarr run with twice the dates")
    parser.add_argument("--repeats", type=int, default=2, help="runs per tool, alternating (default 2)")
    parser.add_argument("--profile", action="store_true", help="also profile chronozarr (single-threaded cProfile)")
    parser.add_argument("--seed", type=int, default=_common.SEED)
    parser.add_argument("--workdir", type=Path, help="where the work dir is created (default: the system temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work dir (source stores) at the end")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "encode.json")
    # child mode
    parser.add_argument("--child", choices=("chronozarr", "to_zarr"), help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    parser.add_argument("--make-sources", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_sources:
        make_sources(args)
        return
    if args.child:
        child(args)
        return

    machine = _common.machine()
    load_at_start = machine.pop("load_average")
    shape = list(SMALL if args.small else FULL)
    if args.dates:
        shape[0] = args.dates
    shape_t = tuple(shape)
    n_time, n_band, height, width = shape_t
    work = Path(tempfile.mkdtemp(prefix="chronozarr-bench-", dir=args.workdir))
    source = work / f"source-{n_time}.zarr"
    stores = {source: n_time}
    source_double = None
    if not args.no_double:
        source_double = work / f"source-{2 * n_time}.zarr"
        stores[source_double] = 2 * n_time
    print(
        f"series {' x '.join(map(str, shape_t))} uint16 ({_mb(2 * n_time * n_band * height * width)} raw); "
        f"work dir {work}; load average {load_at_start}"
    )
    try:
        print(f"  generating source stores {', '.join(f'{p.name}' for p in stores)} (not timed) ...", flush=True)
        # In a process of its own: the parent's RSS must stay small (children inherit its ru_maxrss).
        generated = work / "sources.json"
        subprocess.run([
            sys.executable, str(Path(__file__).resolve()), "--make-sources", f"{n_band},{height},{width}",
            "--source", ",".join(f"{p}={n}" for p, n in stores.items()), "--seed", str(args.seed),
            "--result", str(generated),
        ], check=True)
        generation = json.loads(generated.read_text())
        generate_seconds = generation["seconds"]
        source_bytes = {p.name: _common.tree_bytes(p)[1] for p in stores}
        print(f"    {generate_seconds:.1f} s, peak RSS {_mb(generation['peak_rss'])}, {', '.join(f'{k} {_mb(v)}' for k, v in source_bytes.items())}", flush=True)
        runs: dict[str, list[dict[str, Any]]] = {"to_zarr": [], "chronozarr": []}
        for i in range(args.repeats):
            for tool in ("to_zarr", "chronozarr"):
                runs[tool].append(run_tool(tool, source, work, f"{n_time}-run{i + 1}", floor=i == 0))
        double_run = run_tool("chronozarr", source_double, work, f"{2 * n_time}") if source_double else None
        profile = run_tool("chronozarr", source, work, f"{n_time}-profile", profile=True) if args.profile else None
    finally:
        if args.keep:
            print(f"kept work dir {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    base = summarise(runs["to_zarr"])
    cz = summarise(runs["chronozarr"])
    double = summarise([double_run]) if double_run else None
    print()
    print(table(base, cz, double))
    print()
    print(
        f"to_zarr level-0 compressed/raw: {base['compressed_over_raw']:.3f}  |  chronozarr chose "
        f"{cz.get('encoding')} (star-delta/plain sample {cz.get('selection_ratio')}), {cz.get('levels')} levels"
    )
    print(f"source generation (not timed): {generate_seconds:.1f} s; sources read lazily (dask, 1 timestep/chunk)")
    verdicts = targets(base, cz, double)
    for name, verdict in verdicts.items():
        floor = f" (compression floor alone: {verdict['compression_floor_ratio']})" if "compression_floor_ratio" in verdict else ""
        print(f"  {'PASS' if verdict['pass'] else 'FAIL'}  {name}: {verdict['value']}{floor}")
    if profile is not None:
        print("\nchronozarr profile (single-threaded), by own time:\n" + profile["profile_tottime"])
        print("by cumulative time:\n" + profile["profile_cumulative"])

    report = {
        "benchmark": "encode",
        "date": _common.now_utc(),
        "machine": {**machine, "load_average_at_start": load_at_start},  # 1, 5, 15 min
        "series": {"shape": list(shape_t), "dtype": "uint16", "seed": args.seed, "generator": "bench/_common.py"},
        "source": {
            "format": "zarr v3, array 'data' (time, band, y, x) + xarray coords, chunks (1, band, y, x), compressors=None",
            "read_as": "xr.open_zarr(source, consolidated=False)['data'] (dask, lazy)",
            "generate_seconds": round(generate_seconds, 3),
            "generate_peak_rss": generation["peak_rss"],
            "bytes": source_bytes,
        },
        "options": {"chunk": CHUNK, "codec": f"zstd {LEVEL}", "chronozarr": "defaults (auto, unsharded)",
                    "to_zarr": "zarr v3, chunks (1, 4, 512, 512), ZstdCodec(level=5), consolidated=False",
                    "repeats": args.repeats, "order": "to_zarr, chronozarr alternating; then chronozarr on doubled dates",
                    "between_runs": "os.sync(); page cache not dropped"},
        "to_zarr": base,
        "chronozarr": cz,
        "chronozarr_double_dates": double,
        "runs": {"to_zarr": runs["to_zarr"], "chronozarr": runs["chronozarr"], "chronozarr_double_dates": double_run},
        "ratios": {
            "seconds_median": round(cz["seconds"]["median"] / base["seconds"]["median"], 3),
            "seconds_min": round(cz["seconds"]["min"] / base["seconds"]["min"], 3),
            "process_peak_rss_median": round(cz["process_peak_rss"]["median"] / base["process_peak_rss"]["median"], 3),
            "disk_bytes": round(cz["disk_bytes"] / base["disk_bytes"], 3),
            "files": round(cz["files"] / base["files"], 3),
        },
        "targets": verdicts,
    }
    if profile is not None:
        report["chronozarr_profile"] = {k: v for k, v in profile.items() if k.startswith("profile_")}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    main()
