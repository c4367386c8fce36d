"""Memory and time of encode as the area grows, side by side with xarray's to_zarr, in one run.

    python bench/scale.py                       # one timestep of 4 x N x N uint16, N = 4096 .. 32768
    python bench/scale.py --sizes 4096,8192     # a quicker sweep
    python bench/scale.py --repeats 2 --output bench/results/scale.json

The source is lazy, as a national mosaic read from COGs or a Zarr archive is: a dask array of
(1, 4, 2048, 2048) chunks, each generated when computed (a smooth landscape plus texture, about as
compressible as real reflectance). Nothing is on disk before the write, so both tools read the
same lazy source at the same cost.

For every size, in alternating order, each tool runs in a fresh subprocess:
(a) chronozarr.encode: the full pyramid (levels until 1 x 1), auto encoding, volatility, defaults
    (zstd 5, 512 px cells, unsharded);
(b) xarray.Dataset.to_zarr of level 0 alone: Zarr v3, chunks (1, 4, 512, 512), zstd 5.
The child reports wall and CPU seconds of the write and its own peak RSS (VmHWM). The report gives
seconds per megapixel, peak RSS, and the ratios the issue sets targets for: chronozarr's peak RSS
at most 1.5 GB and flat across sizes (within 15 %), its time per pixel flat (within 15 %), and its
time at most 1.3x to_zarr's at each size.
"""

from __future__ import annotations

import argparse
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
import record  # noqa: E402

SIZES = (4096, 8192, 16384, 32768)
N_BAND = 4
SOURCE_CHUNK = 2048
CELL = 512
LEVEL = 5
CRS = "EPSG:32631"
GB = 1_000_000_000
TARGET_PEAK_RSS = 1.5 * GB
TARGET_FLAT = 0.15
TARGET_TIME_RATIO = 1.3

_TILES: dict[str, Any] = {}


def _tiles() -> tuple[Any, Any]:
    """A smooth landscape and a texture tile, made once per process (each chunk shifts them)."""
    import numpy as np

    if not _TILES:
        y, x = np.ogrid[0:SOURCE_CHUNK, 0:SOURCE_CHUNK]
        land = 900 + 350 * np.sin(y / 83.0) * np.cos(x / 121.0) + 120 * np.sin((x + y) / 37.0)
        rng = np.random.default_rng(20261201)
        _TILES["land"] = land.astype(np.uint16)
        _TILES["texture"] = rng.integers(0, 96, (SOURCE_CHUNK, SOURCE_CHUNK), dtype=np.uint16)
    return _TILES["land"], _TILES["texture"]


def _chunk(block_info: dict[Any, Any] | None = None) -> Any:
    """One source chunk: the tiles rolled by its position, a different mix per band."""
    import numpy as np

    assert block_info is not None
    (_, _), (b0, b1), (y0, y1), (x0, x1) = block_info[None]["array-location"]
    land, texture = _tiles()
    out = np.empty((1, b1 - b0, y1 - y0, x1 - x0), dtype=np.uint16)
    shifted = np.roll(land, (y0 // 5 % SOURCE_CHUNK, x0 // 3 % SOURCE_CHUNK), axis=(0, 1))[: y1 - y0, : x1 - x0]
    grain = np.roll(texture, ((y0 + x0) // 7 % SOURCE_CHUNK, y0 // 11 % SOURCE_CHUNK), axis=(0, 1))[: y1 - y0, : x1 - x0]
    for i, band in enumerate(range(b0, b1)):
        np.add(shifted, grain, out=out[0, i])
        out[0, i] += np.uint16(150 * band)
    return out


def source(size: int) -> Any:
    """The lazy (1, 4, size, size) uint16 series with coordinates on a 10 m UTM grid."""
    import dask.array as dsa
    import numpy as np
    import xarray as xr

    n = size // SOURCE_CHUNK
    data = dsa.map_blocks(_chunk, dtype=np.uint16, chunks=((1,), (N_BAND,), (SOURCE_CHUNK,) * n, (SOURCE_CHUNK,) * n))
    return xr.DataArray(
        data,
        dims=("time", "band", "y", "x"),
        coords={
            "time": np.array(["2024-06-01"], dtype="datetime64[ns]"),
            "band": ["B02", "B03", "B04", "B08"],
            "y": 6_000_000 - (np.arange(size) + 0.5) * 10.0,
            "x": 300_000 + (np.arange(size) + 0.5) * 10.0,
        },
    )


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(args: argparse.Namespace) -> None:
    """One tool, one size, this process: write and report."""
    import zarr

    import chronozarr

    da = source(args.size)
    _tiles()  # the source's one-time setup (its two tiles) is not write work: made before the clock starts
    before = _common.rss_bytes()
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    extra: dict[str, Any] = {}
    if args.child == "chronozarr":
        summary = chronozarr.encode(da, args.out, crs=CRS, progress=False)
        extra = {"levels": summary.levels, "encoding": summary.encoding, "objects": summary.objects, "bytes": summary.nbytes}
    else:
        encoding = {"data": {"chunks": (1, N_BAND, CELL, CELL), "compressors": [zarr.codecs.ZstdCodec(level=LEVEL)]}}
        da.to_dataset(name="data").to_zarr(args.out, mode="w-", zarr_format=3, consolidated=False, encoding=encoding)
    seconds, cpu = time.perf_counter() - t0, _cpu_seconds() - cpu0
    result = {
        "tool": args.child, "size": args.size, "pixels": args.size**2, "input_bytes": int(da.nbytes),
        "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3), "rss_before_write": before,
        "peak_rss": _common.peak_rss_bytes(), **extra,
    }
    Path(args.result).write_text(json.dumps(result))


def run(tool: str, size: int, work: Path) -> dict[str, Any]:
    out, result = work / f"{tool}-{size}.zarr", work / f"{tool}-{size}.json"
    os.sync()
    cmd = [sys.executable, __file__, "--child", tool, "--size", str(size), "--out", str(out), "--result", str(result)]
    print(f"  {tool} {size} x {size} ...", flush=True)
    subprocess.run(cmd, check=True)
    measured = json.loads(result.read_text())
    measured["disk_bytes"] = _common.tree_bytes(out)[1]
    shutil.rmtree(out, ignore_errors=True)
    print(f"    {measured['seconds']:.1f} s, peak RSS {measured['peak_rss'] / 1e6:,.0f} MB", flush=True)
    return measured


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(r[key] for r in runs))


def report(by_size: dict[int, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """Per size: medians, seconds per megapixel, the time ratio; then the flatness figures."""
    rows = []
    for size, runs in sorted(by_size.items()):
        cz, tz = runs["chronozarr"], runs["to_zarr"]
        mpix = size**2 / 1e6
        rows.append({
            "size": size,
            "chronozarr_seconds": _median(cz, "seconds"), "to_zarr_seconds": _median(tz, "seconds"),
            "chronozarr_seconds_per_mpix": round(_median(cz, "seconds") / mpix, 5),
            "to_zarr_seconds_per_mpix": round(_median(tz, "seconds") / mpix, 5),
            "chronozarr_peak_rss": int(_median(cz, "peak_rss")), "to_zarr_peak_rss": int(_median(tz, "peak_rss")),
            "time_ratio": round(_median(cz, "seconds") / _median(tz, "seconds"), 3),
            "levels": cz[0].get("levels"),
        })
    rss = [r["chronozarr_peak_rss"] for r in rows]
    per_pixel = [r["chronozarr_seconds_per_mpix"] for r in rows]
    targets = {
        "peak_rss_at_most_1_5_GB": max(rss) <= TARGET_PEAK_RSS,
        "peak_rss_spread": round(max(rss) / min(rss) - 1, 3),
        "peak_rss_flat_within_15_percent": max(rss) / min(rss) - 1 <= TARGET_FLAT,
        "seconds_per_pixel_spread": round(max(per_pixel) / min(per_pixel) - 1, 3),
        "seconds_per_pixel_flat_within_15_percent": max(per_pixel) / min(per_pixel) - 1 <= TARGET_FLAT,
        "worst_time_ratio": max(r["time_ratio"] for r in rows),
        "time_at_most_1_3x_to_zarr": all(r["time_ratio"] <= TARGET_TIME_RATIO for r in rows),
    }
    return {"rows": rows, "targets": targets}


def size_rows(size: int, runs: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """chronozarr's pyramid next to to_zarr's level 0 at one size."""
    work = {"chronozarr": "chronozarr.encode: full pyramid, defaults (zstd 5, 512 px, unsharded)",
            "to_zarr": "xarray to_zarr of level 0 only: chunks (1, 4, 512, 512), zstd 5"}
    return [
        record.row(f"{size} x {size}", "encode one timestep of 4 bands", tool, "subject" if tool == "chronozarr" else "peer", work[tool],
                   {key: record.stats([r[field] for r in runs[tool]], 3 if "seconds" in key else 0)
                    for key, field in (("seconds", "seconds"), ("cpu_seconds", "cpu_seconds"), ("peak_rss", "peak_rss"))},
                   same_work=tool == "chronozarr")
        for tool in ("chronozarr", "to_zarr")
    ]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| size | chronozarr s | to_zarr s | ratio | chronozarr s/Mpx | to_zarr s/Mpx | chronozarr peak RSS | to_zarr peak RSS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['size']}^2 | {r['chronozarr_seconds']:.1f} | {r['to_zarr_seconds']:.1f} | {r['time_ratio']:.2f}x | "
            f"{r['chronozarr_seconds_per_mpix']:.4f} | {r['to_zarr_seconds_per_mpix']:.4f} | "
            f"{r['chronozarr_peak_rss'] / 1e6:,.0f} MB | {r['to_zarr_peak_rss'] / 1e6:,.0f} MB |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "scale.json")
    parser.add_argument("--child"), parser.add_argument("--size", type=int)
    parser.add_argument("--out"), parser.add_argument("--result")
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    started, load = _common.now_utc(), os.getloadavg()
    by_size: dict[int, dict[str, list[dict[str, Any]]]] = {s: {"chronozarr": [], "to_zarr": []} for s in sizes}
    with tempfile.TemporaryDirectory(prefix="chronozarr-scale-") as tmp:
        for size in sizes:
            for _ in range(args.repeats):
                for tool in ("to_zarr", "chronozarr"):
                    by_size[size][tool].append(run(tool, size, Path(tmp)))
    summary = report(by_size)
    doc = record.document(
        "scale", "Scale: encode memory and time as the area grows",
        machine={**_common.machine(), "load_average_at_start": [round(v, 2) for v in load]}, date=started,
        setup={"series": f"one timestep of 4 x N x N uint16 from a lazy dask source (map_blocks, chunks (1, 4, {SOURCE_CHUNK}, {SOURCE_CHUNK})); every run in a fresh process",
               "targets (issue 12)": ", ".join(f"{k}: {v}" for k, v in summary["targets"].items()), "repeats": args.repeats},
        metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("cpu_seconds", "CPU", "s"), record.metric("peak_rss", "peak RSS", "B")],
        rows=[r for size, runs in sorted(by_size.items()) for r in size_rows(size, runs)],
        packages=("zarr", "xarray", "dask", "numcodecs"),
        raw={"runs": by_size, **summary},
    )
    record.write(doc, args.output)
    print(table(summary["rows"]))
    print(json.dumps(summary["targets"], indent=2))


if __name__ == "__main__":
    main()
