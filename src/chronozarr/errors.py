"""Exceptions a user can act on: each message names the problem and the fix."""


class ChronozarrError(Exception):
    """Base class for every error chronozarr raises on purpose."""


class InputError(ChronozarrError, ValueError):
    """The input to encode, append or convert cannot be stored as given."""


class StoreError(ChronozarrError, ValueError):
    """A store is missing, malformed or not a chronozarr store."""


class OutputExistsError(ChronozarrError, FileExistsError):
    """The output path already holds something; stores are never overwritten."""


class MissingExtraError(ChronozarrError, ImportError):
    """A command needs an optional dependency group (an extra) that is not installed."""


class OutputError(ChronozarrError, OSError):
    """The output cannot be written: disk full, read-only, no permission, a bucket refusing."""


class AccessError(StoreError):
    """The store could not be read at all: no or refused credentials, no such bucket, another
    region, no permission. Not a finding about the store's content."""


class BlockError(StoreError):
    """A field of the root `chronozarr` block that a reader cannot use; names the field and the rule."""


class HistoryError(StoreError):
    """A history declaration (docs/format-history.md) a reader cannot use; names the field
    (`chronozarr.history.<field>`). Readers fall back to level 0; validate reports it."""


class FetchError(StoreError):
    """An HTTP request failed in a way that is not a missing key; names the URL and status."""

    def __init__(self, url: str, status: int | None, reason: str) -> None:
        self.url = url
        self.status = status
        super().__init__(f"{reason}: {url}" + (f" (HTTP {status})" if status is not None else ""))


class Unreadable(InputError):
    """A source file GDAL cannot open or decode: named, and skipped only with --skip-unreadable."""

    def __init__(self, uri: str, reason: str):
        super().__init__(
            f"cannot open source {uri}: {reason}. Check the uri (relative paths are read from the manifest's "
            "folder) or replace the file; --skip-unreadable leaves such files out and lists them"
        )
        self.uri = uri


class PublishError(ChronozarrError):
    """An upload failed or was refused; the message says what is on the destination now."""


class DemoError(ChronozarrError):
    """The demo could not run to the end; the message says why."""


class TimeUp(ChronozarrError):
    """doctor's time limit is spent; the checks that remain are not run."""


class RangeNotSatisfiable(ChronozarrError):
    """A request's Range selects no byte of the object: `serve` answers it with 416."""
