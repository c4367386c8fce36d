"""Write chronozarr test stores with the Python writer and dump the values they must hold,
computed from the source arrays (tests/expected.py's pyramid: level 0 is the source, each level
above the spec's block means), never read back through the Python reader.

Usage: python fixtures.py OUT_DIR

For every store under OUT_DIR/stores/NAME it writes OUT_DIR/expected/NAME.bin (each cell's data,
mask and coverage, cropped to the array, little-endian, concatenated) and an entry in
OUT_DIR/index.json giving the offset and shape of each piece and the store's metadata, so the JS
tests compare every cell of every timestep at every level with the source.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import xarray as xr

import chronozarr

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from expected import level_count, pyramid  # noqa: E402

N_TIME, N_BAND, HEIGHT, WIDTH, CS = 7, 2, 37, 45, 16


def series(dtype: str, seed: int) -> xr.DataArray:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 200, size=(N_BAND, HEIGHT, WIDTH)).astype(np.int64)
    steps = [base + rng.integers(-40, 40, size=base.shape) * (t % 3) for t in range(N_TIME)]
    values = np.stack(steps)
    if dtype == "uint8":
        # Values near both ends of the range so modular residuals wrap.
        values = np.where(values % 7 == 0, 255 - values % 5, values % 256)
    elif dtype == "uint16":
        values = np.where(values % 11 == 0, 65535 - values % 9, values * 97)
    elif dtype == "int16":
        values = values * 50 - 4000
    values = values.astype(dtype)
    if dtype == "float32":
        values = (values.astype(np.float32) * np.float32(0.37)) - np.float32(12.5)
    times = np.datetime64("2024-01-01", "ns") + np.arange(N_TIME) * np.timedelta64(30, "D")
    return xr.DataArray(
        values,
        dims=("time", "band", "y", "x"),
        coords={
            "time": times,
            "band": [f"B{i}" for i in range(N_BAND)],
            "y": 5_000_000.0 - (np.arange(HEIGHT) + 0.5) * 10.0,
            "x": 600_000.0 + (np.arange(WIDTH) + 0.5) * 10.0,
        },
    )


def planes(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + 1000)
    mask = (rng.random((N_TIME, HEIGHT, WIDTH)) > 0.2).astype(np.uint8)
    coverage = rng.integers(0, 9, size=(N_TIME, HEIGHT, WIDTH)).astype(np.uint16)
    return mask, coverage


CASES = {
    "u16-sd-plain-zstd": dict(dtype="uint16", encoding="star-delta", anchor_interval=3, codec="zstd", mask=True, coverage=True),
    "u16-sd-shard-zstd": dict(dtype="uint16", encoding="star-delta", anchor_interval=3, codec="zstd", shard=True, shard_time=2, mask=True, coverage=True),
    "u8-sd-plain-blosc": dict(dtype="uint8", encoding="star-delta", anchor_interval=4, codec="blosc", blosc_cname="lz4", blosc_shuffle="shuffle"),
    "u8-none-shard-gzip": dict(dtype="uint8", encoding="none", codec="gzip", shard=True, shard_time=3),
    "i16-none-plain-blosc": dict(dtype="int16", encoding="none", codec="blosc", blosc_cname="zstd", blosc_shuffle="noshuffle", coverage=True),
    "f32-none-shard-zstd": dict(dtype="float32", encoding="none", codec="zstd", shard=True, mask=True),
    "u16-none-plain-gzip": dict(dtype="uint16", encoding="none", codec="gzip", mask=True),
    "u16-sd-shard-blosc": dict(dtype="uint16", encoding="star-delta", anchor_interval=2, codec="blosc", blosc_cname="zstd", blosc_shuffle="shuffle", shard=True, shard_time=4),
}


Source = tuple[np.ndarray, np.ndarray | None, np.ndarray | None]


def write_case(stores: Path, name: str, case: dict, seed: int) -> tuple[Path, Source]:
    """The store, and the (data, mask, coverage) it was written from (None for a plane it lacks)."""
    case = dict(case)
    da = series(case.pop("dtype"), seed)
    mask, coverage = planes(seed)
    options = {k: v for k, v in case.items() if k not in ("mask", "coverage")}
    if case.get("mask"):
        options["mask"] = mask
    if case.get("coverage"):
        options["coverage"] = coverage
    path = stores / name
    chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=CS, progress=False, **options)
    # Coverage is stored as uint8 (spec 2.5); these counts are all below 255.
    return path, (da.values, mask if case.get("mask") else None, coverage.astype(np.uint8) if case.get("coverage") else None)


def make_v01(stores: Path, source: Path, name: str) -> Path:
    """A copy whose root zarr.json looks like a v0.1 store: no mirrors of levels or band names, bands
    as strings, no consolidated metadata, no shard_bytes."""
    path = stores / name
    shutil.copytree(source, path)
    root = json.loads((path / "zarr.json").read_text())
    block = root["attributes"]["chronozarr"]
    block["spec_version"] = "0.1.0"
    block["bands"] = [b["name"] for b in block["bands"]]
    for key in ("levels", "band_names", "shard_bytes", "mask_variable", "coverage_variable"):
        block.pop(key, None)
    root.pop("consolidated_metadata", None)
    (path / "zarr.json").write_text(json.dumps(root, indent=2))
    return path


def dump(path: Path, source: Source, out: Path, planes: bool = True) -> dict:
    """`planes` False: the store does not declare its mask and coverage (the v0.1 copy), so only
    the data is expected, still as the writer reduced it with the mask."""
    nodata = json.loads((path / "zarr.json").read_text())["attributes"]["chronozarr"]["nodata"]
    truth = pyramid(*source, nodata, level_count(HEIGHT, WIDTH, CS))
    store = chronozarr.open_dataset(path)  # the metadata the JS reader must agree with
    pieces: list[bytes] = []
    offset = 0
    entries = []

    def add(kind: str, lod: int, t: int, row: int, col: int, values: np.ndarray | None) -> None:
        nonlocal offset
        if values is None:
            return
        data = np.ascontiguousarray(values).astype(values.dtype.newbyteorder("<")).tobytes()
        entries.append([kind, lod, t, row, col, offset, list(values.shape)])
        pieces.append(data)
        offset += len(data)

    assert len(truth) == len(store.levels), f"{path.name}: {len(store.levels)} levels, the spec's rule gives {len(truth)}"
    for lod, (data, mask, coverage) in enumerate(truth):
        rows, cols = -(-data.shape[2] // CS), -(-data.shape[3] // CS)
        for t in range(N_TIME):
            for r in range(rows):
                for c in range(cols):
                    cell = (slice(r * CS, (r + 1) * CS), slice(c * CS, (c + 1) * CS))
                    add("data", lod, t, r, c, data[t][(slice(None), *cell)])
                    add("mask", lod, t, r, c, None if mask is None or not planes else mask[t][cell])
                    add("coverage", lod, t, r, c, None if coverage is None or not planes else coverage[t][cell])
    out.write_bytes(b"".join(pieces))
    info = {
        "dtype": str(store.dtype),
        "encoding": store.encoding,
        "times": list(store.times_iso),
        "bands": [{"name": b.name, "scale": b.scale, "offset": b.offset} for b in store.bands],
        "nodata": store.nodata,
        "levels": [
            {"shape": list(l.shape), "grid": list(l.grid), "chunkSize": l.chunk_size, "resolution": l.resolution,
             "transform": list(l.transform), "sharded": l.sharded}
            for l in store.levels
        ],
        "hasMask": store.has_mask,
        "hasCoverage": store.has_coverage,
        "entries": entries,
    }
    store.close()
    return info


def main(out_dir: str) -> None:
    out = Path(out_dir)
    stores, expected = out / "stores", out / "expected"
    for d in (stores, expected):
        d.mkdir(parents=True, exist_ok=True)
    index = {}
    written = {name: write_case(stores, name, case, seed) for seed, (name, case) in enumerate(CASES.items())}
    shard_path, shard_source = written["u16-sd-shard-zstd"]
    written["v01-sd-shard"] = (make_v01(stores, shard_path, "v01-sd-shard"), shard_source)
    for name, (path, source) in written.items():
        index[name] = dump(path, source, expected / f"{name}.bin", planes=not name.startswith("v01"))
    (out / "index.json").write_text(json.dumps(index))


if __name__ == "__main__":
    main(sys.argv[1])
