"""Test hook: with CHRONOZARR_TEST_KILL_AFTER=N the process SIGKILLs itself at its N-th write step.

A step is one object written, one record of the encode journal, or one step of an append's
commit. Crash tests use it to stop an encode or append at every point of its run; unset, it
costs one comparison.
"""

from __future__ import annotations

import os
import signal
import threading

KILL_ENV = "CHRONOZARR_TEST_KILL_AFTER"


class CrashPoints:
    def __init__(self) -> None:
        value = os.environ.get(KILL_ENV)
        self.kill_after = int(value) if value else None
        self.count = 0
        self._lock = threading.Lock()

    def step(self) -> None:
        if self.kill_after is None:
            return
        with self._lock:
            self.count += 1
            if self.count >= self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)


crash_points = CrashPoints()
