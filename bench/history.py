"""The history array (docs/history.md): a pixel's whole history over HTTP with and without it, what
it costs to store and to write, and encode's peak RSS with it at two areas.

    python bench/history.py            # the demo series: 120 dates x 4 bands x 768 x 1024, cells of 256
    python bench/history.py --small    # 24 dates x 96 x 128, quick

The demo series (chronozarr.demo, a smooth synthetic river scene) is written once to an
uncompressed Zarr source. Each encode runs in its own process, opening the source lazily (its peak
RSS is its own): `none` and `star-delta`, each without and with --history (the default p, 16 for
this series, and p = 8 for star-delta). The stores are served by chronozarr's server in a process of its own on 127.0.0.1;
a cold handle (open + one pixel's every date and band) and a warm one (a pixel of another shard)
are counted from the server's log, with and without the array, and timed. The scale rows encode
one timestep of bench/scale.py's lazy 4 x N x N source with --history at two areas.
Each encode runs 3 times, round-robin over the variants; the rows give the median. Results:
bench/results/history.json.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import record  # noqa: E402
from served import ServedDir  # noqa: E402

CRS = "EPSG:32632"
FULL = {"n_time": 120, "height": 768, "width": 1024, "chunk": 256}
SMALL = {"n_time": 24, "height": 96, "width": 128, "chunk": 32}
VARIANTS = {  # name: (encoding, history, history_inner)
    "none": ("none", False, None),
    "none+history": ("none", True, None),
    "star-delta": ("star-delta", False, None),
    "star-delta+history": ("star-delta", True, None),
    "star-delta+history p8": ("star-delta", True, 8),
}
SCALE_SIZES = (4096, 8192)
WARM_REPEATS = 5
ENCODE_ROUNDS = 3
TARGETS = {"cold_requests": 3, "warm_requests": 2, "bytes": 200_000, "storage_ratio": 1.0, "encode_ratio": 1.35}

ENCODE = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import xarray as xr
import chronozarr, _common
da = xr.open_zarr({source!r}, consolidated=False)["reflectance"]
started = time.perf_counter()
s = chronozarr.encode(da, {store!r}, crs={crs!r}, chunk_size={chunk}, encoding={encoding!r}, history={history!r},
                      history_inner={inner!r}, progress=False)
seconds = time.perf_counter() - started
print(json.dumps({{"seconds": seconds, "peak_rss_mb": _common.peak_rss_bytes() / 1e6, "history_bytes": s.history_nbytes}}))
"""

SCALE = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import chronozarr, _common, scale
started = time.perf_counter()
s = chronozarr.encode(scale.source({size}), {store!r}, crs={crs!r}, history={history!r}, progress=False)
print(json.dumps({{"seconds": time.perf_counter() - started, "peak_rss_mb": _common.peak_rss_bytes() / 1e6,
                  "history_bytes": s.history_nbytes}}))
"""


def write_source(path: Path, shape: dict[str, int]) -> float:
    """The demo series as an uncompressed Zarr store, read lazily by every encode."""
    from chronozarr.demo.series import demo_series

    started = time.perf_counter()
    da, _, _ = demo_series(n_time=shape["n_time"], height=shape["height"], width=shape["width"])
    da.attrs.clear()
    da.chunk({"time": 1}).to_dataset().to_zarr(path, mode="w", consolidated=False, encoding={"reflectance": {"compressors": None}})
    return time.perf_counter() - started


def encode(source: Path, store: Path, shape: dict[str, int], variant: tuple[str, bool, int | None]) -> dict[str, Any]:
    encoding, history, inner = variant
    code = ENCODE.format(
        bench=str(Path(__file__).resolve().parent), source=str(source), store=str(store), crs=CRS, chunk=shape["chunk"],
        encoding=encoding, history=history, inner=inner,
    )
    shutil.rmtree(store, ignore_errors=True)
    out = _common.run_child(code)
    out["level0_bytes"] = sum(p.stat().st_size for p in (store / "0" / "data" / "c").rglob("*") if p.is_file())
    return out


def encode_rounds(source: Path, stores: Path, shape: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Every variant ENCODE_ROUNDS times, round-robin (a slow minute of the machine hits every
    variant alike), each into a fresh store; seconds and peaks as lists, the last round's store kept."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in VARIANTS}
    for _ in range(ENCODE_ROUNDS):
        for name, variant in VARIANTS.items():
            runs[name].append(encode(source, stores / name.replace(" ", "-"), shape, variant))
    return {
        name: {**rs[-1], "seconds": statistics.median(r["seconds"] for r in rs), "runs_seconds": [r["seconds"] for r in rs],
               "peak_rss_mb": max(r["peak_rss_mb"] for r in rs)}
        for name, rs in runs.items()
    }


TRIAL_CODECS = {  # spec 8's codecs and blosc bit shuffle, on the inner chunks of one shard
    "zstd 5 (level 0's, version 1.1)": ("zstd", 5, None),
    "gzip 5": ("gzip", 5, None),
    "blosc zstd 5 shuffle": ("blosc", 5, "shuffle"),
    "blosc lz4 5 shuffle": ("blosc-lz4", 5, "shuffle"),
    "blosc zstd 5 bitshuffle (version 1.2)": ("blosc", 5, "bitshuffle"),
    "blosc zstd 3 bitshuffle": ("blosc", 3, "bitshuffle"),
}


def codec_trials(store: Path, chunk: int) -> dict[str, Any]:
    """Bytes of the history inner chunks of the middle level-0 cell under each codec tried and
    p = 8, 16 and 32, against the bytes of that cell's level-0 chunks (a star-delta store's)."""
    import numcodecs
    import numpy as np
    import zarr

    history = zarr.open_group(store, mode="r")["history"]
    rows, cols = -(-history.shape[2] // chunk), -(-history.shape[3] // chunk)
    r, c = rows // 2, cols // 2
    block = np.zeros((history.shards[0], *history.shape[1:2], chunk, chunk), history.dtype)
    block[: history.shape[0]] = history[:, :, r * chunk : (r + 1) * chunk, c * chunk : (c + 1) * chunk]
    level0 = sum(p.stat().st_size for p in (store / "0" / "data" / "c").glob(f"*/0/{r}/{c}"))
    made = {
        "zstd": lambda level, _: numcodecs.Zstd(level), "gzip": lambda level, _: numcodecs.GZip(level),
        "blosc": lambda level, shuffle: numcodecs.Blosc("zstd", level, numcodecs.Blosc.BITSHUFFLE if shuffle == "bitshuffle" else numcodecs.Blosc.SHUFFLE),
        "blosc-lz4": lambda level, _: numcodecs.Blosc("lz4", level, numcodecs.Blosc.SHUFFLE),
    }
    out: dict[str, Any] = {"cell": [r, c], "level0_bytes": level0}
    for p in (8, 16, 32):
        for name, (kind, level, shuffle) in TRIAL_CODECS.items():
            codec = made[kind](level, shuffle)
            n = sum(len(codec.encode(np.ascontiguousarray(block[:, :, y : y + p, x : x + p]))) for y in range(0, chunk, p) for x in range(0, chunk, p))
            out[f"p{p} {name}"] = {"bytes": n, "ratio": round(n / level0, 3)}
    return out


def read_history(url: str, server: ServedDir, pixels: list[tuple[int, int]], values: Any) -> dict[str, Any]:
    """Requests, bytes and seconds of one pixel's history on a cold handle, then of pixels of other
    shards on the warm one; every answer is checked against the source."""
    import numpy as np

    import chronozarr

    server.clear_log()
    started = time.perf_counter()
    with chronozarr.open_dataset(url) as store:
        (y, x), *others = pixels
        got = store.read_point(y, x)
        cold_seconds = time.perf_counter() - started
        cold = server.requests
        np.testing.assert_array_equal(got, values[:, :, y, x])
        warm: list[tuple[int, int, float]] = []
        for y, x in others:
            server.clear_log()
            started = time.perf_counter()
            got = store.read_point(y, x)
            seconds = time.perf_counter() - started
            log = server.requests
            np.testing.assert_array_equal(got, values[:, :, y, x])
            warm.append((len(log), sum(r.bytes_sent for r in log), seconds))
    return {
        "cold_requests": len(cold), "cold_bytes": sum(r.bytes_sent for r in cold), "cold_seconds": cold_seconds,
        "warm_requests": max(w[0] for w in warm), "warm_bytes": max(w[1] for w in warm),
        "warm_seconds": [w[2] for w in warm],
    }


def _pixels(shape: dict[str, int]) -> list[tuple[int, int]]:
    """A pixel, then WARM_REPEATS pixels each in a shard of its own (none the first's)."""
    h, w, cs = shape["height"], shape["width"], shape["chunk"]
    cells = [(r, c) for r in range(-(-h // cs)) for c in range(-(-w // cs))]
    picked = [cells[(i * 5 + 1) % len(cells)] for i in range(WARM_REPEATS + 1)]
    return [(min(r * cs + 37 % cs, h - 1), min(c * cs + 101 % cs, w - 1)) for r, c in picked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--output", type=Path, default=record.RESULTS / "history.json")
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    work = Path(tempfile.mkdtemp(prefix="chronozarr-history-bench-"))
    try:
        run(work, shape, args.output)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path, shape: dict[str, int], output: Path) -> None:
    import xarray as xr

    source = work / "source.zarr"
    generated = write_source(source, shape)
    encodes = encode_rounds(source, work / "stores", shape)
    for name, r in encodes.items():
        print(f"encode {name:24} {r['seconds']:7.2f} s, peak {r['peak_rss_mb']:6.0f} MB, history {r['history_bytes']}, level 0 {r['level0_bytes']}")
    trials = codec_trials(work / "stores" / "star-delta+history", shape["chunk"])
    print("codec trials:", trials)
    values = xr.open_zarr(source, consolidated=False)["reflectance"].values
    pixels = _pixels(shape)
    with ServedDir(work / "stores") as server:
        reads = {name: read_history(f"{server.url}/{name}", server, pixels, values) for name in ("star-delta+history", "star-delta", "none+history")}
    for name, r in reads.items():
        print(f"history {name:22} cold {r['cold_requests']} requests {r['cold_bytes']} B {r['cold_seconds']:.3f} s; warm {r['warm_requests']} requests {r['warm_bytes']} B")
    scale = {}
    for size in SCALE_SIZES:
        for history in (True, False):
            store = work / f"scale-{size}-{history}"
            scale[(size, history)] = _common.run_child(SCALE.format(bench=str(Path(__file__).resolve().parent), size=size, store=str(store), crs=CRS, history=history))
            shutil.rmtree(store)
    for (size, history), r in scale.items():
        print(f"scale {size} history={history}: {r['seconds']:.1f} s, peak {r['peak_rss_mb']:.0f} MB")
    summary = _summary(encodes, reads, scale)
    print("targets:", summary["targets"])
    record.write(_document(shape, generated, encodes, reads, scale, {**summary, "codec_trials": trials}), output)


def _summary(encodes: dict[str, Any], reads: dict[str, Any], scale: dict[int, Any]) -> dict[str, Any]:
    with_h = reads["star-delta+history"]
    ratios = {
        name: encodes[f"{name}+history"]["history_bytes"] / encodes[name]["level0_bytes"] for name in ("none", "star-delta")
    }
    ratios["star-delta p8"] = encodes["star-delta+history p8"]["history_bytes"] / encodes["star-delta"]["level0_bytes"]
    times = {name: encodes[f"{name}+history"]["seconds"] / encodes[name]["seconds"] for name in ("none", "star-delta")}
    peaks = [r["peak_rss_mb"] for (_, history), r in scale.items() if history]
    targets = {
        "cold_requests_at_most_3": with_h["cold_requests"] <= TARGETS["cold_requests"],
        "warm_requests_at_most_2": with_h["warm_requests"] <= TARGETS["warm_requests"],
        "bytes_under_200_kB": with_h["cold_bytes"] < TARGETS["bytes"],
        "storage_at_most_1x_level0": all(ratios[n] <= TARGETS["storage_ratio"] for n in ("none", "star-delta")),
        "encode_at_most_1_35x": all(t <= TARGETS["encode_ratio"] for t in times.values()),
        "peak_rss_flat_within_15_percent": max(peaks) <= 1.15 * min(peaks),
    }
    return {"storage_ratio": ratios, "encode_ratio": times, "targets": targets}


def _document(shape: dict[str, int], generated: float, encodes: dict, reads: dict, scale: dict, summary: dict) -> dict[str, Any]:
    rows = []
    for name in ("star-delta+history", "star-delta"):
        r = reads[name]
        tool = "chronozarr read_point" + (" (history array)" if "history" in name else " (level 0)")
        kind = "subject" if "history" in name else "peer"
        for op, prefix in (("cold: open + one pixel's history", "cold"), ("warm: another shard's pixel", "warm")):
            seconds = r[f"{prefix}_seconds"]
            rows.append(record.row(
                "pixel history over HTTP", op, tool, kind, f"every date and band of one pixel, {name} store, served on 127.0.0.1",
                {"seconds": record.stats(seconds if isinstance(seconds, list) else [seconds]),
                 "requests": record.single(r[f"{prefix}_requests"], 0), "bytes": record.single(r[f"{prefix}_bytes"], 0)},
            ))
    # Each encode with the array beside the same encode without it: the ratio is the array's cost,
    # shown as other work (the targets on it are in the setup line, not "ahead of").
    for name, r in encodes.items():
        encoding, history, inner = VARIANTS[name]
        rows.append(record.row(
            "encode", encoding + (f" p{inner}" if inner else ""), "chronozarr encode" + (" --history" if history else ""),
            "subject" if history else "peer", f"the demo series, {name}" + ("; bytes: the history array's" if history else ""),
            {"seconds": record.stats(r["runs_seconds"], 3), "peak_rss": record.single(r["peak_rss_mb"] * 1e6, 0),
             **({"bytes": record.single(r["history_bytes"], 0)} if history else {})},
            same_work=history, max_ratio=None if history else TARGETS["encode_ratio"],
        ))
    for (size, history), r in scale.items():
        rows.append(record.row(
            "scale", f"4 x {size} x {size}", "chronozarr encode" + (" --history" if history else ""), "subject" if history else "peer",
            "one timestep of bench/scale.py's lazy source", {"seconds": record.single(r["seconds"], 3), "peak_rss": record.single(r["peak_rss_mb"] * 1e6, 0)},
            same_work=history,
        ))
    return record.document(
        "history", "The history array: a pixel's history over HTTP, and what the array costs",
        machine=_common.machine(), date=_common.now_utc(),
        setup={
            "series": f"demo series {shape['n_time']} dates x 4 bands x {shape['height']} x {shape['width']} uint16, cells of {shape['chunk']}",
            "targets (issue 25)": ", ".join(f"{k}: {'met' if v else 'MISSED'}" for k, v in summary["targets"].items()),
            "history array bytes / level 0's": ", ".join(f"{k} {v:.3f}x" for k, v in summary["storage_ratio"].items()),
            "encode --history / encode": ", ".join(f"{k} {v:.2f}x" for k, v in summary["encode_ratio"].items()),
        },
        metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("requests", "requests", "count"),
                 record.metric("bytes", "bytes", "B"), record.metric("peak_rss", "peak RSS", "B")],
        rows=rows, packages=("zarr", "xarray", "numcodecs"),
        raw={"generate_seconds": generated, "encodes": encodes, "reads": reads, "scale": {f"{size}{' history' if h else ''}": v for (size, h), v in scale.items()},
             **summary, "warm_median_seconds": {k: statistics.median(v["warm_seconds"]) for k, v in reads.items()}},
    )


if __name__ == "__main__":
    main()
