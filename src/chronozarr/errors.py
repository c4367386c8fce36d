"""Exceptions a user can act on: each message names the problem and the fix; and the warnings.

Where callers may catch a builtin (`except ValueError`), the class carries it as a mixin, as
rasterio does, so both `except ChronozarrError` and the builtin keep working."""


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


class DocumentError(ChronozarrError, ValueError):
    """A metadata document or one of its fields (read from a store, or given to the model) breaks a
    rule of the format; names the field and the rule."""


class FieldTypeError(DocumentError, TypeError):
    """A metadata field holds a value of the wrong JSON type; names the field and the value."""


class ChunkError(ChronozarrError, ValueError):
    """The bytes of a chunk or a shard index do not decode as their array declares: the object is
    damaged or was cut short."""


class SettingError(ChronozarrError, ValueError):
    """An argument of the API (a codec, a level, a chunk size, an option) is outside its range."""


class SettingTypeError(SettingError, TypeError):
    """An argument of the API has the wrong type."""


class InputTypeError(InputError, TypeError):
    """Input values of a type the format cannot store (time that is not datetime64, a dtype)."""


class TimeValueError(ChronozarrError, ValueError):
    """A time the format cannot hold: not ISO-8601, finer than a millisecond, or outside the
    years datetime64[ns] holds."""


class OutOfRangeError(ChronozarrError, IndexError):
    """A level, timestep, pixel or window the store does not have; names the range it has."""


class UnknownNameError(ChronozarrError, KeyError):
    """A band, array or role name the store does not have; names those it has."""

    def __str__(self) -> str:
        """The message as written (KeyError would show it quoted)."""
        return str(self.args[0]) if self.args else ""


class ClusterError(ChronozarrError, RuntimeError):
    """A dask.distributed task stopped before it finished; running the command again resumes it."""


class MissingFileError(ChronozarrError, FileNotFoundError):
    """A file the package ships (the built viewer, a vendored library) is not there."""


class DirectoryError(ChronozarrError, NotADirectoryError):
    """A path that must be a directory (the root `serve` serves, a target its links may reach) is not."""


class ChronozarrWarning(UserWarning):
    """Base class of the warnings chronozarr issues: something worked, in a lesser way."""


class HistoryWarning(ChronozarrWarning):
    """A store declares a history array this reader cannot use; it reads level 0 instead."""
