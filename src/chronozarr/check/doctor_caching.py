"""Moved to check/doctor/caching.py; this name stays for old imports (one release)."""

import sys

from .doctor import caching as _moved

sys.modules[__name__] = _moved
