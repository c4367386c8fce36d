"""Moved to check/validate/levels.py; this name stays for old imports (one release)."""

import sys

from .validate import levels as _moved

sys.modules[__name__] = _moved
