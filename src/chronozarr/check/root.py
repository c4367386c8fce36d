"""Moved to check/validate/root.py; this name stays for old imports (one release)."""

import sys

from .validate import root as _moved

sys.modules[__name__] = _moved
