"""Write docs/reliability.md from what `make fuzz` ran: the fuzz targets' counts and seconds, the
regression cases and their outcomes, the default timeouts as measured, and the limits the readers
keep, read from the code that keeps them (so the page cannot drift from it).

Usage: python tests/fuzz/reliability.py RESULTS_DIR OUT.md
RESULTS_DIR holds targets.jsonl, cases-python.xml (pytest --junitxml) and cases-js.tap.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus_report  # noqa: E402
import hostile_hosts  # noqa: E402
import hostile_stores  # noqa: E402

from chronozarr.check.doctor_client import DEFAULT_TOTAL_TIMEOUT, RETRIED  # noqa: E402
from chronozarr.format.array_doc import MAX_ARRAY_BYTES  # noqa: E402
from chronozarr.format.zarrjson import MAX_JSON_DEPTH  # noqa: E402
from chronozarr.serve import ServeOptions  # noqa: E402
from chronozarr.serve.server import IDLE_BEFORE_CLOSE, REQUEST_LOG_LIMIT  # noqa: E402
from chronozarr.store import DEFAULT_MAX_OBJECT_BYTES  # noqa: E402
from chronozarr.store.http import DEFAULT_BACKOFF, DEFAULT_DEADLINE, DEFAULT_RETRIES, DEFAULT_TIMEOUT, MAX_REDIRECTS  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _targets(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _python_outcomes(path: Path) -> dict[str, str]:
    """{test id: "passed" | "failed" | "skipped"} from a junit file."""
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for case in ET.parse(path).getroot().iter("testcase"):
        state = "failed" if case.find("failure") is not None or case.find("error") is not None else "skipped" if case.find("skipped") is not None else "passed"
        out[f"{case.get('classname')}::{case.get('name')}"] = state
    return out


def _js_outcomes(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        match = re.match(r"\s*(not ok|ok) \d+ - (.*?)(\s+# SKIP.*)?$", line)
        if match:
            out[match.group(2)] = "skipped" if match.group(3) else "passed" if match.group(1) == "ok" else "failed"
    return out


def _held(states: list[str]) -> str:
    states = [s for s in states if s != "skipped"]
    if not states:
        return "not run"
    return "held" if all(s == "passed" for s in states) else "**FAILED**"


def _find(outcomes: dict[str, str], *fragments: str) -> list[str]:
    return [state for key, state in outcomes.items() if all(f in key for f in fragments)]


def _worst(timeout: float, delays: list[float]) -> float:
    return (len(delays) + 1) * timeout + sum(delays)


def render(results: Path) -> str:
    targets = _targets(results / "targets.jsonl")
    py = _python_outcomes(results / "cases-python.xml")
    js = _js_outcomes(results / "cases-js.tap")
    fuzz = [t for t in targets if "examples" in t]
    defaults = {f"{t['language']}:{t['target']}": t for t in targets if t["target"].startswith("default_timeouts")}
    seconds = os.environ.get("FUZZ_SECONDS", "60")
    # the commit that ran, written by make fuzz when it started
    commit = (results / "commit").read_text().strip() if (results / "commit").exists() else \
        subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout.strip() or "unknown"
    corpus = corpus_report.load(results)
    py_delays = [DEFAULT_BACKOFF * 2**i for i in range(DEFAULT_RETRIES)]
    js_default = defaults.get("js:default_timeouts_read", {})
    js_timeout = js_default.get("timeoutMs", 10_000) / 1000
    js_delays = [d / 1000 for d in js_default.get("retryDelaysMs", [250, 1000, 3000])]
    serve = ServeOptions()
    lines = [
        "# Reliability: stores from strangers, hosts that misbehave",
        "",
        "This page is written by `make fuzz` (`tests/fuzz/reliability.py`); do not edit it by hand.",
        f"Last run: {dt.date.today().isoformat()}, commit {commit}, {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores, FUZZ_SECONDS={seconds}. `make test` runs a short deterministic slice of every",
        "target below; `make fuzz` runs each for FUZZ_SECONDS with fresh random examples, then every",
        "regression case, then waits out the default timeouts against a server that never answers; and,",
        "meanwhile, gives the hostile corpus to each reader (below).",
        "",
        "Allowed outcomes, everywhere: the stored values, or the reader's own error (`StoreError` or",
        "`FetchError`, from the CLI one `error:` line and exit 2) naming the object. A hang past the",
        "configured timeout, an exception of another type, or peak memory above what the metadata implies",
        "fails the run.",
        "",
        "## What each reader promises",
        "",
        "| | Python reader (`open_dataset`) | JS reader (`openStore`) | `doctor` |",
        "| --- | --- | --- | --- |",
        f"| timeout of each wait (connect, first byte, pause in a body) | `timeout` = {DEFAULT_TIMEOUT:g} s | `timeoutMs` = {js_timeout * 1000:g} | `--timeout` = {DEFAULT_TIMEOUT:g} s |",
        f"| retries of a failed attempt (5xx, dropped connection, timeout) | `retries` = {DEFAULT_RETRIES}, after {', '.join(f'{d:g}' for d in py_delays)} s | `retryDelaysMs` = {', '.join(f'{d * 1000:g}' for d in js_delays)} | 5xx and dropped connections asked {RETRIED} more time; timeouts are not retried |",
        f"| deadline of one call (open, a read: every request, retry and backoff it needs) | `deadline` = {DEFAULT_DEADLINE:g} s | `deadlineMs` = {js_default.get('deadlineMs', 50_000):g} | `--total-timeout` bounds every request, retries included |",
        f"| a server that never answers fails a request after at most | {_worst(DEFAULT_TIMEOUT, py_delays):g} s | {_worst(js_timeout, js_delays):g} s | `--total-timeout` = {DEFAULT_TOTAL_TIMEOUT:g} s for all checks |",
        f"| measured, defaults, server silent | {defaults.get('python:default_timeouts_read', {}).get('seconds', 'not run')} s | {js_default.get('seconds', 'not run')} s | {defaults.get('python:default_timeouts_doctor', {}).get('seconds', 'not run')} s (silent on chunks only; a `time limit` finding says which checks it left) |",
        f"| redirects followed | {MAX_REDIRECTS}, then an error (not retried) | the platform's fetch | {MAX_REDIRECTS}, then the `redirects` finding |",
        f"| largest body read | `max_object_bytes` = {DEFAULT_MAX_OBJECT_BYTES >> 30} GiB | `maxObjectBytes` = 256 MiB | 16 MiB per check, {DEFAULT_MAX_OBJECT_BYTES >> 30} GiB for the plain-zarr object |",
        "",
        "Both readers, on every store:",
        "",
        "- A chunk never decodes to more than its shape holds: a zstd frame that declares no size is decoded",
        "  as if it declared the chunk's size (the decoder allocates exactly that and fails on more or less),",
        "  gzip stops one byte past the bound, and a blosc chunk's header must agree with the array (sizes,",
        "  compressor, shuffle, item size; bit shuffle only where the array declares it) and its streams must fill it exactly.",
        "- A shard index must pass its crc32c, and every entry must be empty (both values 2^64-1) or name",
        "  bytes of its own: inside the shard, clear of the index, overlapping and repeating no other entry.",
        "- The star-delta schedule must be spec 4.2's: anchors exactly [0, k, 2k, ...] and each reference",
        "  an anchor at distance 0 < d < k; `mask_variable` and `coverage_variable` must be array names.",
        f"- Documents nested deeper than {MAX_JSON_DEPTH} levels, shapes beyond 2^53 or holding more than",
        f"  {MAX_ARRAY_BYTES + 1:.3g} bytes, timestamps without a four-digit year are refused when opened;",
        "  a read whose output cannot be allocated is our error naming the array (read a window).",
        "- In a directory only regular files are objects: a FIFO, socket or device (or a link to one), or a",
        "  directory where an object should be, is refused before a byte is read, and the validator names it.",
        "- A level whose shape disagrees with `chronozarr.levels`, does not halve the level below or holds no",
        "  pixels is refused when opened; a string chunk (band names) decodes within a bound its shape sets.",
        "",
        f"`chronozarr serve` answers at most {serve.max_connections} connections at once (more wait in the listen queue, and connections without a request for {IDLE_BEFORE_CLOSE:g} s are closed first to make room), closes a connection idle for",
        f"{serve.idle_timeout:g} s, answers a Range with a number of more than 20 digits 416, logs requests only with `--log`",
        f"(dropped rather than waited for when stderr is not read) and keeps the last {REQUEST_LOG_LIMIT:,} for tests.",
        "",
        '## Checksums: what a store can and cannot detect',
        '',
        'Without checksums, a reader detects damage only where the bytes stop being a valid chunk: a zstd',
        'or gzip stream that no longer decodes or decodes to the wrong size, a blosc header that disagrees',
        'with the array, a shard index whose own crc32c fails. A flipped bit inside a compressed stream, a',
        'valid frame of another chunk in its place, or two shard-index entries swapped (the index is then',
        'rewritten with a valid crc32c) decode to values of the right size that no reader can tell from the',
        'truth, and `validate` passes such stores. The Python reader decodes a zstd chunk only as far as a',
        'read needs (a pixel\'s history, the top rows of a chunk: the 128 KiB blocks up to the last byte it',
        'reads, in a frame whose blocks are whole and of that size); damage past that point is then found by',
        'a read that reaches it and by `validate`, not by the pixel\'s read, which gives the intact values.',
        '',
        '`encode --checksum` (and `convert --checksum`; `append` keeps what the store has) ends every data,',
        'mask and coverage chunk with the crc32c of its compressed bytes: the Zarr v3 `crc32c` codec after',
        'the compressor. Both readers and `validate` check it before decoding (`validate` reads every chunk',
        "of a local store once), so any change to a chunk's bytes is refused as `crc32c does not match`,",
        'naming the chunk. It does not detect an intact chunk, checksum included, that was copied or moved to',
        "another key, or shard-index entries swapped between intact chunks: the checksum covers a chunk's",
        'bytes, not where they sit. Coordinate arrays carry no checksum.',
        '',
        'Cost: 4 bytes a chunk (0.0006 % of a 650 KB compressed 512 x 512 x 4 uint16 chunk). Time: the Python',
        "reader's crc32c (google-crc32c) runs at about 7 GB/s, 0.03 ms for that chunk against 4.5 ms to",
        "decode it; the JS reader's table crc32c at about 220 MB/s, about 3 ms for it, close to its decode time.",
        '',
        'Other readers (tested: tests/interop/test_plain_readers.py, tests/read/test_checksum.py,',
        'js/test/zarrita.test.js): zarr-python 3 and zarrita read checksummed stores and verify the',
        "checksum; GDAL 3.12's Zarr driver (through rasterio) refuses them with `Unsupported codec: crc32c`;",
        "zarr-layer was not tested here (it reads through zarrita's codec registry). Stores written without",
        '`--checksum` are unchanged, byte for byte.',
        "",
    ]
    lines += corpus_report.render(corpus)
    lines += [
        "## Fuzz targets",
        "",
        "Peak memory growth is how much the test process's peak resident memory rose over all of a",
        "Python target's examples (a mutated document may declare chunks of up to 2 GiB, the bound on one",
        "chunk, whose fill a read then holds); the stores from strangers below bound it per read.",
        "",
        "| language | target | examples | seconds | peak memory growth |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for t in fuzz:
        growth = f"{t['peak_growth'] / 2**20:.1f} MiB" if "peak_growth" in t else "-"
        lines.append(f"| {t['language']} | {t['target']} | {t['examples']:,} | {t['seconds']:g} | {growth} |")
    if not fuzz:
        lines.append("| | not run | | | |")
    py_fuzz = _find(py, "test_fuzz_")
    js_fuzz = _find(js, "fuzz:")
    lines += ["", f"Outcome: Python targets {_held(py_fuzz)}, JS targets {_held(js_fuzz)}.", ""]
    lines += [
        "## Stores from strangers (tests/hostile_stores.py)",
        "",
        "Each is read in a process of its own, with a deadline and a bound on peak memory growth of 64 MiB",
        "(the chunks hold 512 bytes); `info` and `validate` run on each as a user runs them.",
        "",
        "| case | flaw | Python | JS |",
        "| --- | --- | --- | --- |",
    ]
    for name, case in hostile_stores.CASES.items():
        python = _held(_find(py, f"[{name}]"))
        javascript = _held(_find(js, f"hostile store ends in our error: {name}")) if case.js else "n/a"
        lines.append(f"| {name} | {hostile_stores.ABOUT[name]} | {python} | {javascript} |")
    lines += [
        "",
        "## Hosts that misbehave (tests/hostile_hosts.py)",
        "",
        f"Served by `StoreServer` on 127.0.0.1, faults on chunks and shards; readers use a {hostile_hosts.CLIENT_TIMEOUT:g} s timeout.",
        "doctor must name each in its own finding.",
        "",
        "| host | behaviour | Python reader | JS reader | doctor finding | doctor |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, host in hostile_hosts.HOSTS.items():
        check, fragment = host.finding
        lines.append(
            f"| {name} | {hostile_hosts.ABOUT[name]} | {_held(_find(py, 'test_hostile_http', f'[{name}-'))} | "
            f"{_held(_find(js, f'in time: {name},'))} | `{check}`: ...{fragment}... | {_held(_find(py, 'test_doctor_hosts', f'[{name}]'))} |"
        )
    other = {k: v for k, v in py.items() if "test_serve_limits" in k or "test_reproducible" in k}
    lines += [
        "",
        "## Also run",
        "",
        f"- `chronozarr serve` against a hostile client (tests/serve/test_serve_limits.py): {_held(_find(other, 'test_serve_limits'))}.",
        f"- Two encodes of one input are byte-identical for every codec and layout (tests/write/test_reproducible.py): {_held(_find(other, 'test_reproducible'))}.",
        "",
        "Not covered here: a disk that fills up or turns read-only while `encode` or `append` writes (the",
        "writer's own tests); a host that trickles a body a byte at a time, just inside the timeout, is bounded",
        "only by the largest body a reader accepts; and in a store written without `--checksum`, a blosc or zstd chunk whose compressed bytes are",
        "damaged in a way the codec cannot notice decodes to other values of the right size in any reader",
        "(see Checksums above).",
        "",
        "What the silent wrong reads above are, as far as runs have shown (none on a `--checksum` store):",
        "both readers give the times of the `year_2300` case as `chronozarr.times` lists them (spec 3.5",
        "makes that list primary, and the time array disagrees with it), the Python reader refusing them",
        "only where they go into xarray (outside datetime64[ns]), and `validate` reports the store; a shard of a store without `--checksum` damaged inside two or more of its inner chunks,",
        "each still a zstd frame of the right size, reads as other values in either reader (`validate`",
        "reports it: the levels above no longer hold its means); and in earlier runs the JS reader's",
        "blosc-lz4 decoder (numcodecs' WebAssembly c-blosc) decoded some damaged lz4 streams that the",
        "Python reader's c-blosc refuses. A file where a directory of chunks should be read as fill values in",
        "both readers up to commit dd0cfb8; since a4c286d it is our error naming the object",
        "(`chunk_directory_is_a_file` above).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    results, out = Path(argv[0]), Path(argv[1])
    text = render(results)
    out.write_text(text)
    return 1 if "**FAILED**" in text else 0  # a failed case, target or corpus count


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
