"""The hostile corpus: mutated stores (tests/fuzz/corpus_cases.py) written to disk one at a time
and given to one reader until the seconds are spent. With --reader python each store is read by
the Python reader and run through `info`, `validate` and `doctor` (over HTTP, from `StoreServer`
in a process of its own); with --reader js it is read by the JS reader. One JSON line per store
goes to OUT, then a summary line; stores that end badly are kept under OUT's directory.

Silent wrong values are counted apart when no reader could tell them from the truth: the store
is valid and holds other values (a chunk copied from another key, shard-index entries swapped, a
chunk removed), a damaged chunk of a store without checksums still decodes to a chunk's size
(checked with numcodecs, not our decoder), or `validate` finds nothing wrong with the store.

Usage: python tests/fuzz/corpus.py --reader python|js --seconds S OUT.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numcodecs  # noqa: E402
from corpus_cases import CASES, OBJECTS, Case  # noqa: E402
from corpus_tools import HANG_SECONDS, PYTHON, Truth, cli_call, forked, js_read, judge_cli, python_probe  # noqa: E402
from hostile_stores import build_case  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

DOCTOR_TOTAL = 30.0  # doctor's --total-timeout here: it must end within it (and a little for its start)
SERVER = "import sys, time\nfrom chronozarr.serve import StoreServer\ns = StoreServer(sys.argv[1]).__enter__()\nprint(s.url, flush=True)\ntime.sleep(1e9)"
REPORTS = {0: "correct", 1: "correct", 2: "clear_error"}  # validate and doctor: a report, or one error line
BAD = {"crash", "hang", "over_1gib", "silent_wrong"}
CHUNK_BYTES = 16 * 16 * 2  # one band of 16 x 16 uint16


def materialize(case: Case, directory: Path, bases: dict[str, Path]) -> Path:
    """The case's store under `directory` (a hostile case copies its base from `bases`)."""
    if case.hostile:
        return build_case(directory, case.hostile, bases)
    store = directory / "s"
    for key, data in OBJECTS[case.base].items():
        if key not in case.edits:
            _put(store / key, data)
    for key, edit in case.edits.items():
        _put(store / key, edit)
    return store


def _put(path: Path, edit: bytes | str | None) -> None:
    if edit is None:
        return
    if edit == "parent-file":
        shutil.rmtree(path.parent, ignore_errors=True)
        path.parent.unlink(missing_ok=True)
        path.parent.parent.mkdir(parents=True, exist_ok=True)  # the chunk's directory may not exist (an all-fill chunk is not stored)
        path.parent.write_bytes(b"\x00" * 8)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(edit, bytes):
        path.write_bytes(edit)
    elif edit == "directory":
        path.mkdir()
        (path / "0").write_bytes(b"\x00" * 8)
    elif edit == "fifo":
        os.mkfifo(path)
    elif edit == "socket":
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
    elif edit == "dev-zero":
        path.symlink_to("/dev/zero")


def _still_decodes(case: Case) -> bool:
    """Whether the damaged chunk decodes, by numcodecs, to exactly one chunk's bytes."""
    if case.chunk is None or len(case.chunk) > 2**20:
        return False
    codec = numcodecs.Blosc() if case.base == "blosc" else numcodecs.Zstd()
    try:
        return len(bytes(codec.decode(case.chunk))) == CHUNK_BYTES
    except Exception:  # noqa: BLE001  # any refusal of the codec means a reader can notice
        return False


def undetectable(case: Case, validate_passed: bool | None) -> bool:
    """Whether a silent wrong read of this case is one no reader could avoid (module docstring)."""
    if case.valid_store:
        return True
    if case.single_chunk:
        return not case.checksum and _still_decodes(case)
    return bool(validate_passed)


class Corpus:
    """The working directories, the honest bases and their truth, and the server for doctor."""

    def __init__(self, reader: str, out: Path) -> None:
        self.reader, self.out = reader, out
        self.work = Path(tempfile.mkdtemp(prefix=f"chronozarr-corpus-{reader}-"))
        self.keep = out.parent / f"corpus-kept-{reader}"
        self.keep.mkdir(parents=True, exist_ok=True)
        self.serve_log = out.with_suffix(".serve.log")
        self.bases, self.truth_dir = self.work / "bases", self.work / "truth"
        self.truth: dict[str, Truth] = {}
        self.base_paths: dict[str, Path] = {}
        for name in OBJECTS:
            self.base_paths[name] = materialize(Case(name, "honest"), self.bases / name, {})
            self.truth[name] = Truth.of(self.base_paths[name])
            self.truth[name].write(self.truth_dir / name)
        self.stores = self.work / "stores"
        self.stores.mkdir()
        self.server: subprocess.Popen[str] | None = None
        self.url = ""
        self.count = 0
        self.js_baseline = 0

    def start(self) -> None:
        if self.reader == "python":
            code = SERVER
            with self.serve_log.open("w") as log:  # what serve prints: a traceback there is a crash of serve
                self.server = subprocess.Popen([PYTHON, "-c", code, str(self.stores)], stdout=subprocess.PIPE, stderr=log, text=True)
            assert self.server.stdout is not None
            self.url = self.server.stdout.readline().strip()
            self._warm()
        else:
            honest = js_read(self.base_paths["star"], self.truth_dir / "star", self.work / "r.json", 0)
            assert honest["outcome"] == "correct", honest
            self.js_baseline = honest["growth"]

    def _warm(self) -> None:
        """Run `info` and `validate` once here, on an honest base, and import what `doctor` imports
        lazily (zarr-python, aiohttp, fsspec's HTTP), so each forked child inherits those modules
        instead of importing them again: that was most of a store's time. doctor itself is not run
        here: its HTTP session would be inherited by every child, and collected there with a warning
        on the child's stderr."""
        base = materialize(Case("star", "honest"), self.stores / "warm", {})
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
            for argv in (["info", str(base)], ["validate", str(base)]):
                assert cli_call(argv)["exit"] == 0, argv
        python_probe(base, self.truth["star"])
        for module in ("aiohttp", "zarr", "zarr.storage", "fsspec.implementations.http", "chronozarr.check.doctor"):
            importlib.import_module(module)
        shutil.rmtree(self.stores / "warm")

    def stop(self) -> None:
        if self.server:
            self.server.kill()
            self.server.wait()
        shutil.rmtree(self.work, ignore_errors=True)

    def run(self, case: Case) -> dict[str, Any]:
        """Every tool of this reader on the case's store: the JSON line of the store."""
        self.count += 1
        name = f"{self.count:06d}"
        store = materialize(case, self.stores / name, self.base_paths)
        truth, result = self.truth[case.base], self.work / "r.json"
        tools: dict[str, dict[str, Any]] = {}
        if self.reader == "js":
            tools["js"] = js_read(store, self.truth_dir / case.base, result, self.js_baseline)
        else:
            tools["python"] = forked(lambda: python_probe(store, truth), result)
            tools["info"] = judge_cli(forked(lambda: cli_call(["info", str(store)]) | {"outcome": "correct"}, result), {0: "correct", 2: "clear_error"})
        reader = tools.get("python") or tools["js"]
        if self.reader == "python" or reader["outcome"] == "silent_wrong":
            tools["validate"] = judge_cli(forked(lambda: cli_call(["validate", str(store)]) | {"outcome": "correct"}, result), REPORTS)
        if self.reader == "python":
            url = f"{self.url}/{store.relative_to(self.stores).as_posix()}"
            argv = ["doctor", url, "--timeout", "5", "--total-timeout", str(DOCTOR_TOTAL)]
            doctor = forked(lambda: cli_call(argv) | {"outcome": "correct"}, result, limit=DOCTOR_TOTAL + 5)
            tools["doctor"] = judge_cli(doctor, REPORTS)
        passed = tools["validate"].get("exit") == 0 if "validate" in tools else None
        hidden = reader["outcome"] == "silent_wrong" and undetectable(case, passed)
        if passed and (reader["outcome"] == "silent_wrong" or (case.checksum and case.single_chunk)):
            tools["validate"]["outcome"] = "silent_wrong"
        for tool in tools.values():
            if tool["outcome"] == "silent_wrong" and hidden:
                tool["outcome"] = "undetectable"
            if tool["outcome"] not in BAD:
                tool.pop("stderr", None)
        line = {"store": name, "base": case.base, "kind": case.kind, "hostile": case.hostile, "checksum": case.checksum,
                "single_chunk": case.single_chunk, "tools": tools}
        if any(t["outcome"] in BAD for t in tools.values()):
            shutil.move(str(self.stores / name), self.keep / name)
            (self.keep / f"{name}.json").write_text(json.dumps(line, indent=1, default=str))
        shutil.rmtree(self.stores / name, ignore_errors=True)
        return line


def summary(lines: list[dict[str, Any]], reader: str, seconds: float, serve_tracebacks: int | None) -> dict[str, Any]:
    """Outcomes per tool, over all stores and over the checksum stores' single-chunk damage, and
    the tracebacks serve printed while it served the stores to doctor (None for the JS reader)."""
    tools: dict[str, Counter[str]] = {}
    checksum: dict[str, Counter[str]] = {}
    for line in lines:
        for tool, ending in line["tools"].items():
            tools.setdefault(tool, Counter())[ending["outcome"]] += 1
            if line["checksum"] and line["single_chunk"]:
                checksum.setdefault(tool, Counter())[ending["outcome"]] += 1
    kinds = Counter(line["kind"] for line in lines)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent).stdout.strip()
    return {"summary": True, "reader": reader, "commit": commit or "unknown", "seconds": round(seconds, 1), "stores": len(lines), "kinds": dict(kinds),
            "serve_tracebacks": serve_tracebacks,
            "tools": {k: dict(v) for k, v in tools.items()}, "checksum_single_chunk": {k: dict(v) for k, v in checksum.items()}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reader", choices=["python", "js"], required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    corpus = Corpus(args.reader, args.out)
    lines: list[dict[str, Any]] = []
    started = time.monotonic()
    quiet = list(HealthCheck)

    def body(case: Case) -> None:
        if time.monotonic() - started > args.seconds:
            return
        line = corpus.run(case)
        lines.append(line)
        with args.out.open("a") as out:
            out.write(json.dumps(line, default=str) + "\n")

    try:
        corpus.start()
        while time.monotonic() - started < args.seconds:
            settings(max_examples=50, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=quiet)(given(CASES)(body))()
    finally:
        corpus.stop()
    tracebacks = corpus.serve_log.read_text(errors="replace").count("Traceback") if corpus.serve_log.exists() else None
    total = summary(lines, args.reader, time.monotonic() - started, tracebacks)
    with args.out.open("a") as out:
        out.write(json.dumps(total) + "\n")
    print(json.dumps(total, indent=1))
    bad = sum(n for tool in total["tools"].values() for outcome, n in tool.items() if outcome in BAD - {"silent_wrong"})
    return 1 if bad or tracebacks or any(t.get("silent_wrong") for t in total["checksum_single_chunk"].values()) else 0


if __name__ == "__main__":
    assert HANG_SECONDS == 60.0
    sys.exit(main())
