"""`make fuzz`: how long a read from a server that never answers takes to settle with the default
settings of the Python reader and of doctor (one JSON line each to FUZZ_REPORT). It fails when a
read does not settle with our error within 60 seconds, retries included, or doctor does not end
within its default --total-timeout (and so within 60 seconds too).

Usage: python tests/fuzz/defaults.py
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faulty_host import faulty_server  # noqa: E402
from hostile_stores import build_base  # noqa: E402

from chronozarr.check.doctor import doctor  # noqa: E402
from chronozarr.check.doctor_client import DEFAULT_TOTAL_TIMEOUT  # noqa: E402
from chronozarr.errors import ChronozarrError  # noqa: E402
from chronozarr.store.http import DEFAULT_RETRIES, DEFAULT_TIMEOUT, HttpStore  # noqa: E402

LIMIT = 60.0
SILENT = 3600.0  # the server's silence: longer than anything waits


def _report(line: dict) -> None:
    print(json.dumps(line))
    if os.environ.get("FUZZ_REPORT"):
        with open(os.environ["FUZZ_REPORT"], "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="chronozarr-defaults-"))
    failed = False
    try:
        build_base(root / "s", "sharded")
        with faulty_server(root, stall_headers=SILENT) as server:
            started = time.monotonic()
            try:
                HttpStore(f"{server.url}/s").get("zarr.json")
                outcome = "values"
            except ChronozarrError as exc:
                outcome = f"{type(exc).__name__}: {exc}"
            seconds = time.monotonic() - started
            failed |= outcome == "values" or seconds > LIMIT
            _report({"language": "python", "target": "default_timeouts_read", "seconds": round(seconds, 1), "outcome": outcome[:300],
                     "timeout": DEFAULT_TIMEOUT, "retries": DEFAULT_RETRIES})
        with faulty_server(root, stall_headers=SILENT, fault_keys="/c/") as server:
            started = time.monotonic()
            report = doctor(f"{server.url}/s")
            seconds = time.monotonic() - started
            failed |= report.ok or seconds > min(LIMIT, DEFAULT_TOTAL_TIMEOUT + 5)  # its own limit (and its start and report), within a minute
            _report({"language": "python", "target": "default_timeouts_doctor", "seconds": round(seconds, 1),
                     "outcome": report.summary(), "findings": [f.key for f in report if f.severity == "fail"]})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
