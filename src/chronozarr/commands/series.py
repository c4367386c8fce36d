"""`chronozarr series STORE`: an area's (or a pixel's) statistics per date, as CSV or a table."""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path
from typing import Any, TextIO

import typer

from ..errors import InputError
from ..format.zarrjson import parse_json
from ..read.dataset import open_dataset
from .options import endpoint_option, store_location

HELP = """Statistics of an area of STORE per date and band: mean, std (population), min, max and the
number of valid pixels (spec 2.3), in physical units (stored x scale + offset). The area holds the
pixels whose centres lie inside it, its edges included; a point gives its pixel's values. The level
is the finest whose window holds at most 512 x 512 pixels unless --lod names one; every row says it.
Bands are band names or the products ndvi, ndwi and water (water adds the water area in km2).
"""

EPILOG = """\b
Examples:
  chronozarr series my_store --bbox 500100,4999700,500900,4999950
  chronozarr series my_store --geojson field.geojson --band ndvi --csv ndvi.csv
  chronozarr series https://example.org/aoi --point -74.52,-8.31 --crs EPSG:4326 --csv -
  chronozarr series s3://bucket/aoi --geojson lake.geojson --crs EPSG:4326 --band water --lod 2
"""

COLUMNS = ("time", "band", "level", "valid_pixels", "mean", "std", "min", "max")


def register(app: typer.Typer) -> None:
    app.command("series", help=HELP, epilog=EPILOG, short_help="An area's statistics per date.", no_args_is_help=True)(series_command)


def series_command(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory, http(s) URL or s3://, gs://, az:// URL.", show_default=False),
    bbox: str | None = typer.Option(None, "--bbox", metavar="W,S,E,N", help="A box: west, south, east, north."),
    geojson: Path | None = typer.Option(None, "--geojson", metavar="FILE", help="A GeoJSON Polygon or MultiPolygon (geometry, Feature or collection of one)."),
    point: str | None = typer.Option(None, "--point", metavar="X,Y", help="One pixel: the one whose area holds X,Y."),
    crs: str | None = typer.Option(None, "--crs", metavar="EPSG:CODE", help="CRS of the area; default: the store's."),
    lod: int | None = typer.Option(None, "--lod", metavar="K", help="Level to read; default: the finest within 512 x 512 pixels."),
    band: list[str] | None = typer.Option(None, "--band", metavar="NAME", help="A band or product (ndvi, ndwi, water); repeat for more; default: every band."),
    csv_to: str | None = typer.Option(None, "--csv", metavar="FILE|-", help="CSV to FILE, or stdout with -; default: a table on a terminal, else CSV."),
    endpoint: str | None = endpoint_option(),
) -> None:
    geometry = area_option(bbox, geojson, point)
    with open_dataset(store_location(store, endpoint)) as source:
        ds = source.read_region_series(geometry, lod=lod, crs=crs, bands=band or None)
        times = source.times_iso
    rows = series_rows(ds, times)
    if csv_to is None and sys.stdout.isatty():
        _table(rows, ds.attrs)
    elif csv_to in (None, "-"):
        write_csv(rows, sys.stdout)
    else:
        try:
            with open(csv_to, "w", newline="", encoding="utf-8") as out:
                write_csv(rows, out)
        except OSError as exc:
            raise InputError(f"cannot write {csv_to}: {exc.strerror}; give a path in a folder you can write to") from None


def _numbers(text: str, count: int, option: str, example: str) -> list[float]:
    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise InputError(f"{option} {text!r} is not {count} numbers: give it as {example}")
    return values


def area_option(bbox: str | None, geojson: Path | None, point: str | None) -> Any:
    """The one area option given, as read_region_series takes it."""
    given = [name for name, value in (("--bbox", bbox), ("--geojson", geojson), ("--point", point)) if value is not None]
    if len(given) != 1:
        raise InputError(f"give exactly one of --bbox, --geojson and --point (got {', '.join(given) or 'none'})")
    if bbox is not None:
        return tuple(_numbers(bbox, 4, "--bbox", "W,S,E,N, e.g. --bbox 500100,4999700,500900,4999950"))
    if point is not None:
        return {"type": "Point", "coordinates": _numbers(point, 2, "--point", "X,Y, e.g. --point 500123,4999876")}
    assert geojson is not None
    try:
        doc = parse_json(geojson.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read {geojson}: {exc.strerror}; give the path of a GeoJSON file") from None
    except ValueError as exc:
        raise InputError(f"{geojson} is not JSON ({exc}); give a GeoJSON Polygon or MultiPolygon") from None
    if isinstance(doc, dict) and doc.get("type") == "FeatureCollection":
        features = doc.get("features") or []
        if len(features) != 1:
            raise InputError(f"{geojson} holds {len(features)} features: give a file with one, or a MultiPolygon")
        doc = features[0]
    return doc


def series_rows(ds: Any, times: list[str]) -> list[dict[str, Any]]:
    """One row per date and band: COLUMNS, then water_km2 when the series has it; None where a
    date has no valid pixel."""
    rows = []
    level = int(ds.attrs["level"])
    water = ds.get("water_km2")
    for t, when in enumerate(times):
        for b, name in enumerate(ds["band"].values):
            row: dict[str, Any] = {"time": when, "band": str(name), "level": level, "valid_pixels": int(ds["valid_pixels"].values[t, b])}
            for stat in ("mean", "std", "min", "max"):
                v = float(ds[stat].values[t, b])
                row[stat] = None if math.isnan(v) else v
            if water is not None:
                area = float(water.values[t, b])
                row["water_km2"] = None if math.isnan(area) else area
            rows.append(row)
    return rows


def write_csv(rows: list[dict[str, Any]], out: TextIO) -> None:
    columns = list(COLUMNS) + (["water_km2"] if rows and "water_km2" in rows[0] else [])
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else (repr(row[c]) if isinstance(row[c], float) else row[c]) for c in columns])


def _table(rows: list[dict[str, Any]], attrs: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"level {attrs['level']}, {attrs['pixel_size']:g} per pixel, {attrs['region_pixels']} pixels in the area")
    # The level is in the title: every row shares it, and a terminal is narrow.
    columns = [c for c in COLUMNS[1:] if c != "level"] + (["water_km2"] if rows and "water_km2" in rows[0] else [])
    table.add_column("time", no_wrap=True)
    for c in columns:
        table.add_column("valid" if c == "valid_pixels" else c, justify="left" if c == "band" else "right", no_wrap=True)
    for row in rows:
        cells = [row["time"][:10]] + ["–" if row.get(c) is None else (f"{row[c]:.6g}" if isinstance(row[c], float) else str(row[c])) for c in columns]
        table.add_row(*cells)
    Console().print(table)
