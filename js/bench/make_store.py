"""Write the benchmark stores: 24 x 4 x 2765 x 2759 uint16, zstd 5, chunk 512, encoding none,
unsharded and sharded (whole time axis per shard, with shard_bytes), from the repository's seeded
synthetic Sentinel-2-like series (bench/_common.py). Usage: python make_store.py OUT_DIR
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import chronozarr

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from _common import make_dataarray, make_values  # noqa: E402

SHAPE = (24, 4, 2765, 2759)


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


if __name__ == "__main__":
    main(sys.argv[1])
