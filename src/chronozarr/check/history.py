"""Moved to check/validate/history.py; this name stays for old imports (one release)."""

import sys

from .validate import history as _moved

sys.modules[__name__] = _moved
