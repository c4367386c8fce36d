"""What one raster file declares, read with GDAL (rasterio): size, bands, dtype, georeferencing,
nodata, scale and offset, names and colour interpretation.

Nothing is read here but the header; the pixels are read later, one file per timestep
(inputs/frames.py).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, Unreadable
from ..extras import import_extra

Affine6 = tuple[float, float, float, float, float, float]
HEADER_READERS = 8
PALETTE_FIX = (
    "Expand it to RGB first, for example `gdal_translate -expand rgba in.png out.png`, or save the frames as RGB"
)


@dataclass(frozen=True)
class Raster:
    """The header of one file. `transform` is None when the file has no georeferencing (a PNG
    without a world file or .aux.xml); `crs` is the WKT of the CRS it declares, None for none."""

    uri: str
    driver: str
    width: int
    height: int
    dtypes: tuple[str, ...]
    transform: Affine6 | None
    crs: str | None
    nodata: tuple[float | None, ...]
    scales: tuple[float, ...]
    offsets: tuple[float, ...]
    units: tuple[str | None, ...]
    descriptions: tuple[str | None, ...]
    colors: tuple[str, ...]  # GDAL colour interpretation per band: "gray", "red", "alpha", "palette", ...

    @property
    def count(self) -> int:
        return len(self.dtypes)

    @property
    def alpha(self) -> int | None:
        """The 1-based index of the alpha band, which is validity rather than data."""
        return self.colors.index("alpha") + 1 if "alpha" in self.colors else None

    @property
    def data_bands(self) -> tuple[int, ...]:
        """1-based indexes of the bands that hold data."""
        return tuple(i for i in range(1, self.count + 1) if i != self.alpha)


def rasterio_module() -> Any:
    """rasterio, or an error saying how to install it."""
    return import_extra("rasterio", "geo", "reading raster files (GeoTIFF, COG, PNG)")


def read_headers(uris: Sequence[str]) -> list[Raster | Unreadable]:
    """The headers of the files, several read at once (a remote header costs a request or two);
    an unreadable file gives its Unreadable error in its place, for the caller to raise or skip."""
    from rasterio.errors import NotGeoreferencedWarning

    def header_or_error(uri: str) -> Raster | Unreadable:
        try:
            return read_header(uri)
        except Unreadable as exc:
            return exc

    with warnings.catch_warnings(), ThreadPoolExecutor(max_workers=max(1, min(HEADER_READERS, len(uris)))) as pool:
        # A frame without georeferencing is expected (--bounds places it); it is told by its identity transform.
        warnings.simplefilter("ignore", NotGeoreferencedWarning)
        return list(pool.map(header_or_error, uris))


def read_header(uri: str) -> Raster:
    """The header of the file at `uri`, whose last block is decoded too (a truncated file fails
    here, not halfway through the encode); raises Unreadable, or InputError for a palette PNG."""
    rasterio = rasterio_module()
    from rasterio.errors import RasterioError

    try:
        with rasterio.open(uri) as ds:
            raster = _header(uri, ds)
            if raster.driver in ("GTiff", "COG"):  # PNG and JPEG decode whole for any block: left to the read
                _decode_last_block(ds)
    except RasterioError as exc:
        raise Unreadable(uri, str(exc)) from None
    if raster.driver == "PNG" and "palette" in raster.colors:
        raise InputError(
            f"cannot open source {uri}: it is a palette (indexed colour) PNG, so its values are palette indices, "
            f"not colours. {PALETTE_FIX}"
        )
    return raster


def _decode_last_block(ds: Any) -> None:
    from rasterio.windows import Window

    rows, cols = ds.block_shapes[0]
    top, left = (ds.height - 1) // rows * rows, (ds.width - 1) // cols * cols
    ds.read(ds.count, window=Window(left, top, min(cols, ds.width - left), min(rows, ds.height - top)))


def _header(uri: str, ds: Any) -> Raster:
    # GDAL reports a file without georeferencing as the identity transform, which is south-up and
    # so never a grid a store could take.
    not_georeferenced = ds.transform.is_identity
    crs = ds.crs.to_wkt() if ds.crs else None
    return Raster(
        uri=uri,
        driver=ds.driver,
        width=ds.width,
        height=ds.height,
        dtypes=tuple(ds.dtypes),
        transform=None if not_georeferenced else tuple(ds.transform)[:6],
        crs=crs,
        nodata=tuple(None if v is None or math.isnan(v) else v for v in ds.nodatavals),
        scales=tuple(float(s) for s in ds.scales),
        offsets=tuple(float(o) for o in ds.offsets),
        units=tuple(u or None for u in ds.units),
        descriptions=tuple(d or None for d in ds.descriptions),
        colors=tuple(c.name for c in ds.colorinterp),
    )
