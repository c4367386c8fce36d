"""Moved to check/validate/coords.py; this name stays for old imports (one release)."""

import sys

from .validate import coords as _moved

sys.modules[__name__] = _moved
