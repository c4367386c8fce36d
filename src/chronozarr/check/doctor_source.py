"""Moved to check/doctor/source.py; this name stays for old imports (one release)."""

import sys

from .doctor import source as _moved

sys.modules[__name__] = _moved
