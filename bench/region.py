"""An area's whole series over HTTP (issue 39): chronozarr's read_region_series, with and without
the history array, next to the xarray selection and masked reduction a user writes today.

    python bench/region.py            # the demo series: 120 dates x 4 bands x 768 x 1024, cells of 256
    python bench/region.py --small    # 24 dates x 96 x 128, cells of 32, a box of 32 px
    python bench/region.py --lod 2    # the same box read at level 2 (results/region-lod2.json)

The demo series (chronozarr.demo: a masked river scene, reflectance x 10^4) is encoded twice as
`chronozarr demo` encodes it but with encoding `none` (what xarray reads as values), once more
with --history. The stores are served by chronozarr's
server in a process of its own on 127.0.0.1 with 50 ms slept before every response; requests
and bytes are counted in its log. The area is the box of REGION x REGION level-0 pixels at the
centre of the scene, its edges on pixel edges. Each run opens a fresh handle and reads every
date's mean, std, min, max and valid-pixel count of every band:

- chronozarr: `open_store(url).read_region_series(box)` (the level it chooses: level 0 for this
  box, so the history array is read when the store has one);
- xarray: `xr.open_zarr(url, group="0")` (the root's consolidated metadata), `.sel(y=, x=)` of the box, `* scale + offset`, `.where(mask == 1)`,
  then mean, std, min, max and count over (y, x), computed by dask in one pass.

Every tool's values are compared first (valid pixels exactly, statistics to 1e-9 relative); a run
whose values differ records nothing. Then RUNS timed runs per tool, round-robin. Results:
bench/results/region.json (bench/record.py's format).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import record  # noqa: E402
from served import ServedDir  # noqa: E402

WORK = Path(__file__).resolve().parent / "work"
FULL = {"n_time": 120, "height": 768, "width": 1024, "chunk": 256, "region": 256}
SMALL = {"n_time": 24, "height": 96, "width": 128, "chunk": 32, "region": 32}
LATENCY = 0.05
RUNS = 5
STATS = ("mean", "std", "min", "max")


def write_stores(root: Path, shape: dict[str, int]) -> tuple[Path, Path]:
    """The demo series encoded as `chronozarr demo` does but with encoding none (which xarray and
    zarr-layer read as values), without and with the history array (demo-*.zarr and
    demo-*-history.zarr under root), each made once."""
    import chronozarr
    from chronozarr.demo.scene import BANDS
    from chronozarr.demo.series import CRS, PROVENANCE, demo_series

    name = f"demo-{shape['n_time']}x{shape['height']}x{shape['width']}-c{shape['chunk']}"
    paths = (root / f"{name}.zarr", root / f"{name}-history.zarr")
    if all((p / "zarr.json").exists() for p in paths):
        return paths
    da, mask, coverage = demo_series(n_time=shape["n_time"], height=shape["height"], width=shape["width"])
    for path, history in zip(paths, (False, True), strict=True):
        if not (path / "zarr.json").exists():
            shutil.rmtree(path, ignore_errors=True)
            started = time.perf_counter()
            chronozarr.encode(da, path, crs=CRS, encoding="none", chunk_size=shape["chunk"], mask=mask, coverage=coverage, bands=BANDS,
                              provenance=PROVENANCE, history=history, progress=False)
            print(f"{path.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return paths


def region_box(store: Path, shape: dict[str, int]) -> tuple[tuple[float, float, float, float], tuple[slice, slice]]:
    """(west, south, east, north) in the store's CRS of the centred REGION x REGION box, its edges
    on pixel edges, and the level-0 rows and columns whose centres it holds."""
    import chronozarr

    with chronozarr.open_store(store) as s:
        a, _, c, _, e, f = s.levels[0].transform[:6]
    size = shape["region"]
    top, left = (shape["height"] - size) // 2, (shape["width"] - size) // 2
    west, north = c + a * left, f + e * top
    east, south = west + a * size, north + e * size
    return (west, south, east, north), (slice(top, top + size), slice(left, left + size))


LOD: int | None = None  # --lod: the level every tool reads (None: chronozarr's default, level 0 for the box)


def chronozarr_series(url: str, box: tuple[float, float, float, float]) -> dict[str, Any]:
    """read_region_series on a fresh handle: the statistics as (time, band) arrays, and the level."""
    import chronozarr

    with chronozarr.open_store(url) as store:
        ds = store.read_region_series(box, lod=LOD)
    out: dict[str, Any] = {k: ds[k].values for k in STATS}
    out["valid_pixels"] = ds["valid_pixels"].values
    out["level"] = int(ds.attrs["level"])
    return out


def xarray_series(url: str, box: tuple[float, float, float, float]) -> dict[str, Any]:
    """The box selected, scaled, masked and reduced by xarray and dask, read through fsspec."""
    import xarray as xr

    west, south, east, north = box
    ds = xr.open_zarr(url, group=str(LOD or 0), consolidated=True)  # HTTP lists no directory: the root's consolidated metadata
    part = ds.sel(y=slice(north, south), x=slice(west, east))
    scale = xr.DataArray([b.scale for b in _bands(url)], dims="band")
    offset = xr.DataArray([b.offset for b in _bands(url)], dims="band")
    values = (part["data"] * scale + offset).where(part["mask"] == 1)
    reduced = xr.Dataset({
        "mean": values.mean(("y", "x")), "std": values.std(("y", "x")), "min": values.min(("y", "x")),
        "max": values.max(("y", "x")), "valid_pixels": values.count(("y", "x")),
    }).transpose("time", "band").compute()
    out: dict[str, Any] = {k: reduced[k].values for k in (*STATS, "valid_pixels")}
    out["level"] = LOD or 0
    return out


_BANDS_CACHE: dict[str, list[Any]] = {}


def _bands(url: str) -> list[Any]:
    """The store's bands (scale and offset), read once, untimed after the first call."""
    if url not in _BANDS_CACHE:
        import chronozarr

        with chronozarr.open_store(url) as store:
            _BANDS_CACHE[url] = list(store.bands)
    return _BANDS_CACHE[url]


def agree(name: str, ours: dict[str, Any], theirs: dict[str, Any]) -> int:
    """Valid pixels equal and every statistic equal to 1e-9 (NaN where no pixel is valid), else
    SystemExit naming the first difference; returns the (time, band) values compared."""
    if not np.array_equal(ours["valid_pixels"], theirs["valid_pixels"]):
        raise SystemExit(f"{name}: valid pixel counts differ from chronozarr's")
    for key in STATS:
        if not np.allclose(ours[key], theirs[key], rtol=1e-9, atol=1e-12, equal_nan=True):
            at = np.argwhere(~np.isclose(ours[key], theirs[key], rtol=1e-9, atol=1e-12, equal_nan=True))[0]
            raise SystemExit(f"{name}: {key} differs at (time, band) {tuple(at)}: {ours[key][tuple(at)]} vs {theirs[key][tuple(at)]}")
    return int(ours["valid_pixels"].size) * len(STATS)


def measure(server: ServedDir, read: Callable[[], dict[str, Any]]) -> tuple[float, int, int]:
    """One cold read: seconds, and the requests and bytes the server answered for it."""
    server.clear_log()
    started = time.perf_counter()
    read()
    seconds = time.perf_counter() - started
    log = server.requests
    return seconds, len(log), sum(int(r.bytes_sent or 0) for r in log)


TOOLS = {  # name: (store with the history array?, reader, kind, work)
    "chronozarr, store with the history array": (True, chronozarr_series, "subject",
        "open_store(url).read_region_series(box): every date from the time-major history array and its mask copy"),
    "chronozarr, no history array": (False, chronozarr_series, "peer",
        "the same call on the store without the array: the box's data and mask chunks of the level read, every date"),
    "xarray + dask": (False, xarray_series, "peer",
        "xr.open_zarr(url, group=level).sel(y=, x=) of the box, * scale + offset, .where(mask == 1), mean/std/min/max/count over (y, x), one dask compute"),
}


def run(shape: dict[str, int], runs: int, work: Path = WORK) -> dict[str, Any]:
    """Stores, values checked, then `runs` timed cold reads per tool, round-robin."""
    plain, history = write_stores(work, shape)
    box, (rows, cols) = region_box(plain, shape)
    load, started = os.getloadavg(), _common.now_utc()
    with ServedDir(plain.parent, latency=LATENCY) as server:
        url = {True: f"{server.url}/{history.name}", False: f"{server.url}/{plain.name}"}
        first = {name: reader(url[hist], box) for name, (hist, reader, _, _) in TOOLS.items()}
        ours = first[next(iter(TOOLS))]
        compared = min(agree(name, ours, values) for name, values in list(first.items())[1:])
        sources = {}
        for name, (hist, _, _, _) in TOOLS.items():
            if name.startswith("chronozarr"):
                import chronozarr

                with chronozarr.open_store(url[hist]) as store:
                    sources[name] = store.read_region_series(box, lod=LOD).attrs["source"]
        measured: dict[str, list[tuple[float, int, int]]] = {name: [] for name in TOOLS}
        for _ in range(runs):
            for name, (hist, reader, _, _) in TOOLS.items():
                measured[name].append(measure(server, lambda r=reader, u=url[hist]: r(u, box)))
    for name, runs_of in measured.items():
        print(f"{name}: {min(s for s, _, _ in runs_of):.3f} s, {runs_of[0][1]} requests, {runs_of[0][2] / 1e6:.2f} MB", flush=True)
    return {"shape": shape, "box": box, "rows": rows, "cols": cols, "load": load, "started": started, "compared": compared,
            "level": ours["level"], "sources": sources, "measured": measured, "stores": (plain.name, history.name)}


def document(out: dict[str, Any]) -> dict[str, Any]:
    shape, rows, cols = out["shape"], out["rows"], out["cols"]
    group = f"HTTP on 127.0.0.1, {LATENCY * 1000:.0f} ms per request"
    at = "px" if LOD is None else f"level-0 px read at level {LOD}"
    op = f"region series: {shape['region']} x {shape['region']} {at}, {shape['n_time']} dates, 4 bands"
    table = []
    for name, (_, _, kind, work) in TOOLS.items():
        runs_of = out["measured"][name]
        values = {"seconds": record.stats([s for s, _, _ in runs_of]), "requests": record.stats([n for _, n, _ in runs_of], 0),
                  "bytes": record.stats([b for _, _, b in runs_of], 0)}
        facts = {"source": out["sources"][name]} if name in out["sources"] else None
        table.append(record.row(group, op, name, kind, work, values, facts=facts))
    subject = out["measured"][next(iter(TOOLS))]
    peers = {name: out["measured"][name] for name in list(TOOLS)[1:]}
    med = lambda rs, i: float(np.median([r[i] for r in rs]))  # noqa: E731
    ratios = {name: {"seconds": med(subject, 0) / med(rs, 0), "requests": med(subject, 1) / med(rs, 1)} for name, rs in peers.items()}
    cells = f"level-0 rows {rows.start}-{rows.stop}, columns {cols.start}-{cols.stop} (cells of {shape['chunk']} px)"
    name, title = "region", "Region series: an area's every date over HTTP, chronozarr and xarray"
    if LOD is not None:
        name, title = f"region-lod{LOD}", f"Region series read at level {LOD}: an area's every date over HTTP, chronozarr and xarray"
    return record.document(
        name, title,
        machine={**_common.machine(), "load_average_at_start": [round(v, 2) for v in out["load"]]}, date=out["started"],
        setup={
            "series": f"the demo series (chronozarr.demo): {shape['n_time']} dates x 4 bands x {shape['height']} x {shape['width']} uint16 with a mask, "
                      f"encoded as `chronozarr demo` does but with encoding none ({out['stores'][0]}) and with --history ({out['stores'][1]})",
            "region": f"the centred box of {shape['region']} x {shape['region']} level-0 pixels, edges on pixel edges: {cells}; "
                      f"read at level {out['level']} ({'the finest within the pixel budget' if LOD is None else 'asked for with --lod'})",
            "http": f"chronozarr's static server (its own process) on 127.0.0.1, {LATENCY * 1000:.0f} ms slept before every response; requests and bytes counted there",
            "runs": f"{len(subject)} cold runs per tool (a fresh handle each: open, then the whole series), round-robin",
            "values": f"{out['compared']} statistics equal between every tool (valid pixels exactly, the rest to 1e-9), checked before timing",
            "targets": "with the history array: at most 12 requests, ahead of every peer (< 1.0x)",
        },
        metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("requests", "requests", "count"), record.metric("bytes", "bytes", "B")],
        rows=table, packages=("xarray", "dask", "zarr", "fsspec", "aiohttp"),
        raw={"ratios_to_peers": ratios, "box": list(out["box"]), "targets": {
            "at_most_12_requests": med(subject, 1) <= 12, **{f"ahead_of {n}": r["seconds"] < 1.0 for n, r in ratios.items()}}},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--shape", metavar="N_TIME,HEIGHT,WIDTH,CHUNK,REGION", help="another size (the tests use a tiny one)")
    parser.add_argument("--runs", type=int, default=None, help=f"timed runs per tool (default {RUNS}, 2 quick)")
    parser.add_argument("--lod", type=int, default=None, help="the level every tool reads (default: chronozarr's choice, level 0)")
    parser.add_argument("--output", type=Path, default=None, help="default results/region.json, or region-lodK.json with --lod")
    parser.add_argument("--work", type=Path, default=WORK, help="where the stores are written (once) and kept")
    args = parser.parse_args()
    shape = SMALL if args.small or record.quick() else FULL
    if args.shape:
        shape = dict(zip(("n_time", "height", "width", "chunk", "region"), (int(v) for v in args.shape.split(",")), strict=True))
    global LOD
    LOD = args.lod
    out = run(shape, args.runs or (2 if record.quick() else RUNS), args.work)
    output = args.output or record.RESULTS / ("region.json" if LOD is None else f"region-lod{LOD}.json")
    print(f"wrote {record.write(document(out), output)}")


if __name__ == "__main__":
    main()
