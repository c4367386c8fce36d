"""Moved to check/validate/gridmapping.py; this name stays for old imports (one release)."""

import sys

from .validate import gridmapping as _moved

sys.modules[__name__] = _moved
