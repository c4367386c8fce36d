"""Write the benchmark stores from the repository's seeded synthetic Sentinel-2-like series
(bench/_common.py).

    python make_store.py OUT_DIR                  # none.zarr, none-sharded.zarr (run.mjs)
    python make_store.py OUT_DIR --browser [--small] [--history]   # browser-*.zarr and its COGs (compare.mjs)
    python make_store.py OUT_DIR --demo [--small]   # bench/region.py's demo stores (compare-region.mjs)

run.mjs: 24 x 4 x 2765 x 2759 uint16, zstd 5, chunk 512, encoding none, unsharded and sharded
(whole time axis per shard, with shard_bytes). compare.mjs: the same series (or 12 x 4 x 1100 x
1000 with --small) with 256 px chunks, encoding none, and `chronozarr export-cog` of its level 0
(one COG per date), both written once; with --history also the same store written with the
time-major history array (`encode(history=True)`, browser-*-history.zarr). Prints the browser
store's directory name, then the history store's. --demo: the demo series as bench/region.py writes
it (encoding none, without and with the history array); prints both names.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import chronozarr

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from _common import make_dataarray, make_values  # noqa: E402

SHAPE = (24, 4, 2765, 2759)
BROWSER_SMALL = (12, 4, 1100, 1000)


def main(out: str) -> None:
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    values = None
    for name, options in (("none.zarr", {}), ("none-sharded.zarr", {"shard": True})):
        path = root / name
        if (path / "zarr.json").exists():
            continue
        if values is None:
            values = make_dataarray(make_values(*SHAPE))
        started = time.perf_counter()
        chronozarr.encode(values, path, crs="EPSG:32631", encoding="none", chunk_size=512, codec="zstd", progress=False, **options)
        print(f"{name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)


def browser(out: str, shape: tuple[int, int, int, int]) -> Path:
    """The browser comparison's store (256 px chunks, none) and its COG export, made once."""
    root = Path(out)
    path = root / f"browser-{'x'.join(map(str, shape))}.zarr"
    cogs = path.with_name(path.stem + "-cogs")
    if not (path / "zarr.json").exists():
        started = time.perf_counter()
        chronozarr.encode(make_dataarray(make_values(*shape)), path, crs="EPSG:32631", encoding="none", chunk_size=256, codec="zstd", progress=False)
        print(f"{path.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if len(list(cogs.glob("*.tif"))) != shape[0]:
        chronozarr.export_cog(path, cogs, level=0, overwrite=True, progress=False)
    return path


def browser_history(out: str, shape: tuple[int, int, int, int]) -> Path:
    """The browser store again, with the history array, made once."""
    path = Path(out) / f"browser-{'x'.join(map(str, shape))}-history.zarr"
    if not (path / "zarr.json").exists():
        started = time.perf_counter()
        chronozarr.encode(make_dataarray(make_values(*shape)), path, crs="EPSG:32631", encoding="none", chunk_size=256, codec="zstd", progress=False, history=True)
        print(f"{path.name}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return path


if __name__ == "__main__":
    if "--demo" in sys.argv:
        import region

        for made in region.write_stores(Path(sys.argv[1]), region.SMALL if "--small" in sys.argv else region.FULL):
            print(made.name)
    elif "--browser" in sys.argv:
        chosen = BROWSER_SMALL if "--small" in sys.argv else SHAPE
        print(browser(sys.argv[1], chosen).name)
        if "--history" in sys.argv:
            print(browser_history(sys.argv[1], chosen).name)
    else:
        main(sys.argv[1])
