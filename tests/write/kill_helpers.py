"""Running a write with the crash hook armed (write/crashpoints.py): killed by SIGKILL at its N-th
write step in a forked child, or counted to know how many steps it has."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

from chronozarr.write import crashpoints


def killed(run: Callable[[], object], kill_after: int) -> bool:
    """Fork a child that runs `run` with the kill hook armed; True when it was killed, False when
    it finished first (it must not fail)."""
    pid = os.fork()
    if pid == 0:  # child: run, dying at the kill_after-th step
        code = 0
        try:
            crashpoints.crash_points.kill_after, crashpoints.crash_points.count = kill_after, 0
            run()
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return True
    assert os.WEXITSTATUS(status) == 0, "the armed run failed instead of being killed"
    return False


def count_steps(run: Callable[[], object]) -> int:
    """Write steps of one uninterrupted run (the hook armed, never reached)."""
    crashpoints.crash_points.kill_after, crashpoints.crash_points.count = 10**9, 0
    try:
        run()
        return crashpoints.crash_points.count
    finally:
        crashpoints.crash_points.kill_after, crashpoints.crash_points.count = None, 0
