"""Moved to check/validate/arraydocs.py; this name stays for old imports (one release)."""

import sys

from .validate import arraydocs as _moved

sys.modules[__name__] = _moved
