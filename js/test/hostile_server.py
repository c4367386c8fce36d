"""Serve a directory as one of the misbehaving hosts of tests/hostile_hosts.py, for the JS tests.

Usage: python hostile_server.py DIR NAME   prints the server's URL, serves until stdin closes
       (NAME may also be one of HONEST_QUIRKS: hosts that are correct but for a habit readers must allow)
       python hostile_server.py --list     prints the hosts as JSON
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from faulty_host import faulty_server  # noqa: E402
from hostile_hosts import CLIENT_TIMEOUT, HOSTS, STALL, switches  # noqa: E402

# Not faults: a host that answers 403 for an absent key (a bucket that denies listing) is honest.
HONEST_QUIRKS: dict[str, dict[str, object]] = {"absent_403": dict(missing_status=403)}


def main(argv: list[str]) -> None:
    if argv[0] == "--list":
        hosts = {name: {"shardedOnly": host.sharded_only} for name, host in HOSTS.items()}
        print(json.dumps({"hosts": hosts, "clientTimeoutMs": CLIENT_TIMEOUT * 1000, "stallMs": STALL * 1000}))
        return
    directory, name = argv
    options = HONEST_QUIRKS[name] if name in HONEST_QUIRKS else switches(name)
    with faulty_server(directory, **options) as server:
        print(server.url, flush=True)
        sys.stdin.read()  # until the test closes stdin or ends this process


if __name__ == "__main__":
    main(sys.argv[1:])
