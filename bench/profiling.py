"""A wall-clock sampling profile of every thread of this process, for rows that miss a target.

cProfile sees one thread; the writer and the reader spend their time on thread pools. This
samples `sys._current_frames()` every few milliseconds and counts, per function, the samples
where it was running (own) and where it was on the stack (total). Threads parked in a wait
(a pool's idle workers, a future's result) are left out, so the shares are of busy samples.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from types import FrameType
from typing import Any

# Leaf functions that mean "this thread is waiting", not working.
IDLE = {"wait", "_wait_for_tstate_lock", "acquire", "get", "select", "poll", "sleep", "_worker", "result", "join", "accept", "readinto"}


def _name(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename.replace("\\", "/")
    for marker in ("site-packages/", "/src/", "/lib/python"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{code.co_name}"


class Sampler:
    """`with Sampler() as s: work()` then `s.summary()`. Threads named "bench-..." (the
    benchmark's own samplers) are not sampled."""

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.own: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        self.samples = 0
        self.idle = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            ours = {t.ident for t in threading.enumerate() if t.name.startswith("bench-")}
            for ident, frame in sys._current_frames().items():
                if ident not in ours:
                    self._take(frame)
            time.sleep(self.interval)

    def _take(self, frame: FrameType) -> None:
        self.samples += 1
        if frame.f_code.co_name in IDLE:
            self.idle += 1
            return
        self.own[_name(frame)] += 1
        seen = set()
        current: FrameType | None = frame
        while current is not None:
            name = _name(current)
            if name not in seen:
                seen.add(name)
                self.total[name] += 1
            current = current.f_back

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self, top: int = 12) -> dict[str, Any]:
        """The busiest functions by own and by total samples, as shares of the busy samples."""
        busy = max(1, self.samples - self.idle)
        share = lambda n: round(n / busy, 3)  # noqa: E731
        own = [[name, share(n)] for name, n in self.own.most_common(top)]
        total = [[name, share(n)] for name, n in self.total.most_common(top)]
        text = "; ".join(f"{name} {int(100 * s)}%" for name, s in own[:5])
        return {
            "method": f"all-thread stack sampling every {self.interval * 1000:.0f} ms, idle waits excluded",
            "samples": self.samples,
            "busy_samples": busy,
            "own": own,
            "total": total,
            "summary": f"own time: {text}",
        }
