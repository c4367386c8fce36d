"""How long a fuzz target runs, and the record of what it tried.

By default (`make test`) each target is a short deterministic slice: a fixed number of examples
from a derandomized generator, the same every run. Under `make fuzz` (FUZZ_SECONDS set) each runs
fresh random examples until its seconds are spent. With FUZZ_REPORT set, every target appends one
JSON line (its name, examples, seconds) for docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SECONDS = float(os.environ.get("FUZZ_SECONDS") or 0)
REPORT = os.environ.get("FUZZ_REPORT")
BATCH = 100  # examples per hypothesis run while the seconds last
FIRST_BATCH = 5  # before the target's pace is known


def fuzz(name: str, strategy: st.SearchStrategy[Any], slice_examples: int = 25) -> Callable[[Callable[[Any], None]], Callable[[], None]]:
    """A pytest test that calls `check(value)` on values drawn from `strategy`: `slice_examples`
    of them by default, as many as FUZZ_SECONDS allow under `make fuzz`. `check` raises (an
    assertion, or an exception that is not ours) when an outcome is not allowed."""

    def decorate(check: Callable[[Any], None]) -> Callable[[], None]:
        def test() -> None:
            count = 0

            def body(value: Any) -> None:
                nonlocal count
                count += 1
                check(value)

            started = time.monotonic()
            peak = _peak()
            quiet = list(HealthCheck)
            if SECONDS <= 0:
                settings(max_examples=slice_examples, derandomize=True, database=None, deadline=None, suppress_health_check=quiet)(given(strategy)(body))()
            while SECONDS > 0 and (left := SECONDS - (time.monotonic() - started)) > 0:
                # batches sized to the time left, at the rate seen so far, so a slow target ends near its budget
                rate = (time.monotonic() - started) / count if count else None
                batch = FIRST_BATCH if rate is None else max(1, min(BATCH, int(left / rate)))
                settings(max_examples=batch, database=None, deadline=None, suppress_health_check=quiet)(given(strategy)(body))()
            _record(name, count, time.monotonic() - started, _peak() - peak)

        test.__name__ = f"test_fuzz_{name}"
        test.__doc__ = check.__doc__
        return test

    return decorate


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _record(name: str, examples: int, seconds: float, growth: int) -> None:
    if REPORT:
        line = {"language": "python", "target": name, "examples": examples, "seconds": round(seconds, 1), "peak_growth": growth}
        with open(REPORT, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
