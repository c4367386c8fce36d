"""Fixtures of the command tests."""

from served_files import http_site  # noqa: F401  (a fixture)
