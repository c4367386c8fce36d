"""Moved to check/doctor/decode.py; this name stays for old imports (one release)."""

import sys

from .doctor import decode as _moved

sys.modules[__name__] = _moved
