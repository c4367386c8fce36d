"""Run a piece of Python in a child process with a deadline and a memory ceiling, and report
how it ended and how much its peak resident memory grew while it ran.

Hangs and unbounded allocations are measured this way so that a reader that fails at them fails
its test instead of taking the test run (or the machine) with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from typing import Any

# The child sets this ceiling on its address space: a runaway read dies with MemoryError there
# instead of pushing the machine into swap.
ADDRESS_SPACE_LIMIT = 6 * 2**30

_PRELUDE = """
import json, resource, sys, traceback
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
def _peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
def report(outcome, **fields):
    print("BOUNDED " + json.dumps(dict(outcome=outcome, **fields), default=str), flush=True)
"""

_BODY = """
setup_peak = None
try:
{setup}
    setup_peak = _peak()
{action}
    report("values", growth=_peak() - setup_peak)
except BaseException as exc:
    growth = None if setup_peak is None else _peak() - setup_peak
    report(
        "error", type=type(exc).__name__, module=type(exc).__module__, message=str(exc)[:2000],
        ours=any(c.__module__.startswith("chronozarr") for c in type(exc).__mro__), growth=growth,
        during="setup" if setup_peak is None else "action",
    )
"""


@dataclass(frozen=True)
class Ending:
    """How the child ended: `outcome` is "values", "error", "timeout" or "crash"."""

    outcome: str
    seconds: float
    fields: dict[str, Any]

    @property
    def ours(self) -> bool:
        return bool(self.fields.get("ours"))

    @property
    def message(self) -> str:
        return str(self.fields.get("message", ""))

    @property
    def growth(self) -> int | None:
        return self.fields.get("growth")


def run_bounded(setup: str, action: str, *, timeout: float = 60.0, limit: int = ADDRESS_SPACE_LIMIT) -> Ending:
    """Run `setup` then `action` (Python source) in a child; peak memory growth is measured over
    `action` alone, and the whole run is killed after `timeout` seconds."""
    code = _PRELUDE.format(limit=limit) + _BODY.format(
        setup=textwrap.indent(textwrap.dedent(setup), "    "), action=textwrap.indent(textwrap.dedent(action), "    ")
    )
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Ending("timeout", time.monotonic() - started, {})
    seconds = time.monotonic() - started
    for line in done.stdout.splitlines():
        if line.startswith("BOUNDED "):
            fields = json.loads(line[len("BOUNDED "):])
            return Ending(fields.pop("outcome"), seconds, fields)
    return Ending("crash", seconds, {"returncode": done.returncode, "stderr": done.stderr[-2000:]})
