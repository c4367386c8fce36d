"""chronozarr: a Zarr v3 layout for raster time series, and the tools around it."""

from .check import info, validate
from .check.doctor import doctor
from .convert import convert
from .deprecation import old_names
from .errors import ChronozarrError, InputError, OutputError, OutputExistsError, StoreError
from .export.cog import ExportSummary, export_cog
from .export.stac import StacSummary, write_stac
from .format.metadata import SPEC_VERSION, Band, Provenance
from .notebook_map import add_chronozarr
from .read.dataset import ChronoDataset, open_dataset
from .view import view
from .write.append import AppendSummary, append
from .write.encode import EncodeSummary, encode

__version__ = "0.2.0"

__all__ = [
    "SPEC_VERSION",
    "AppendSummary",
    "Band",
    "ChronoDataset",
    "ChronozarrError",
    "EncodeSummary",
    "ExportSummary",
    "InputError",
    "OutputError",
    "OutputExistsError",
    "Provenance",
    "StacSummary",
    "StoreError",
    "add_chronozarr",
    "append",
    "convert",
    "encode",
    "export_cog",
    "info",
    "doctor",
    "open_dataset",
    "open_store",
    "validate",
    "view",
    "write_stac",
]

# The reference tool's entry point, kept for good: code written for it opens a store and gets a dataset.
open_store = open_dataset

# Old names of this release's renames (CHANGELOG.md): the same objects, with a DeprecationWarning.
__getattr__ = old_names(__name__, {"ChronoStore": ChronoDataset})
