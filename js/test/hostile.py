"""Write the stores of tests/hostile_stores.py (one flaw each) and two honest ones for the JS tests.

Usage: python hostile.py OUT_DIR

OUT_DIR/stores/NAME is each case the JS reader can meet, OUT_DIR/hosts/{plain,sharded}/s the honest
stores the misbehaving-host tests serve (at /s, where tests/hostile_hosts.py aims its faults), OUT_DIR/expected/{plain,sharded}.bin the Python reader's
read(2) of them (uint16, band, y, x), OUT_DIR/blosc/ chunks numcodecs encoded from raw.bin
(blosc per cname and shuffle, zstd, gzip), OUT_DIR/checksum/{honest,damaged} the plain honest store
written with --checksum and a copy with one bit of a chunk flipped, and OUT_DIR/index.json what each
case must fail with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

import chronozarr  # noqa: E402
from hostile_stores import BASES, CASES, build_base, build_case, series  # noqa: E402


def main(out: Path) -> None:
    stores = out / "stores"
    stores.mkdir(parents=True)
    bases = {}
    for name in BASES:
        build_base(out / "bases" / name, name)
        bases[name] = out / "bases" / name
    index = {"cases": {}, "honest": {}}
    for name, case in CASES.items():
        if case.js:
            build_case(stores, name, bases)
            index["cases"][name] = {"message": case.message, "t": case.t, "phase": case.phase}
    (out / "expected").mkdir()
    for layout, shard in (("plain", False), ("sharded", True)):
        path = out / "hosts" / layout / "s"
        chronozarr.encode(series(), path, crs="EPSG:32631", chunk_size=16, encoding="none", shard=shard, progress=False)
        with chronozarr.open_dataset(path) as store:
            frame = store.read(2)
            (out / "expected" / f"{layout}.bin").write_bytes(frame.astype("<u2").tobytes())
            index["honest"][layout] = {"shape": list(frame.shape), "grid": list(store.levels[0].grid), "cs": store.levels[0].chunk_size}
    _blosc_samples(out / "blosc")
    _checksum_stores(out / "checksum")
    (out / "index.json").write_text(json.dumps(index, indent=1))


def _checksum_stores(directory: Path) -> None:
    import shutil

    honest = directory / "honest"
    chronozarr.encode(series(), honest, crs="EPSG:32631", chunk_size=16, encoding="none", checksum=True, progress=False)
    shutil.copytree(honest, directory / "damaged")
    chunk = directory / "damaged" / "0" / "data" / "c" / "2" / "0" / "0" / "0"
    raw = bytearray(chunk.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    chunk.write_bytes(bytes(raw))


def _blosc_samples(directory: Path) -> None:
    import numcodecs
    import numpy as np

    directory.mkdir()
    values = np.random.default_rng(7).integers(1000, 1016, 4096).astype("<u2")
    (directory / "raw.bin").write_bytes(values.tobytes())
    for cname in ("zstd", "lz4"):
        for shuffle in ("noshuffle", "shuffle"):
            mode = numcodecs.Blosc.SHUFFLE if shuffle == "shuffle" else numcodecs.Blosc.NOSHUFFLE
            encoded = numcodecs.Blosc(cname=cname, clevel=5, shuffle=mode, blocksize=0).encode(values)
            (directory / f"{cname}-{shuffle}.bin").write_bytes(encoded)
    (directory / "zstd.bin").write_bytes(numcodecs.Zstd(level=3).encode(values))
    (directory / "gzip.bin").write_bytes(numcodecs.GZip(level=5).encode(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
