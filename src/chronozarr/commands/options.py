"""Options that several commands share, defined once: the input options of a NetCDF or Zarr
series and the writer options of a new store (`encode` and `convert` both take them).

`with_options` appends a group to a command's signature, where typer finds it; the command gets
the values in `**options` and turns them into API arguments with `input_arguments` and
`writer_arguments`, so both commands check and pass them the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import typer

from ..buckets import is_bucket_url
from ..errors import InputError
from ..format.codecs import CODEC_NAMES, DEFAULT_CODEC, DEFAULT_LEVEL
from ..format.metadata import DTYPES
from ..format.zarrjson import parse_json

F = TypeVar("F", bound=Callable[..., Any])


class Encoding(StrEnum):
    auto = "auto"
    none = "none"
    star_delta = "star-delta"


Codec = StrEnum("Codec", {name: name for name in CODEC_NAMES})  # type: ignore[misc]  # members from format/codecs' table: mypy wants literal members


def progress_option() -> Any:
    """--progress/--no-progress, as every long-running command takes it."""
    return typer.Option(None, "--progress/--no-progress", help="Progress bar; default: only when stderr is a terminal.", show_default=False)


def endpoint_option(target: str = "STORE") -> Any:
    """--endpoint, for the commands that read or write a store at an s3://, gs:// or az:// URL."""
    return typer.Option(
        None, "--endpoint", metavar="URL",
        help=f"Another service speaking the API of an s3://, gs:// or az:// {target}: an S3-compatible endpoint (R2, MinIO), "
        "a GCS base URL (fake-gcs-server), an Azure blob service URL (Azurite: http://127.0.0.1:10000/devstoreaccount1); "
        "default: the provider's, or its environment variable (AWS_ENDPOINT_URL, GOOGLE_BASE_URL, AZURE_STORAGE_ENDPOINT).",
    )


def store_location(store: str, endpoint: str | None) -> Any:
    """STORE as the reading commands take it: with --endpoint, the bucket store on that service."""
    if endpoint is None:
        return store
    if not is_bucket_url(store):
        raise InputError(f"--endpoint is for s3://, gs:// and az:// stores, and {store!r} is not one")
    from ..store.bucket import BucketStore

    return BucketStore(store, endpoint=endpoint)


def _option(name: str, annotation: Any, info: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation)


INPUT_OPTIONS = (
    _option("crs", str | None, typer.Option(
        None, metavar="EPSG:CODE", help="The CRS the input is in; replaces what it declares (default: read from the input)."
    )),
    _option("variable", str | None, typer.Option(None, metavar="NAME", help="The (time, band, y, x) variable; default: the only 4-D one.")),
    _option("variables", str | None, typer.Option(None, metavar="A,B,...", help="Comma-separated (time, y, x) variables stacked as bands.")),
    _option("mask_variable", str | None, typer.Option(None, metavar="NAME", help="(time, y, x) validity variable: 1 valid, 0 invalid.")),
    _option("mask_valid", str | None, typer.Option(
        None, metavar="V,W,...", help="The values of --mask-variable that mean valid (quality flags: e.g. 0,1); every other is invalid.",
    )),
    _option("coverage_variable", str | None, typer.Option(None, metavar="NAME", help="(time, y, x) count of observations per pixel.")),
    _option("group", str | None, typer.Option(None, metavar="PATH", help="Group inside the input that holds the variables.")),
    _option("time_from", str | None, typer.Option(
        None, metavar="ATTR|/PATH", help="A glob of granules: each file's date from this global attribute or /path/to/variable "
        "(default: its time_coverage_start attribute).",
    )),
    _option("cast", str | None, typer.Option(
        None, metavar="DTYPE", help=f"Convert the data first: one of {', '.join(DTYPES)}. Integer casts refuse values they would change."
    )),
    _option("lossy", bool, typer.Option(
        False, "--lossy", help="Let a --cast to float32 change values (rounding); the summary and provenance count them.",
    )),
)

WRITER_OPTIONS = (
    _option("encoding", Encoding, typer.Option(Encoding.auto, help="Temporal encoding; auto keeps star-delta where it saves bytes.")),
    _option("anchor_interval", int, typer.Option(6, min=1, help="Timesteps per anchor under star-delta.")),
    _option("chunk_size", int, typer.Option(512, min=2, help="Chunk edge in pixels (even; 256 or 512).")),
    _option("shard", bool, typer.Option(False, "--shard/--no-shard", help="Group the timesteps of a cell into shards.")),
    _option("shard_time", int | None, typer.Option(None, min=1, help="Timesteps per shard (needs --shard); default: all.")),
    _option("codec", Codec, typer.Option(Codec[DEFAULT_CODEC], help="Compression codec.")),
    _option("level", int | None, typer.Option(None, help=f"Compression level; default {DEFAULT_LEVEL}.")),
    _option("blosc_cname", str | None, typer.Option(None, help="Blosc compressor (with --codec blosc); default zstd.")),
    _option("blosc_shuffle", str | None, typer.Option(None, help="noshuffle or shuffle (with --codec blosc).")),
    _option("checksum", bool, typer.Option(
        False, "--checksum", help="End every chunk with its crc32c (Zarr v3 crc32c codec): readers refuse a damaged chunk; 4 bytes a chunk."
    )),
    _option("nodata", str | None, typer.Option(
        None, metavar="NUMBER|none",
        help="Nodata value, or 'none' for no nodata; default: the input's fill value, else 0 for uint8/uint16 and none otherwise."
    )),
    _option("bands_json", Path | None, typer.Option(
        None, help='JSON list of bands: [{"name", "common_name", "scale", "offset", "units"}, ...]; default: from the '
        "input's CF packing (scale_factor, add_offset) or band names.",
    )),
    _option("provenance_json", Path | None, typer.Option(None, help="JSON object: sources, composite, gap_fill, notes.")),
    _option("history", bool, typer.Option(
        False, "--history", help="Also write the time-major history array of every level: a pixel's whole history in one "
        "or two reads, an area's at any level in a few (docs/history.md); all levels' copies cost about the size of level 0's data.",
    )),
    _option("history_time", int | None, typer.Option(
        None, min=1, metavar="T", help="Timesteps per history time block (needs --history); default: the timesteps rounded "
        "up to a power of two, at most 1024.",
    )),
    _option("max_levels", int | None, typer.Option(None, min=1, help="Stop the pyramid after this many levels.")),
    _option("workers", int | None, typer.Option(None, min=1, help="Compression threads; default: all cores.")),
    _option("block_size", int | None, typer.Option(
        None, min=2, metavar="CELLS", help="Cells per side of a work block, a power of two; default: about 64 MB of input."
    )),
    _option("read_ahead", int, typer.Option(2, min=0, metavar="N", help="Blocks read ahead of the one being encoded.")),
    _option("resume", bool, typer.Option(
        False, "--resume", help="Complete an interrupted run into OUT; it must be the same input and options."
    )),
    _option("endpoint", str | None, endpoint_option("OUT")),
    _option("progress", bool | None, progress_option()),
)


def with_options(*groups: tuple[inspect.Parameter, ...]) -> Callable[[F], F]:
    """Add the option groups to the command's signature, after its own parameters."""

    def add(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        command.__signature__ = signature.replace(parameters=own + [p for group in groups for p in group])  # type: ignore[attr-defined]  # typer reads it
        return command

    return add


def input_arguments(options: Mapping[str, Any]) -> dict[str, Any]:
    """open_input_dataset's keyword arguments from the input options (--variables split at commas)."""
    return {p.name: options[p.name] for p in INPUT_OPTIONS} | {"variables": split_names(options["variables"])}


def split_names(text: str | None) -> list[str] | None:
    """The names of a comma-separated option such as --variables."""
    return None if text is None else text.split(",")


def writer_arguments(options: Mapping[str, Any]) -> dict[str, Any]:
    """encode's keyword arguments from the writer options, checked before any input is opened."""
    if options["shard_time"] is not None and not options["shard"]:
        raise InputError("--shard-time requires --shard (the default layout is unsharded)")
    args = {p.name: options[p.name] for p in WRITER_OPTIONS if p.name not in ("nodata", "bands_json", "provenance_json", "endpoint")}
    if options["endpoint"] is not None:
        args["storage_options"] = {"endpoint": options["endpoint"]}
    args |= {"encoding": options["encoding"].value, "codec": options["codec"].value}
    args |= _blosc_options(args["codec"], options["blosc_cname"], options["blosc_shuffle"])
    if options["nodata"] is not None:
        args["nodata"] = _nodata(options["nodata"])
    if options["bands_json"]:
        args["bands"] = _json_file(options["bands_json"], "--bands-json", list)
    args["provenance"] = _json_file(options["provenance_json"], "--provenance-json", dict) if options["provenance_json"] else None
    return args


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
        value = parse_json(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise InputError(f"{option} {path} {exc}") from None
    if not isinstance(value, kind):
        expected = "a list of band objects" if kind is list else "an object"
        raise InputError(f"{option} {path} must hold {expected}, got {type(value).__name__}")
    return value
