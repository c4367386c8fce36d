"""`chronozarr encode INPUT OUT`: open a NetCDF file or Zarr store and write a new store from it."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import InputError
from ..spec.metadata import DTYPES
from ..write.encode import encode
from .inputs import open_input

HELP = """Write a new chronozarr store OUT from a NetCDF file or Zarr store (v2 or v3).

The series is one (time, band, y, x) variable, found on its own when the input has exactly one,
or several (time, y, x) variables stacked as bands with --variables. Spatial dims may be y/x,
lat/lon or latitude/longitude; south-up grids are flipped. The CRS comes from --crs, else from
the input's CF grid_mapping; lat/lon grids default to EPSG:4326. OUT must be new or empty.

Values are stored as the input stores them: a CF fill value (_FillValue, missing_value) becomes
the nodata and CF packing (scale_factor, add_offset) each band's scale and offset; --cast reads
the decoded values instead. A chronozarr store as INPUT is read reconstructed (--group: level).
"""

EPILOG = """\b
Examples:
  chronozarr encode scenes.nc my_store --variables B02,B03,B04,B08 --crs EPSG:32631
  chronozarr encode cube.zarr my_store --variable reflectance --encoding none --shard
  chronozarr encode sst.nc sst_store --variable sst --cast float32 --mask-variable valid
"""



class Encoding(str, Enum):
    auto = "auto"
    none = "none"
    star_delta = "star-delta"


class Codec(str, Enum):
    zstd = "zstd"
    blosc = "blosc"
    gzip = "gzip"


def register(app: typer.Typer) -> None:
    app.command(
        "encode", help=HELP, epilog=EPILOG, short_help="Write a store from a NetCDF file or Zarr store.", no_args_is_help=True
    )(encode_command)


def encode_command(
    input: str = typer.Argument(..., metavar="INPUT", help="NetCDF file or Zarr store (directory or URL).", show_default=False),
    out: Path = typer.Argument(..., metavar="OUT", help="New store directory; must not exist or be empty.", show_default=False),
    crs: Optional[str] = typer.Option(None, metavar="EPSG:CODE", help="CRS of the grid, e.g. EPSG:32631; default: read from the input."),
    variable: Optional[str] = typer.Option(None, metavar="NAME", help="The (time, band, y, x) variable; default: the only 4-D one."),
    variables: Optional[str] = typer.Option(None, metavar="A,B,...", help="Comma-separated (time, y, x) variables stacked as bands."),
    mask_variable: Optional[str] = typer.Option(None, metavar="NAME", help="(time, y, x) validity variable: 1 valid, 0 invalid."),
    coverage_variable: Optional[str] = typer.Option(None, metavar="NAME", help="(time, y, x) count of observations per pixel."),
    group: Optional[str] = typer.Option(None, metavar="PATH", help="Group inside the input that holds the variables."),
    cast: Optional[str] = typer.Option(
        None, metavar="DTYPE", help=f"Convert the data first: one of {', '.join(DTYPES)}. Integer casts refuse values they would change."
    ),
    encoding: Encoding = typer.Option(Encoding.auto, help="Temporal encoding; auto keeps star-delta where it saves bytes."),
    anchor_interval: int = typer.Option(6, min=1, help="Timesteps per anchor under star-delta."),
    chunk_size: int = typer.Option(512, min=2, help="Chunk edge in pixels (even; 256 or 512)."),
    shard: bool = typer.Option(False, "--shard/--no-shard", help="Group the timesteps of a cell into shards."),
    shard_time: Optional[int] = typer.Option(None, min=1, help="Timesteps per shard (needs --shard); default: all."),
    codec: Codec = typer.Option(Codec.zstd, help="Compression codec."),
    level: Optional[int] = typer.Option(None, help="Compression level; default 5."),
    blosc_cname: Optional[str] = typer.Option(None, help="Blosc compressor (with --codec blosc); default zstd."),
    blosc_shuffle: Optional[str] = typer.Option(None, help="noshuffle or shuffle (with --codec blosc)."),
    nodata: Optional[str] = typer.Option(
        None, metavar="NUMBER|none",
        help="Nodata value, or 'none' for no nodata; default: the input's fill value, else 0 for uint8/uint16 and none otherwise."
    ),
    bands_json: Optional[Path] = typer.Option(
        None, help='JSON list of bands: [{"name", "common_name", "scale", "offset", "units"}, ...]; default: from the '
        "input's CF packing (scale_factor, add_offset) or band names.",
    ),
    provenance_json: Optional[Path] = typer.Option(None, help="JSON object: sources, composite, gap_fill, notes."),
    max_levels: Optional[int] = typer.Option(None, min=1, help="Stop the pyramid after this many levels."),
    workers: Optional[int] = typer.Option(None, min=1, help="Compression threads; default: all cores."),
    progress: Optional[bool] = typer.Option(
        None, "--progress/--no-progress", help="Progress bar; default: only when stderr is a terminal.", show_default=False
    ),
) -> None:
    codec_options = _blosc_options(codec.value, blosc_cname, blosc_shuffle)
    if shard_time is not None and not shard:
        raise InputError("--shard-time requires --shard (the default layout is unsharded)")
    given = {"nodata": _nodata(nodata)} if nodata is not None else {}
    if bands_json:
        given["bands"] = _json_file(bands_json, "--bands-json", list)
    provenance = _json_file(provenance_json, "--provenance-json", dict) if provenance_json else None
    with open_input(input, variable, variables, mask_variable, coverage_variable, group, crs, cast) as source:
        summary = encode(
            source.data, out, **(source.encode_arguments() | given), encoding=encoding.value,
            anchor_interval=anchor_interval, chunk_size=chunk_size, shard=shard, shard_time=shard_time,
            codec=codec.value, level=level, **codec_options, provenance=provenance, max_levels=max_levels,
            workers=workers, progress=progress,
        )
    typer.echo(str(summary))


def _nodata(text: str) -> Any:
    """None for 'none', else the number."""
    if text.strip().lower() in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise InputError(f"--nodata must be a number or 'none', got {text!r}") from None


def _blosc_options(codec: str, cname: str | None, shuffle: str | None) -> dict[str, str]:
    if codec != "blosc" and (cname is not None or shuffle is not None):
        raise InputError("--blosc-cname and --blosc-shuffle apply only with --codec blosc")
    return {"blosc_cname": cname or "zstd", "blosc_shuffle": shuffle or "noshuffle"}


def _json_file(path: Path, option: str, kind: type) -> Any:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{option} {path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(value, kind):
        expected = "a list of band objects" if kind is list else "an object"
        raise InputError(f"{option} {path} must hold {expected}, got {type(value).__name__}")
    return value
