"""One hypothesis profile for the property tests of format/: modest, deterministic, no database.

derandomize makes every run draw the same examples (a failure reproduces on any machine), and
with no example database nothing is written into the worktree.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

PROPERTIES = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
