"""The hostile corpus's section of docs/reliability.md, from the JSON lines of tests/fuzz/corpus.py
(one per store, then a summary): outcomes per reader and tool, over every store and over the
single-chunk damage of the --checksum stores, and the stores per kind of mutation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

OUTCOMES = ("correct", "clear_error", "crash", "hang", "over_1gib", "silent_wrong", "undetectable")
HEADER = "| reader / tool | stores | correct | clear error | crash | hang (>60 s) | over 1 GiB | silent wrong | undetectable apart |"
ROWS = (("python", "python", "Python reader"), ("python", "info", "`chronozarr info`"), ("python", "validate", "`chronozarr validate`"),
        ("python", "doctor", "`chronozarr doctor` (over HTTP)"), ("js", "js", "JS reader"))
BAD = ("crash", "hang", "over_1gib")


def load(results: Path) -> dict[str, tuple[list[dict[str, Any]], dict[str, Any] | None]]:
    """{reader: (store lines, summary or None when a run did not finish)}. A reader's corpus may
    come in several runs (`corpus-python.jsonl` from make fuzz, then `corpus-python-2.jsonl` and
    on, run alone to reach a number of stores): their stores are pooled and their seconds added."""
    out = {}
    for reader in ("python", "js"):
        stores: list[dict[str, Any]] = []
        summaries: list[dict[str, Any] | None] = []
        for path in sorted(results.glob(f"corpus-{reader}*.jsonl"), key=lambda p: (len(p.name), p.name)):  # make fuzz's run first
            lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            stores += [x for x in lines if not x.get("summary")]
            summaries.append(next((x for x in lines if x.get("summary")), None))
        done = bool(summaries) and all(summaries)
        total = {"seconds": sum(x["seconds"] for x in summaries if x), "runs": len(summaries),
                 "serve_tracebacks": sum(x.get("serve_tracebacks") or 0 for x in summaries if x),
                 "commits": [f"{x.get('commit', 'unknown')} ({x['stores']:,} stores)" for x in summaries if x]} if done else None
        out[reader] = (stores, total)
    return out


def _counts(lines: list[dict[str, Any]], tool: str, only_checksum: bool = False) -> Counter[str]:
    return Counter(x["tools"][tool]["outcome"] for x in lines if tool in x["tools"] and (not only_checksum or (x["checksum"] and x["single_chunk"])))


def _row(name: str, counts: Counter[str]) -> str:
    cells = " | ".join(f"{counts.get(o, 0):,}" if counts.get(o, 0) == 0 or o not in BAD else f"**{counts[o]:,}**" for o in OUTCOMES)
    return f"| {name} | {sum(counts.values()):,} | {cells} |"


def failures(runs: dict[str, tuple[list[dict[str, Any]], dict[str, Any] | None]]) -> int:
    """Crashes, hangs and allocations over 1 GiB of any tool, silent wrong reads of a --checksum
    store with one damaged chunk, and tracebacks of the serve that gave the stores to doctor."""
    total = sum((summary or {}).get("serve_tracebacks", 0) for _, summary in runs.values())
    for reader, tool, _ in ROWS:
        lines = runs[reader][0]
        total += sum(_counts(lines, tool)[o] for o in BAD) + _counts(lines, tool, only_checksum=True)["silent_wrong"]
    return total


def _minutes(summary: dict[str, Any] | None) -> str:
    if summary is None:
        return "a run that did not finish"
    runs = "" if summary["runs"] == 1 else f" over {summary['runs']} runs"
    return f"{summary['seconds'] / 60:.1f} minutes{runs}"


def render(runs: dict[str, tuple[list[dict[str, Any]], dict[str, Any] | None]]) -> list[str]:
    stores = {reader: len(lines) for reader, (lines, _) in runs.items()}
    seconds = {reader: _minutes(summary) for reader, (_, summary) in runs.items()}
    commits = "".join(f" The {name} corpus ran on commit {', '.join(s['commits'])}."
                      for name, (_, s) in zip(("Python", "JS"), runs.values(), strict=True) if s)
    out = [
        "## The hostile corpus (tests/fuzz/corpus.py)",
        "",
        f"Mutated stores written to disk one at a time, {stores['python'] + stores['js']:,} in all: {stores['python']:,} given to the",
        f"Python reader, `info`, `validate` and `doctor` in {seconds['python']}, and {stores['js']:,} to the JS reader in",
        f"{seconds['js']}, under `nice` on the machine above (make fuzz runs both at once, beside the targets below).{commits} Each",
        "tool runs on each store in a process of its own (forked from the driver; node for the JS reader),",
        "killed at 60 s (`doctor` at its `--total-timeout` of 30 s and 5 s more); peak memory is read",
        "from the kernel when it ends. The readers read every cell of every timestep of every level the",
        "honest store has, and the Python reader a whole frame and a pixel history too, compared with the",
        "honest store's values.",
        "",
        "Outcomes: *correct* is the honest values (for the CLI: a report, or exit 0); *clear error* our",
        "`StoreError` or `FetchError` (from the CLI one `error:` line, exit 2); *crash* any other",
        "exception, a traceback or a signal; *over 1 GiB* peak memory grown by more than 1 GiB, or an",
        "allocation refused under the child's 4 GiB ceiling; *silent wrong* values that are not the",
        "honest ones without an error (for `validate`: a pass on such a store, or on a `--checksum` store",
        "with a damaged chunk). *Undetectable* silent wrong values are counted apart: the store is valid",
        "and holds other values (a chunk copied from another key, shard-index entries swapped or",
        "emptied, a chunk removed, which reads as the fill value), a damaged chunk of a store without",
        "checksums still decodes to a chunk's size (checked with numcodecs), or `validate` finds",
        "nothing wrong with the store (a document changed into another valid one: another byte order,",
        "another time).",
        "",
        HEADER,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    out += [_row(name, _counts(runs[reader][0], tool)) for reader, tool, name in ROWS]
    served = runs["python"][1]
    if served is not None:
        out += ["", f"`chronozarr serve`, which gave every store of the Python runs to `doctor`, printed {served['serve_tracebacks']:,} tracebacks."]
    out += [
        "",
        "Of these, the stores written with `--checksum` whose damage is to the bytes of one chunk (flipped,",
        "cut, extended, replaced by noise or emptied; inside a shard, the shard otherwise consistent):",
        "",
        HEADER,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    out += [_row(name, _counts(runs[reader][0], tool, only_checksum=True)) for reader, tool, name in ROWS]
    kinds = sorted({x["kind"] for lines, _ in runs.values() for x in lines})
    by_kind = {reader: Counter(x["kind"] for x in lines) for reader, (lines, _) in runs.items()}
    out += ["", "Stores per kind of mutation:", "", "| kind | Python | JS |", "| --- | ---: | ---: |"]
    out += [f"| {kind} | {by_kind['python'][kind]:,} | {by_kind['js'][kind]:,} |" for kind in kinds]
    bad = failures(runs)
    if bad:
        verdict = f"**FAILED**: {bad} crashes, hangs, allocations over 1 GiB or silent wrong reads of a damaged --checksum chunk"
    else:
        verdict = "held" if all(s for _, s in runs.values()) else "**FAILED**: a corpus run did not finish"
    out += ["", f"Outcome: {verdict}.", ""]
    return out
