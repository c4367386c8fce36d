"""`chronozarr stac STORE --out DIR`: a static STAC Collection and Item describing a store."""

from __future__ import annotations

from pathlib import Path

import typer

from ..export.stac import write_stac

HELP = """Write a static STAC 1.1 catalog for STORE (a directory or an http(s) URL) into DIR:
collection.json and one Item, <name>-store/<name>-store.json, that describes the store as a whole:
its time span (start_datetime, end_datetime), its footprint in WGS84, its grid (projection
extension), its dimensions, times and variables (datacube extension) and its bands with scale,
offset and units. The Item's one asset is the store root.

The asset's href is --href, else the store's URL, else the store directory relative to the Item;
pass --href with the published URL of a local store. Links are relative; --catalog-url (where DIR
will be published) adds absolute self links. Existing files are refused unless --overwrite.
"""

EPILOG = """\b
Examples:
  chronozarr stac my_store --out catalog/
  chronozarr stac my_store --out catalog/ --href https://example.org/stores/my_store --license CC-BY-4.0
  chronozarr stac https://example.org/stores/aoi --out catalog/ --catalog-url https://example.org/catalog
"""


def register(app: typer.Typer) -> None:
    app.command("stac", help=HELP, epilog=EPILOG, short_help="Write a static STAC Collection and Item.", no_args_is_help=True)(
        stac_command
    )


def stac_command(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory or http(s) URL.", show_default=False),
    out: Path = typer.Option(..., "--out", metavar="DIR", help="Directory for the catalog; made when missing.", show_default=False),
    href: str | None = typer.Option(None, "--href", metavar="URL", help="Where clients find the store; default: STORE."),
    catalog_url: str | None = typer.Option(None, "--catalog-url", metavar="URL", help="Where DIR will be published."),
    license_id: str = typer.Option("other", "--license", metavar="SPDX", help="License of the data: an SPDX identifier or 'other'."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing collection.json and Item."),
) -> None:
    typer.echo(str(write_stac(store, out, href=href, catalog_url=catalog_url, license_id=license_id, overwrite=overwrite)))
