"""Moved to check/doctor/http.py; this name stays for old imports (one release)."""

import sys

from .doctor import http as _moved

sys.modules[__name__] = _moved
