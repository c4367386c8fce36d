"""Append one date, then another, to a 12-date store, next to a full re-encode of all dates.

    python bench/append.py            # 4 x 2765 x 2759 uint16, months 13 and 14
    python bench/append.py --small    # 4 x 1100 x 1000, quick

A 14-date synthetic series (bench/_common.py) is written once to an uncompressed Zarr source.
For each layout (unsharded; sharded with shard_time 12) a child process encodes the first 12
dates, then one child appends date 13 and another date 14 (each opening the source lazily, as a
user would), and one re-encodes all 14 dates into a new store. Every operation runs in its own
process, so peak RSS (VmHWM) is its own. Objects and MB written come from the append summary
(files new or rewritten, as `aws s3 sync` would upload). Results: bench/results/append.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import record  # noqa: E402

FULL = (14, 4, 2765, 2759)
SMALL = (14, 4, 1100, 1000)
CRS = "EPSG:32631"
LAYOUTS = {"unsharded": {}, "shard_time_12": {"shard": True, "shard_time": 12}}
TARGET_RATIO = 1 / 8
TARGET_RSS = 600e6

CHILD = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import xarray as xr
import chronozarr, _common
op, source, store, layout = {op!r}, {source!r}, {store!r}, {layout!r}
da = xr.open_zarr(source, consolidated=False)["data"]
started = time.perf_counter()
out = {{}}
if op == "build":
    chronozarr.encode(da.isel(time=slice(0, 12)), store, crs={crs!r}, progress=False, **layout)
elif op == "reencode":
    s = chronozarr.encode(da, store, crs={crs!r}, progress=False, **layout)
    out.update(objects=s.objects, mb=s.nbytes / 1e6)
else:
    t = int(op[-2:]) - 1
    s = chronozarr.append(store, da.isel(time=slice(t, t + 1)), progress=False)
    out.update(objects=len(s.objects), new=s.objects_new, rewritten=s.objects_rewritten,
               metadata=s.objects_metadata, mb=s.nbytes / 1e6)
out["seconds"] = time.perf_counter() - started
out["peak_rss_mb"] = _common.peak_rss_bytes() / 1e6
print(json.dumps(out))
"""


VALIDATE = "import sys, chronozarr; sys.exit(0 if chronozarr.validate(sys.argv[1]).ok else 1)"


def run(op: str, source: Path, store: Path, layout: dict) -> dict:
    os.sync()
    code = CHILD.format(bench=str(Path(__file__).resolve().parent), op=op, source=str(source), store=str(store), layout=layout, crs=CRS)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{op} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def result_rows(layout: dict) -> list[dict]:
    """Rows of one layout: each appended date next to re-encoding all 14 dates."""
    out = []
    def values(r: dict) -> dict:
        return {"seconds": record.single(r["seconds"], 3), "peak_rss": record.single(r["peak_rss_mb"] * 1e6, 0),
                "objects": record.single(r["objects"], 0), "bytes": record.single(r["mb"] * 1e6, 0)}
    for month in ("13", "14"):
        op = f"date {month} onto {int(month) - 1} dates"
        r = layout[f"append_{month}"]
        out.append(record.row(layout["layout"], op, "chronozarr append", "subject",
                              f"chronozarr.append of one date ({r['new']} new, {r['rewritten']} rewritten, {r['metadata']} metadata objects)", values(r)))
        out.append(record.row(layout["layout"], op, "re-encode all dates", "peer", "chronozarr.encode of all 14 dates into a new store (what a format without append costs)",
                              values(layout["reencode_14"])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "append.json")
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    work = Path(tempfile.mkdtemp(prefix="chronozarr-append-bench-"))
    load = os.getloadavg()[0]
    try:
        source = work / "source.zarr"
        generated = _common.write_sources({source: shape[0]}, *shape[1:])
        rows = []
        for name, layout in LAYOUTS.items():
            store = work / f"store-{name}"
            build = run("build", source, store, layout)
            month13 = run("append13", source, store, layout)
            month14 = run("append14", source, store, layout)
            check = subprocess.run([sys.executable, "-c", VALIDATE, str(store)], capture_output=True, text=True)
            reencode = run("reencode", source, work / f"reencode-{name}", layout)
            shutil.rmtree(work / f"reencode-{name}", ignore_errors=True)
            row = {
                "layout": name, "build_12": build, "append_13": month13, "append_14": month14, "reencode_14": reencode,
                "validate_after": check.returncode == 0,
                "ratio_13": month13["seconds"] / reencode["seconds"], "ratio_14": month14["seconds"] / reencode["seconds"],
            }
            rows.append(row)
            for month, r in (("13", month13), ("14", month14)):
                print(
                    f"{name:14} month {month}: {r['seconds']:6.2f} s, peak {r['peak_rss_mb']:6.0f} MB, {r['objects']} objects "
                    f"({r['new']} new, {r['rewritten']} rewritten, {r['metadata']} metadata), {r['mb']:.1f} MB; "
                    f"re-encode of 14 dates {reencode['seconds']:.2f} s ({reencode['mb']:.0f} MB) -> ratio {r['seconds'] / reencode['seconds']:.3f}"
                )
        unsharded = rows[0]["append_13"]
        targets = {
            "unsharded_one_date_ratio_at_most_1_8": rows[0]["ratio_13"] <= TARGET_RATIO,
            "unsharded_writes_only_new_chunks": unsharded["rewritten"] == 0,
            "peak_rss_under_600_mb": all(r[k]["peak_rss_mb"] < TARGET_RSS / 1e6 for r in rows for k in ("append_13", "append_14")),
        }
        print("targets:", targets)
        doc = record.document(
            "append", "Append: one new date to a 12-date store, against re-encoding every date",
            machine={**_common.machine(), "load_average_at_start": load}, date=_common.now_utc(),
            setup={"series": f"{' x '.join(map(str, shape))} uint16 (bench/_common.py), lazy Zarr source; every operation in its own process",
                   "targets (issue 5)": ", ".join(f"{k}: {'met' if v else 'MISSED'}" for k, v in targets.items())},
            metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("peak_rss", "peak RSS", "B"),
                     record.metric("objects", "objects written", "count"), record.metric("bytes", "bytes written", "B")],
            rows=[r for layout in rows for r in result_rows(layout)],
            packages=("zarr", "xarray", "dask", "numcodecs"),
            raw={"shape": list(shape), "generate_seconds": generated, "layouts": rows, "targets": targets},
        )
        record.write(doc, args.output)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
