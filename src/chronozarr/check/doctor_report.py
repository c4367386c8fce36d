"""Moved to check/doctor/report.py; this name stays for old imports (one release)."""

import sys

from .doctor import report as _moved

sys.modules[__name__] = _moved
