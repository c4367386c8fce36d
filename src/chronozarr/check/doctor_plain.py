"""Moved to check/doctor/plain.py; this name stays for old imports (one release)."""

import sys

from .doctor import plain as _moved

sys.modules[__name__] = _moved
