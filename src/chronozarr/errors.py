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
