"""Checking stores: `validate` (the spec's MUSTs) and `info` (what a store holds)."""

from .findings import Finding, Report
from .info import info, info_text
from .validate import validate

__all__ = ["Finding", "Report", "info", "info_text", "validate"]
