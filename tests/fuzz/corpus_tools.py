"""How the hostile corpus runs each tool on a store, each in a process of its own, and how an
ending is judged: the Python reader, `info`, `validate` and `doctor` in a child forked from the
driver (chronozarr is imported once), the JS reader in a node process. The wait of each child is
bounded, and its peak resident memory is read from the kernel when it ends (wait4).

Outcomes: `correct` (the truth, or for the CLI a report), `clear_error` (our error: a StoreError
or FetchError, or one `error:` line and exit 2), `crash` (any other exception, a traceback, a
signal), `hang` (still running at the limit, then killed), `over_1gib` (peak memory grew by more
than 1 GiB, or an allocation failed under the child's ceiling), `silent_wrong` (values that are
not the truth, without an error).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import chronozarr
from chronozarr.cli import app
from chronozarr.errors import ChronozarrError

HANG_SECONDS = 60.0
GIB = 2**30
CEILING = 4 * GIB  # address space a child may add before an allocation fails
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Truth:
    """What an honest base store holds: its times and, per level, every value (time, band, y, x)."""

    times: list[str]
    levels: list[np.ndarray]

    @classmethod
    def of(cls, store: Path) -> Truth:
        with chronozarr.open_dataset(store) as s:
            levels = [np.stack([s.read(t, lod=lv.index) for t in range(len(s.times))]) for lv in s.levels]
            return cls(list(s.times_iso), levels)

    def write(self, directory: Path) -> None:
        """For the JS reader: meta.json and one little-endian uint16 file per level."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "meta.json").write_text(json.dumps({"times": self.times, "shapes": [list(v.shape) for v in self.levels]}))
        for i, values in enumerate(self.levels):
            (directory / f"{i}.bin").write_bytes(values.astype("<u2").tobytes())


def _differs(got: np.ndarray, truth: np.ndarray) -> bool:
    """Whether `got` (band, y, x), placed at the truth's origin, disagrees where both have values."""
    b, h, w = (min(a, c) for a, c in zip(got.shape, truth.shape, strict=True))
    return not np.array_equal(got[:b, :h, :w].astype(np.int64), truth[:b, :h, :w].astype(np.int64))


def python_probe(store: Path, truth: Truth) -> dict[str, Any]:
    """Open, read every cell of every timestep of the levels the truth has (within its extent), a
    whole frame and a pixel history; count what disagrees with the truth."""
    wrong: list[str] = []
    with chronozarr.open_dataset(store) as s:
        if list(s.times_iso) != truth.times:
            wrong.append("times")
        n_time = min(len(s.times), len(truth.times))
        for level in s.levels[: len(truth.levels)]:
            values, cs = truth.levels[level.index], level.chunk_size
            rows, cols = (min(g, -(-e // cs)) for g, e in zip(level.grid, values.shape[2:], strict=True))
            for t in range(n_time):
                for r in range(rows):
                    for c in range(cols):
                        got = s.read_cell(t, r, c, lod=level.index)
                        if _differs(got, values[t, :, r * cs :, c * cs :]):
                            wrong.append(f"cell {level.index}/{t}/{r}/{c}")
        if n_time:
            if _differs(s.read(0), truth.levels[0][0]):
                wrong.append("read(0)")
            history = s.read_point(0, 0)
            if _differs(history[None, :n_time], truth.levels[0][:n_time, :, 0, 0][None]):
                wrong.append("read_point(0, 0)")
    return {"outcome": "silent_wrong" if wrong else "correct", "wrong": wrong[:5]}


def cli_call(argv: list[str]) -> dict[str, Any]:
    """The console script's work on `argv` (stderr goes to the child's file): its exit code."""
    try:
        app(args=argv, prog_name="chronozarr")
    except SystemExit as exc:
        return {"exit": exc.code if isinstance(exc.code, int) else 1}
    return {"exit": 0}


def _child(work: Callable[[], dict[str, Any]], out: Path) -> None:
    """In the forked child: run `work` under an address-space ceiling; write how it ended."""
    os.setpgid(0, 0)
    with open(out.with_suffix(".err"), "w") as err, open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(err.fileno(), 2)
    vm = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (vm + CEILING, vm + CEILING))
    try:
        result = work()
    except MemoryError as exc:
        result = {"outcome": "over_1gib", "type": "MemoryError", "message": str(exc)[:300]}
    except ChronozarrError as exc:
        result = {"outcome": "clear_error", "type": type(exc).__name__, "message": str(exc)[:300]}
    except BaseException as exc:  # noqa: BLE001  # a crash is what the corpus counts
        result = {"outcome": "crash", "type": f"{type(exc).__module__}.{type(exc).__name__}", "message": str(exc)[:300],
                  "where": traceback.format_exc()[-1500:]}
    out.write_text(json.dumps(result, default=str))


def _rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _wait(pid: int, limit: float) -> tuple[float, int | None, Any]:
    """Wait for child `pid` up to `limit` seconds, killing its process group then: (seconds,
    wait status or None when it was killed, rusage)."""
    started = time.monotonic()
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return time.monotonic() - started, status, usage
        if time.monotonic() - started > limit:
            os.killpg(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
            return time.monotonic() - started, None, usage
        time.sleep(0.005)


def forked(work: Callable[[], dict[str, Any]], out: Path, limit: float = HANG_SECONDS) -> dict[str, Any]:
    """Run `work` in a forked child: its ending, seconds and peak memory growth."""
    base = _rss()
    pid = os.fork()
    if pid == 0:
        try:
            _child(work, out)
        finally:
            os._exit(0)
    seconds, status, usage = _wait(pid, limit)
    growth = usage.ru_maxrss * 1024 - base
    return _judge(out, seconds, status, growth, limit)


def _judge(out: Path, seconds: float, status: int | None, growth: int, limit: float) -> dict[str, Any]:
    stderr = out.with_suffix(".err").read_text(errors="replace")[-3000:] if out.with_suffix(".err").exists() else ""
    if status is None:
        result = {"outcome": "hang"}
    elif out.exists():
        result = json.loads(out.read_text())
    else:
        result = {"outcome": "crash", "type": "died", "status": status, "where": stderr[-1500:]}
    if result["outcome"] != "hang" and growth > GIB:
        result = {**result, "outcome": "over_1gib", "was": result["outcome"]}
    for path in (out, out.with_suffix(".err")):
        path.unlink(missing_ok=True)
    return {**result, "seconds": round(seconds, 2), "growth": growth, "stderr": stderr, "limit": limit}


def judge_cli(result: dict[str, Any], exits: dict[int, str]) -> dict[str, Any]:
    """A CLI call's ending: an exit code named in `exits` without a traceback, an `error:` line
    alone for exit 2; anything else is a crash."""
    if result["outcome"] != "correct":
        return result
    stderr, code = result["stderr"], result["exit"]
    lines = [line for line in stderr.splitlines() if line.strip()]
    if "Traceback" in stderr or code not in exits or (code == 2 and not (len(lines) == 1 and lines[0].startswith("error: "))):
        return {**result, "outcome": "crash", "type": f"exit {code}", "where": stderr[-1500:]}
    return {**result, "outcome": exits[code]}


def js_read(store: Path, truth: Path, out: Path, baseline: int) -> dict[str, Any]:
    """js/tools/corpus-read.mjs on `store` in a node process of its own."""
    script = REPO / "js" / "tools" / "corpus-read.mjs"
    with open(out.with_suffix(".err"), "w") as err:
        child = subprocess.Popen([NODE, str(script), str(store), str(truth)], stdout=subprocess.PIPE, stderr=err, start_new_session=True)
    seconds, status, usage = _wait(child.pid, HANG_SECONDS)
    text = child.stdout.read().decode(errors="replace") if child.stdout else ""
    if child.stdout:
        child.stdout.close()
    # Lines end at "\n" only: a message may hold U+0085 or U+2028, which str.splitlines also breaks at.
    lines = [line for line in text.split("\n") if line.startswith("{")]
    if status is not None and lines:
        out.write_text(lines[-1])
    return _judge(out, seconds, status, usage.ru_maxrss * 1024 - baseline, HANG_SECONDS)


NODE = os.environ.get("NODE", "node")
PYTHON = sys.executable
