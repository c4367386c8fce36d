"""Stores with the time-major history array (docs/format-history.md), written by chronozarr's
writer (`encode(history=True)`) and by a second writer: zarr-python from the format text, over a
store `chronozarr.encode` wrote without it; and the expected pixel histories from the numpy
source, for the JS reader's history tests.

Usage: python history_zarr.py OUT_DIR

OUT_DIR/stores/NAME is each store; OUT_DIR/index.json gives per store its shape, declaration and
the source's values of a few pixels: {"name": {"shape", "history", "pixels": [{"y", "x",
"values": [[band values] per timestep], "mask": [0 or 1 per timestep] (masked stores)}]}}.
The masked stores (MASKED) get a random mask, so chronozarr's writer adds the history's mask copy.

`add_history(path, values, time_cap, p, s)` is also what the browser tests and the benchmark use
to give a store the array.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import xarray as xr
import zarr
from zarr.codecs import BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ZstdCodec
from zarr.storage import LocalStore

import chronozarr

COMPRESSORS = {
    "zstd": lambda c, item: ZstdCodec(level=c.get("level", 3)),
    "gzip": lambda c, item: GzipCodec(level=c.get("level", 5)),
    "blosc": lambda c, item: BloscCodec(cname=c.get("cname", "zstd"), clevel=c.get("clevel", 5), shuffle=c.get("shuffle", "noshuffle"), typesize=item),
}


def level0_codecs(doc: dict) -> list:
    """The compressor chain of level 0's data array (inside its shard when sharded), as zarr codecs."""
    codecs = doc["codecs"]
    if codecs[0]["name"] == "sharding_indexed":
        codecs = codecs[0]["configuration"]["codecs"]
    item = np.dtype(doc["data_type"]).itemsize
    out = []
    for codec in codecs[1:]:
        if codec["name"] == "crc32c":
            out.append(Crc32cCodec())
        else:
            out.append(COMPRESSORS[codec["name"]](codec.get("configuration", {}), item))
    return out


def add_history(path: Path, values: np.ndarray, time_cap: int, p: int, s: int) -> dict:
    """Write `values` (the true (time, band, y, x) values of level 0) as the history array of the
    store at `path` and declare it in the root block and the consolidated metadata; returns the
    declaration."""
    root_path = path / "zarr.json"
    root = json.loads(root_path.read_text())
    data_name = root["attributes"]["chronozarr"].get("variable", "data")
    level0 = json.loads((path / "0" / data_name / "zarr.json").read_text())
    n_time, n_band, height, width = level0["shape"]
    assert values.shape == (n_time, n_band, height, width)
    dims = level0["dimension_names"]
    attributes = {"_ARRAY_DIMENSIONS": dims}
    if "nodata" in level0.get("attributes", {}):
        attributes["nodata"] = level0["attributes"]["nodata"]
    array = zarr.create_array(
        store=LocalStore(path),
        name="history",
        shape=values.shape,
        dtype=values.dtype,
        chunks=(time_cap, n_band, p, p),
        shards=(time_cap, n_band, s, s),
        fill_value=level0["fill_value"],
        dimension_names=dims,
        attributes=attributes,
        serializer=BytesCodec(endian="little"),
        compressors=level0_codecs(level0),
        zarr_format=3,
    )
    array[...] = values
    shard_bytes = {}
    for shard in sorted((path / "history" / "c").rglob("*")):
        if shard.is_file():
            tb, _band, r, c = shard.relative_to(path / "history" / "c").parts
            shard_bytes[f"{tb}/{r}/{c}"] = shard.stat().st_size
    declaration = {
        "version": "1.0",
        "path": "history",
        "time_cap": time_cap,
        "chunk_shape": [time_cap, n_band, p, p],
        "shard_shape": [time_cap, n_band, s, s],
        "shard_bytes": shard_bytes,
    }
    # zarr-python may have rewritten the root as a plain group: the chronozarr root goes back,
    # with the declaration and the array's document in its consolidated metadata.
    root["attributes"]["chronozarr"]["history"] = declaration
    if "consolidated_metadata" in root:
        root["consolidated_metadata"]["metadata"]["history"] = json.loads((path / "history" / "zarr.json").read_text())
    root_path.write_text(json.dumps(root, indent=2))
    return declaration


def series(dtype: str, n_time: int, n_band: int, height: int, width: int, seed: int) -> xr.DataArray:
    """A random series with an all-zero block (a history shard with no stored inner chunk) and an
    all-zero inner chunk elsewhere (an empty index entry)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(100, 3000, size=(n_band, height, width))
    trend = rng.integers(-60, 60, size=(n_time, n_band, 1, 1)) * np.arange(n_time)[:, None, None, None] % 500
    values = (base[None] + trend + rng.integers(0, 40, size=(n_time, n_band, height, width))).astype(dtype)
    if dtype == "float32":
        values = values * np.float32(0.25) - np.float32(7.5)
    values[:, :, :32, :32] = 0
    values[:, :, 32:48, 48:64] = 0
    times = np.datetime64("2020-01-01", "ns") + np.arange(n_time) * np.timedelta64(31, "D")
    return xr.DataArray(
        values,
        dims=("time", "band", "y", "x"),
        coords={
            "time": times,
            "band": [f"B{i}" for i in range(n_band)],
            "y": 5_000_000.0 - (np.arange(height) + 0.5) * 10.0,
            "x": 600_000.0 + (np.arange(width) + 0.5) * 10.0,
        },
    )


# name: (dtype, encode options, time_cap, p, s); with time_cap None, chronozarr's own writer
# (`encode(history=True)`) writes the array at its defaults instead of zarr-python.
STORES = {
    "writer-star": ("uint16", {"encoding": "star-delta", "anchor_interval": 4, "codec": "zstd", "checksum": True}, None, None, None),
    "writer-none-blocks": ("uint16", {"encoding": "none", "codec": "blosc", "history_time": 16}, None, None, None),
    "none-one-block": ("uint16", {"encoding": "none", "codec": "zstd"}, 64, 16, 32),
    "star-blocks": ("uint16", {"encoding": "star-delta", "anchor_interval": 5, "codec": "blosc", "checksum": True}, 16, 8, 64),
    "float-gzip": ("float32", {"encoding": "none", "codec": "gzip", "shard": True}, 64, 16, 32),
    "writer-masked": ("uint16", {"encoding": "star-delta", "anchor_interval": 4, "codec": "zstd", "history_time": 16}, None, None, None),
    "writer-masked-one-block": ("uint16", {"encoding": "none", "codec": "blosc", "checksum": True}, None, None, None),
    "writer-short": ("uint16", {"encoding": "star-delta", "anchor_interval": 2, "codec": "zstd"}, None, None, None),  # T = 4
}
MASKED = ("writer-masked", "writer-masked-one-block")
N_TIME = {"writer-short": 3}  # stores of fewer than the 40 dates of the others


def random_mask(shape: tuple[int, ...], seed: int) -> xr.DataArray:
    """A (time, y, x) mask, about one date in four invalid, all invalid in one inner chunk."""
    mask = (np.random.default_rng(seed).random(shape) > 0.25).astype(np.uint8)
    mask[:, 48:64, 0:16] = 0
    return xr.DataArray(mask, dims=("time", "y", "x"))


def main(out_dir: str) -> None:
    out = Path(out_dir)
    index = {}
    rng = np.random.default_rng(7)
    for seed, (name, (dtype, options, time_cap, p, s)) in enumerate(STORES.items()):
        da = series(dtype, N_TIME.get(name, 40), 3, 70, 90, seed)
        path = out / "stores" / name
        mask = random_mask((40, 70, 90), seed) if name in MASKED else None
        if time_cap is None:
            chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=32, nodata=None, progress=False, history=True, mask=mask, **options)
            declaration = json.loads((path / "zarr.json").read_text())["attributes"]["chronozarr"]["history"]
        else:
            chronozarr.encode(da, path, crs="EPSG:32631", chunk_size=32, nodata=None, progress=False, **options)
            declaration = add_history(path, da.values, time_cap, p, s)
        picks = [(0, 0), (69, 89), (40, 50), (31, 31), (32, 32), (69, 0), (0, 89)]
        picks += [(int(y), int(x)) for y, x in zip(rng.integers(0, 70, 8), rng.integers(0, 90, 8))]
        picks += [(50, 5)] if mask is not None else []  # in the inner chunk the mask copy omits
        pixels = [{"y": y, "x": x, "values": da.values[:, :, y, x].tolist()} for y, x in picks]
        if mask is not None:
            for px in pixels:
                px["mask"] = mask.values[:, px["y"], px["x"]].tolist()
        index[name] = {"shape": list(da.shape), "dtype": dtype, "history": declaration, "pixels": pixels}
    (out / "index.json").write_text(json.dumps(index))


if __name__ == "__main__":
    main(sys.argv[1])
