"""The writers the encode benchmark compares, each run in a child process of its own.

Every writer gets the same lazy source (`xr.open_zarr(source)["data"]`, dask, one timestep per
chunk) and writes with the same codec (zstd 5) and the same tile (512 px), as a user of that
tool would. Each returns facts about what it wrote for the results row.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

CHUNK = 512
LEVEL = 5
CRS = "EPSG:32631"


def pyramid_levels(height: int, width: int) -> int:
    """How many levels chronozarr writes: halve until the level fits in one chunk."""
    return 1 + max(0, math.ceil(math.log2(max(height, width) / CHUNK)))


def write_chronozarr(da: Any, out: Path) -> dict[str, Any]:
    import chronozarr

    summary = chronozarr.encode(da, out, crs=CRS, progress=False)
    return {"levels": summary.levels, "encoding": summary.encoding, "selection_ratio": summary.selection_ratio, "objects": summary.objects}


def _zstd() -> Any:
    import zarr

    return [zarr.codecs.ZstdCodec(level=LEVEL)]


def write_to_zarr(da: Any, out: Path) -> dict[str, Any]:
    encoding = {"data": {"chunks": (1, da.shape[1], CHUNK, CHUNK), "compressors": _zstd()}}
    da.to_dataset(name="data").to_zarr(out, mode="w-", zarr_format=3, consolidated=False, encoding=encoding)
    return {"levels": 1}


def write_ndpyramid(da: Any, out: Path) -> dict[str, Any]:
    """ndpyramid's pyramid_coarsen with the levels chronozarr writes (block means, partial blocks
    kept as `boundary="pad"`), stored back as the source dtype (xarray rounds the means). Each
    level is rechunked to one timestep per dask chunk: xarray refuses to write the coarsened
    chunks, which straddle 512 px Zarr chunks."""
    import ndpyramid

    levels = pyramid_levels(da.shape[2], da.shape[3])
    factors = [2**k for k in reversed(range(levels))]  # ndpyramid's level 0 is the coarsest
    tree = ndpyramid.pyramid_coarsen(da.to_dataset(name="data"), factors=factors, dims=["x", "y"], boundary="pad")
    tree = tree.map_over_datasets(lambda ds: ds.chunk({d: -1 for d in ("y", "x") if d in ds.dims}))
    encoding = {
        f"/{k}": {"data": {"chunks": (1, da.shape[1], CHUNK, CHUNK), "compressors": _zstd(), "dtype": da.dtype.name}}
        for k in range(levels)
    }
    tree.to_zarr(out, mode="w-", zarr_format=3, consolidated=False, encoding=encoding)
    return {"levels": levels}


def write_cogs(da: Any, out: Path) -> dict[str, Any]:
    """One COG per date through rio-cogeo: zstd 5 tiles of 512 px, average overviews down to the
    size of chronozarr's coarsest level, GDAL's threads on every core."""
    import numpy as np
    import rasterio
    from affine import Affine
    from rasterio.io import MemoryFile
    from rio_cogeo.cogeo import cog_translate
    from rio_cogeo.profiles import cog_profiles

    out.mkdir(parents=True)
    _, n_band, height, width = da.shape
    x, y = da["x"].values, da["y"].values
    transform = Affine(float(x[1] - x[0]), 0.0, float(x[0] - (x[1] - x[0]) / 2), 0.0, float(y[1] - y[0]), float(y[0] - (y[1] - y[0]) / 2))
    grid = {"driver": "GTiff", "width": width, "height": height, "count": n_band, "dtype": da.dtype.name, "transform": transform, "crs": CRS}
    profile = {**cog_profiles.get("zstd"), "zstd_level": LEVEL, "blockxsize": CHUNK, "blockysize": CHUNK}
    overviews = pyramid_levels(height, width) - 1
    config = {"GDAL_NUM_THREADS": "ALL_CPUS", "GDAL_TIFF_INTERNAL_MASK": "TRUE"}
    with rasterio.Env(**config):
        for t in range(da.shape[0]):
            values = np.asarray(da[t].values)
            with MemoryFile() as mem:
                with mem.open(**grid) as staging:
                    staging.write(values)
                with mem.open() as src:
                    cog_translate(src, out / f"{t:04d}.tif", profile, overview_level=overviews, overview_resampling="average",
                                  config=config, in_memory=True, quiet=True)
    return {"levels": 1 + overviews, "files_per_date": 1}


WRITERS = {"chronozarr": write_chronozarr, "to_zarr": write_to_zarr, "ndpyramid": write_ndpyramid, "cog": write_cogs}
