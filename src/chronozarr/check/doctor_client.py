"""Moved to check/doctor/client.py; this name stays for old imports (one release)."""

import sys

from .doctor import client as _moved

sys.modules[__name__] = _moved
