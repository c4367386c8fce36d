"""Moved to check/validate/pyramid.py; this name stays for old imports (one release)."""

import sys

from .validate import pyramid as _moved

sys.modules[__name__] = _moved
