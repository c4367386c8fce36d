"""Every benchmark in sequence, then docs/benchmarks.md (`make bench`).

    python bench/run_all.py                 # sizes for a 2-core machine, under 30 minutes
    BENCH_QUICK=1 python bench/run_all.py   # a few minutes: small series, fewer runs
    python bench/run_all.py --only encode,read

Each benchmark writes its results JSON (bench/results/, js/bench/results/) in the format of
bench/record.py; bench/report.py then writes docs/benchmarks.md and its charts. A benchmark that
fails is reported at the end and the others still run; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402
import report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable


def steps(quick: bool) -> list[tuple[str, list[str], Path]]:
    """(name, command, working directory) of every benchmark at the chosen size."""
    bench, js = REPO / "bench", REPO / "js"
    return [
        ("encode", [PY, str(bench / "encode.py"), *(["--small", "--repeats", "1"] if quick else ["--repeats", "2"]), "--no-double"], REPO),
        ("read", [PY, str(bench / "read.py"), *(["--small", "--reps", "3"] if quick else ["--reps", "7"])], REPO),
        ("append", [PY, str(bench / "append.py"), *(["--small"] if quick else [])], REPO),
        ("composite", [PY, str(bench / "composite.py"), *(["--small"] if quick else [])], REPO),
        ("scale", [PY, str(bench / "scale.py"), "--sizes", "2048,4096" if quick else "4096,8192"], REPO),
        ("region", [PY, str(bench / "region.py"), *(["--small"] if quick else [])], REPO),
        ("reader", ["node", "bench/run.mjs"], js),
        ("browser", ["node", "bench/compare.mjs", *(["--quick"] if quick else [])], js),
        ("browser-region", ["node", "bench/compare.mjs", "--ops", "region", *(["--quick"] if quick else [])], js),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated names: encode, read, append, composite, scale, region, reader, browser, browser-region")
    args = parser.parse_args()
    quick = record.quick()
    env = {**os.environ, **({"BENCH_QUICK": "1", "BENCH_REPS": "3"} if quick else {})}
    chosen = set(args.only.split(",")) if args.only else None
    failed, took = [], {}
    for name, command, cwd in steps(quick):
        if chosen is not None and name not in chosen:
            continue
        print(f"== {name} ({'quick' if quick else 'full'}): {' '.join(command)}", flush=True)
        started = time.perf_counter()
        if subprocess.run(command, cwd=cwd, env=env).returncode != 0:
            failed.append(name)
        took[name] = time.perf_counter() - started
    print("== report", flush=True)
    report.main([])
    print("took: " + ", ".join(f"{k} {v:.0f} s" for k, v in took.items()))
    if failed:
        sys.exit(f"error: these benchmarks failed: {', '.join(failed)} (their earlier results, if any, are in the report)")


if __name__ == "__main__":
    main()
