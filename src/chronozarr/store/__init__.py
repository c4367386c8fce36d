"""One interface to a store's objects (interface.py states its rules), implemented once per
backend: a directory, an HTTP host (read-only), an object store (s3://, gs://, az://) and memory;
request counting and logging are wrappers any of them can be put in."""

from .interface import DEFAULT_MAX_OBJECT_BYTES, ObjectStore, check_object_size
from .memory import MemoryStore
from .open import Location, is_remote, locate, not_a_directory, open_object_store
from .wrappers import CountingStore, FirstHolding, LoggingStore, RequestStats, StoreWrapper, counted

__all__ = [
    "DEFAULT_MAX_OBJECT_BYTES", "CountingStore", "FirstHolding", "Location", "LoggingStore", "MemoryStore", "ObjectStore", "RequestStats",
    "StoreWrapper",    "check_object_size", "counted", "is_remote", "locate", "not_a_directory", "open_object_store",
]
