"""`chronozarr publish STORE DEST`: upload a store in three phases with per-object cache headers."""

from __future__ import annotations

import typer

from ..format.caching import SHORT_TTL_SECONDS
from ..publish import publish
from .options import endpoint_option

HELP = """Upload STORE (a directory) to DEST (s3://bucket/prefix, gs://bucket/prefix, az://container/prefix):
chunks, shards and coordinates first, in parallel; then the zarr.json below the root; then the root
zarr.json, only when everything before it succeeded. Each object gets the Cache-Control of its
class: immutable for a year, or a short lifetime for what an append rewrites. No Content-Encoding.

A non-empty DEST is refused unless STORE is an append of the store already there (same store, more
timesteps) or --force is given. Credentials come from the provider's environment variables.

With --viewer the viewer app goes up last, under DEST/viewer/: https://HOST/PREFIX/viewer/ (or
viewer/index.html on hosts that serve no index pages, such as S3's REST endpoint) shows the
store, with nothing else deployed.
"""

EPILOG = """\b
Examples:
  chronozarr publish stores/aoi/chronozarr-3 s3://my-bucket/aoi/chronozarr-3 --dry-run
  chronozarr publish work/aoi s3://data/aoi/chronozarr-3 --endpoint https://ACCOUNT.r2.cloudflarestorage.com
  chronozarr publish work/aoi s3://my-bucket/aoi/chronozarr-3 --newer-than work/stamp
  chronozarr publish work/aoi s3://my-bucket/aoi/chronozarr-3 --viewer
"""


def register(app: typer.Typer) -> None:
    app.command("publish", help=HELP, epilog=EPILOG, short_help="Upload a store to an object store.", no_args_is_help=True)(
        publish_command
    )


def publish_command(
    store: str = typer.Argument(..., metavar="STORE", help="Store directory.", show_default=False),
    dest: str = typer.Argument(..., metavar="DEST", help="s3://, gs:// or az:// prefix.", show_default=False),
    endpoint: str = endpoint_option("DEST"),
    newer_than: str = typer.Option(
        None, "--newer-than", metavar="FILE_OR_TIME", help="Only objects modified after this file's mtime, ISO time or epoch seconds (what an append touched)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print each object's phase, class and Cache-Control; upload nothing."),
    force: bool = typer.Option(False, "--force", help="Upload into a non-empty prefix even when it is not an append."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, help="Uploads in flight."),
    short_ttl: int = typer.Option(SHORT_TTL_SECONDS, "--short-ttl", min=0, help="max-age in seconds for objects an append rewrites."),
    viewer: bool = typer.Option(False, "--viewer", help="Also upload the viewer app under DEST/viewer/: the store opens there in a browser."),
) -> None:
    summary = publish(
        store, dest, endpoint=endpoint, newer_than=newer_than, dry_run=dry_run, force=force,
        concurrency=concurrency, short_ttl=short_ttl, viewer=viewer, echo=typer.echo,
    )
    if not dry_run:
        typer.echo(f"published {len(summary.uploaded)} objects to {summary.destination} in {summary.seconds:.1f} s")
