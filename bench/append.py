"""Append: the cost of adding dates to a store, per layout and encoding, to choose a layout from.

    python bench/append.py            # 4 x 2765 x 2759 uint16, 12 dates, dates 13 and 14 appended
    python bench/append.py --small    # 4 x 1100 x 1000, quick
    python bench/append.py --base-months 12 --appends 13 --layouts shard-time-12 unsharded \
        --encodings none --view-steps 5      # a whole cycle of a 12-date shard

A synthetic series (bench/_common.py) of base + appends dates is written once to an uncompressed
Zarr source. For each layout (`whole-axis`: one shard for the axis the store starts with;
`shard-time-N`; `unsharded`) and encoding (`auto`, `none`, `star-delta` with --anchor-interval), a
child process encodes the first --base-months dates, then one child per date appends the next
--appends dates one at a time (each opening the source lazily, as a user would), and one encodes
all the dates afresh (what a format without append costs). Every operation runs in its own process,
so its peak RSS (VmHWM) is its own. Objects and MB written come from the append summary (new,
rewritten and metadata objects: what `aws s3 sync` would upload). For star-delta stores each append
also says what re-referencing would have rewritten: the published timesteps whose nearest anchor
became the new one, and the data objects (chunks or time shards) holding them, which spec 4.2's
frozen references leave alone. After the cycle, each --view-steps timestep (and the last appended
one) is read as a cold client reads a 3 x 3 view of level-0 cells: requests, MB and time. The
store is validated after the cycle. Results: bench/results/append.json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import append_tools as tools  # noqa: E402
import record  # noqa: E402

FULL = (4, 2765, 2759)
SMALL = (4, 1100, 1000)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="4 x 1100 x 1000 instead of 4 x 2765 x 2759")
    parser.add_argument("--shape", type=int, nargs=3, metavar=("BANDS", "HEIGHT", "WIDTH"), help="the series' size (overrides --small)")
    parser.add_argument("--chunk-size", type=int, default=512)
    parser.add_argument("--base-months", type=int, default=12, help="dates the store is created with (12)")
    parser.add_argument("--appends", type=int, default=2, help="dates appended one at a time after them (2)")
    parser.add_argument("--layouts", nargs="+", default=["whole-axis", "shard-time-12", "unsharded"])
    parser.add_argument("--encodings", nargs="+", default=["auto", "star-delta"])
    parser.add_argument("--anchor-interval", type=int, default=6)
    parser.add_argument("--view-steps", type=int, nargs="*", default=[5], help="timesteps whose view is read after the cycle (5)")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "append.json")
    parser.add_argument("--work-dir", type=Path, help="where the source and stores are written (a disk like the one users write to); default: a new temporary directory")
    args = parser.parse_args()
    if args.base_months < 1 or args.appends < 1:
        parser.error("--base-months and --appends must be at least 1")
    for name in args.layouts:
        tools.layout_options(name)
    for name in args.encodings:
        tools.encoding_options(name, args.anchor_interval)
    return args


def one_combination(args: argparse.Namespace, work: Path, source: Path, layout: str, encoding: str) -> dict[str, Any]:
    """Build, the cycle of appends, a fresh encode of every date, the views and validate, for one
    layout and encoding."""
    base, n_total = args.base_months, args.base_months + args.appends
    options = {**tools.layout_options(layout), **tools.encoding_options(encoding, args.anchor_interval), "chunk_size": args.chunk_size}
    store = work / f"store-{layout}-{encoding}"
    build = tools.run("encode", source, store, 0, base, options)
    build["files"], build["store_bytes"], _ = _common.tree_bytes(store)
    appends = []
    for t in range(base, n_total):
        anchors = tools.anchors_of(store)
        step = tools.run("append", source, store, t, t + 1)
        step["t"] = t
        step["rereference"] = tools.rereference_cost(store, anchors, t)
        appends.append(step)
    files, store_bytes, _ = _common.tree_bytes(store)
    views = [tools.view_cost(store, t) for t in sorted({*(s for s in args.view_steps if 0 <= s < n_total), n_total - 1})]
    valid = chronozarr_valid(store)
    fresh = tools.run("encode", source, work / f"fresh-{layout}-{encoding}", 0, n_total, options)
    shutil.rmtree(work / f"fresh-{layout}-{encoding}", ignore_errors=True)
    shutil.rmtree(store, ignore_errors=True)
    return {"layout": layout, "encoding": encoding, "chose": build["encoding"], "base": base, "build": build, "appends": appends,
            "after": {"files": files, "store_bytes": store_bytes}, "views": views, "validate_after": valid, "fresh": fresh}


def chronozarr_valid(store: Path) -> bool:
    import chronozarr

    return bool(chronozarr.validate(str(store)).ok)


def _line(layout: str, encoding: str, op: str, r: dict[str, Any] | None = None, counts: str = "", rereference: str = "") -> str:
    figures = f"{r['seconds']:7.2f} {r['peak_rss_mb']:8.0f} {counts or r['objects']:>24} {r['mb']:10.1f}" if r else ""
    return f"{layout:15} {encoding:17} {op:24} {figures} {rereference:>27}".rstrip()


def print_tables(combos: list[dict[str, Any]]) -> None:
    """The table a user chooses a layout from: per append, then per view."""
    head = f"{'wall s':>7} {'peak MB':>8} {'objects (new+rewr+meta)':>24} {'MB written':>10} {'re-reference: objects / MB':>27}"
    print(f"{'layout':15} {'encoding':17} {'operation':24} {head}")
    for c in combos:
        enc = c["encoding"] + (f" ({c['chose']})" if c["encoding"] == "auto" else "")
        print(_line(c["layout"], enc, f"build {c['base']} dates", c["build"]))
        for a in c["appends"]:
            rr = a["rereference"]
            counts = f"{a['objects']} ({a['new']}+{a['rewritten']}+{a['metadata']})"
            print(_line("", "", f"append date {a['t'] + 1}", a, counts, f"{rr['objects']} / {rr['bytes'] / 1e6:.1f}"))
        print(_line("", "", "fresh encode, all dates", c["fresh"]))
        total, after = sum(a["mb"] for a in c["appends"]), c["after"]
        print(_line("", "", f"cycle: {total:.1f} MB written in {len(c['appends'])} appends; store {after['files']} files, "
                            f"{after['store_bytes'] / 1e6:.1f} MB; valid {c['validate_after']}"))
    print(f"\n{'layout':15} {'encoding':17} {'view t':>6} {'reference':>9} {'requests':>8} {'MB read':>8} {'ms':>8}")
    for c in combos:
        for v in c["views"]:
            ref = str(v["reference"])
            print(f"{c['layout']:15} {c['encoding']:17} {v['t']:6} {ref:>9} {v['requests']:8} {v['bytes'] / 1e6:8.2f} {v['seconds'] * 1e3:8.1f}")


def result_rows(c: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of one layout and encoding: each append next to a fresh encode of every date, and the views."""
    group = f"{c['layout']}, {c['encoding']}"

    def values(r: dict[str, Any]) -> dict[str, Any]:
        return {"seconds": record.single(r["seconds"], 3), "peak_rss": record.single(r["peak_rss_mb"] * 1e6, 0),
                "objects": record.single(r["objects"], 0), "bytes": record.single(r["mb"] * 1e6, 0)}
    out = []
    for a in c["appends"]:
        op = f"append date {a['t'] + 1}"
        rr = a["rereference"]
        work = f"chronozarr.append of one date ({a['new']} new, {a['rewritten']} rewritten, {a['metadata']} metadata objects)"
        out.append(record.row(group, op, "chronozarr append", "subject", work, values(a),
                              rereference={"timesteps": rr["timesteps"], "objects": rr["objects"], "bytes": rr["bytes"]}))
        fresh = f"chronozarr.encode of all {c['base'] + len(c['appends'])} dates into a new store (what a format without append costs)"
        out.append(record.row(group, op, "fresh encode", "peer", fresh, values(c["fresh"])))
    for v in c["views"]:
        out.append(record.row(group, f"view t={v['t']}", "chronozarr read", "subject",
                              f"a cold read of {v['cells']} level-0 cells at timestep {v['t']} (reference {v['reference']})",
                              {"seconds": record.single(v["seconds"], 4), "requests": record.single(v["requests"], 0), "bytes": record.single(v["bytes"], 0)}))
    return out


def main() -> None:
    args = parse_args()
    shape = tuple(args.shape) if args.shape else SMALL if args.small else FULL
    n_total = args.base_months + args.appends
    work = Path(tempfile.mkdtemp(prefix="chronozarr-append-bench-", dir=args.work_dir))
    load = os.getloadavg()[0]
    try:
        source = work / "source.zarr"
        generated = _common.write_sources({source: n_total}, *shape)
        combos = [one_combination(args, work, source, layout, encoding) for layout in args.layouts for encoding in args.encodings]
        print_tables(combos)
        doc = record.document(
            "append", "Append: the cost of each date added, per layout and encoding, against a fresh encode",
            machine={**_common.machine(), "load_average_at_start": load}, date=_common.now_utc(),
            setup={"series": f"{n_total} x {' x '.join(map(str, shape))} uint16 (bench/_common.py), lazy Zarr source; every operation in its own process",
                   "store": f"created with {args.base_months} dates, chunk {args.chunk_size}, then {args.appends} appended one at a time; "
                            f"layouts {', '.join(args.layouts)}; encodings {', '.join(args.encodings)} (anchor interval {args.anchor_interval})",
                   "views": "a cold read of up to 3 x 3 level-0 cells, Python reader, after the cycle",
                   "valid after the cycle": all(c["validate_after"] for c in combos)},
            metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("peak_rss", "peak RSS", "B"),
                     record.metric("objects", "objects written", "count"), record.metric("bytes", "bytes", "B"),
                     record.metric("requests", "requests", "count")],
            rows=[r for c in combos for r in result_rows(c)],
            packages=("zarr", "xarray", "dask", "numcodecs"),
            raw={"shape": [n_total, *shape], "generate_seconds": generated, "combinations": combos,
                 "arguments": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}},
        )
        print("written:", record.write(doc, args.output))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
