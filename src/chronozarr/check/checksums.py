"""Moved to check/validate/checksums.py; this name stays for old imports (one release)."""

import sys

from .validate import checksums as _moved

sys.modules[__name__] = _moved
