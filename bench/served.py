"""chronozarr's static server in a process of its own, with its request log readable from here.

A server thread in the benchmark's own process would share the GIL with the reader under test:
a reader that blocks on the network while holding the GIL (zarrs does) would deadlock it, and
every reader would pay for the server's Python time. The child serves `root` on 127.0.0.1 with
the given latency and answers "log" and "clear" lines on its stdin.

    with ServedDir(root, latency=0.05) as server:
        server.clear_log(); ...; server.requests  # [LoggedRequest, ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

CHILD = r"""
import json, sys
from chronozarr.serve import StoreServer
server = StoreServer(sys.argv[1], latency=float(sys.argv[2])).start()
print(server.url, flush=True)
for line in sys.stdin:
    command = line.strip()
    if command == "clear":
        server.clear_log()
        print("[]", flush=True)
    elif command == "log":
        print(json.dumps([list(r) for r in server.requests]), flush=True)
"""


class ServedDir:
    def __init__(self, root: Path | str, latency: float = 0.0) -> None:
        self.root, self.latency = str(root), latency
        self._proc: subprocess.Popen[str] | None = None
        self.url = ""

    def __enter__(self) -> ServedDir:
        self._proc = subprocess.Popen([sys.executable, "-c", CHILD, self.root, str(self.latency)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        self.url = self._proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise RuntimeError(f"the server process did not start (got {self.url!r})")
        return self

    def _ask(self, command: str) -> Any:
        assert self._proc is not None and self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        return json.loads(self._proc.stdout.readline())

    def clear_log(self) -> None:
        self._ask("clear")

    @property
    def requests(self) -> list[Any]:
        """What the server answered since the last clear: method, path, range, status, bytes_sent."""
        fields = ("method", "path", "range", "status", "bytes_sent")
        return [SimpleNamespace(**dict(zip(fields, r))) for r in self._ask("log")]

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.stdin.close()  # type: ignore[union-attr]
            self._proc.terminate()
            self._proc.wait(timeout=10)
