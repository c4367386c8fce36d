"""The readers the read benchmark compares, and the floors under their operations.

Every reader answers the same five operations on the same series: its constructor is "open",
then frame(t) (a whole level-0 timestep), cell(t) (level-0 chunk (1, 1)), history(row, col) (one
pixel at every timestep) and level3(t) (a whole level-3 timestep). The floors do the part of an
operation no reader can skip: the objects it needs, fetched or read, and decoded, and nothing else.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

CORES = os.cpu_count() or 1
HTTP_IN_FLIGHT = 16
# What a GDAL user sets for COGs over HTTP: no directory listing on open, merged ranges.
GDAL_HTTP = {"GDAL_DISABLE_READDIR_ON_OPEN": "EMPTY_DIR", "GDAL_HTTP_MERGE_CONSECUTIVE_RANGES": "YES", "GDAL_HTTP_MULTIPLEX": "YES"}


class ChronozarrReads:
    def __init__(self, location: str, level3: int) -> None:
        import chronozarr

        self.store = chronozarr.open_dataset(location)
        self.coarse_level = level3

    def frame(self, t: int) -> np.ndarray:
        return self.store.read(t)

    def cell(self, t: int) -> np.ndarray:
        return self.store.read_cell(t, 1, 1)

    def history(self, row: int, col: int) -> np.ndarray:
        return self.store.read_point(row, col)

    def level3(self, t: int) -> np.ndarray:
        return self.store.read(t, lod=self.coarse_level)

    def close(self) -> None:
        self.store.close()


class ZarrReads:
    """zarr-python's own arrays `0/data` and `{level3}/data`, with the codec pipeline in `pipeline`."""

    pipeline: str | None = None

    def __init__(self, location: str, level3: int) -> None:
        import zarr

        with zarr.config.set({"codec_pipeline.path": self.pipeline} if self.pipeline else {}):
            if location.startswith("http"):
                from zarr.storage import FsspecStore

                store = FsspecStore.from_url(location, read_only=True)
            else:
                store = zarr.storage.LocalStore(location, read_only=True)
            self.data = zarr.open_array(store=store, path="0/data", mode="r", zarr_format=3)
            self.coarse = zarr.open_array(store=store, path=f"{level3}/data", mode="r", zarr_format=3)
        self.cs = self.data.chunks[2]
        self.pipeline_class = type(self.data._async_array.codec_pipeline).__name__

    def frame(self, t: int) -> np.ndarray:
        return self.data[t]

    def cell(self, t: int) -> np.ndarray:
        cs = self.cs
        return self.data[t, :, cs : 2 * cs, cs : 2 * cs]

    def history(self, row: int, col: int) -> np.ndarray:
        return self.data[:, :, row, col]

    def level3(self, t: int) -> np.ndarray:
        return self.coarse[t]

    def close(self) -> None:
        pass


class ZarrsReads(ZarrReads):
    pipeline = "zarrs.ZarrsCodecPipeline"


class RasterioReads:
    """rasterio on the COG export: one file per date, all opened at "open" (that is the series);
    the level-3 frame is the third overview, opened on first use."""

    files: Sequence[str] = ()
    tag = 0

    def __init__(self, location: str, level3: int) -> None:
        import rasterio

        # A query of its own per reader, so GDAL's process-wide HTTP cache cannot answer one
        # reader with what another fetched (the server ignores the query).
        RasterioReads.tag += 1
        remote = location.startswith("http")
        suffix = f"?reader={RasterioReads.tag}" if remote else ""
        self.paths = [f"/vsicurl/{location}/{name}{suffix}" if remote else f"{location}/{name}" for name in self.files]
        if remote:
            from rasterio.env import set_gdal_config

            for key, value in GDAL_HTTP.items():  # process-wide; readers overlap, Env stacks cannot
                set_gdal_config(key, value)
        self.datasets = [rasterio.open(p) for p in self.paths]
        self.overview = level3 - 1
        self.coarse: dict[int, Any] = {}
        self.cs = self.datasets[0].block_shapes[0][0]

    def frame(self, t: int) -> np.ndarray:
        return self.datasets[t].read()

    def cell(self, t: int) -> np.ndarray:
        from rasterio.windows import Window

        return self.datasets[t].read(window=Window(self.cs, self.cs, self.cs, self.cs))

    def history(self, row: int, col: int) -> np.ndarray:
        from rasterio.windows import Window

        return np.stack([ds.read(window=Window(col, row, 1, 1))[:, 0, 0] for ds in self.datasets])

    def level3(self, t: int) -> np.ndarray:
        import rasterio

        if t not in self.coarse:
            self.coarse[t] = rasterio.open(self.paths[t], overview_level=self.overview)
        return self.coarse[t].read()

    def close(self) -> None:
        for ds in [*self.datasets, *self.coarse.values()]:
            ds.close()


# ---------------------------------------------------------------- what each operation needs


def store_keys(op: str, i: int, shape: Sequence[int], grids: dict[int, tuple[int, int]], cs: int, level3: int) -> list[str]:
    """The chunk keys of a `none` store (level/data/c/t/0/row/col) that operation `op` at `i` reads."""
    n_time, _, height, width = shape
    t = i % n_time
    if op == "frame":
        rows, cols = grids[0]
        return [f"0/data/c/{t}/0/{r}/{c}" for r in range(rows) for c in range(cols)]
    if op == "cell":
        return [f"0/data/c/{t}/0/1/1"]
    if op == "history":
        row, col = history_pixel(i, height, width, cs)
        return [f"0/data/c/{s}/0/{row // cs}/{col // cs}" for s in range(n_time)]
    rows, cols = grids[level3]
    return [f"{level3}/data/c/{t}/0/{r}/{c}" for r in range(rows) for c in range(cols)]


def history_pixel(i: int, height: int, width: int, cs: int = 512) -> tuple[int, int]:
    """The pixel of run i: a different level-0 cell for each run (as far as there are cells), so
    no reader finds the previous run's chunk in a cache."""
    rows, cols = -(-height // cs), -(-width // cs)
    cell = (5 * i + 1) % (rows * cols)
    row = min(height - 1, (cell // cols) * cs + (37 * i) % cs)
    col = min(width - 1, (cell % cols) * cs + (53 * i) % cs)
    return row, col


def cog_tiles(op: str, i: int, shape: Sequence[int], files: Sequence[str], directory: Path, cs: int, level3: int) -> list[tuple[str, int, int]]:
    """(file, offset, size) of the COG tiles operation `op` at `i` reads (pixel interleaved)."""
    import rasterio

    n_time, _, height, width = shape
    t = i % n_time

    def tiles(name: str, overview: int | None, cells: list[tuple[int, int]] | None) -> list[tuple[str, int, int]]:
        kwargs = {} if overview is None else {"overview_level": overview}
        with rasterio.open(directory / name, **kwargs) as ds:
            bh, bw = ds.block_shapes[0]
            if cells is None:
                cells = [(r, c) for r in range(-(-ds.height // bh)) for c in range(-(-ds.width // bw))]
            out = []
            for r, c in cells:
                offset = ds.get_tag_item(f"BLOCK_OFFSET_{c}_{r}", "TIFF", bidx=1)
                size = ds.get_tag_item(f"BLOCK_SIZE_{c}_{r}", "TIFF", bidx=1)
                out.append((name, int(offset), int(size)))
            return out

    if op == "frame":
        return tiles(files[t], None, None)
    if op == "cell":
        return tiles(files[t], None, [(1, 1)])
    if op == "history":
        row, col = history_pixel(i, height, width, cs)
        return [tile for name in files for tile in tiles(name, None, [(row // cs, col // cs)])]
    return tiles(files[t], level3 - 1, None)


# ---------------------------------------------------------------- decoding alone


def zstd_decoder(dtype: str, cs: int, n_band: int) -> Callable[[bytes], np.ndarray]:
    import numcodecs

    codec = numcodecs.Zstd()
    return lambda blob: np.frombuffer(codec.decode(blob), dtype=dtype).reshape(n_band, cs, cs)


def deflate_decoder(dtype: str, cs: int, n_band: int) -> Callable[[bytes], np.ndarray]:
    """DEFLATE, then horizontal differencing undone (predictor 2, pixel interleaved)."""

    def decode(blob: bytes) -> np.ndarray:
        values = np.frombuffer(zlib.decompress(blob), dtype=dtype).reshape(cs, cs, n_band)
        return np.cumsum(values, axis=1, dtype=values.dtype)

    return decode


def decode_all(blobs: list[bytes], decode: Callable[[bytes], np.ndarray]) -> int:
    """Decode every blob on a pool of one thread per core; the decoded bytes."""
    with ThreadPoolExecutor(max_workers=CORES) as pool:
        return sum(a.nbytes for a in pool.map(decode, blobs))


def fetch_all(getters: list[Callable[[], bytes]], decode: Callable[[bytes], np.ndarray] | None, in_flight: int) -> int:
    """Fetch (and decode, when given a decoder) every object, `in_flight` at a time."""
    step = (lambda g: decode(g())) if decode else (lambda g: np.frombuffer(g(), dtype=np.uint8))
    with ThreadPoolExecutor(max_workers=in_flight) as pool:
        return sum(a.nbytes for a in pool.map(step, getters))


# ---------------------------------------------------------------- xarray + dask


DASK_MEAN_TOOLS = {
    "chronozarr": "xr.open_dataset(store, engine='chronozarr', chunks={}, physical=False)['data'].mean('time'), dask's threaded scheduler",
    "xr.open_zarr": "xr.open_zarr(store/0, consolidated=False)['data'].mean('time') on the same objects, dask's threaded scheduler",
}


def dask_mean(name: str, path: Path) -> np.ndarray:
    """The mean over time of level 0 through dask, one stored chunk per dask chunk."""
    import xarray as xr

    if name == "chronozarr":
        ds = xr.open_dataset(path, engine="chronozarr", chunks={}, physical=False)
    else:
        ds = xr.open_zarr(path / "0", consolidated=False, zarr_format=3)
    with ds:
        return ds["data"].mean("time").values
