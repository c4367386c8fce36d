"""The one results format every benchmark writes and `bench/report.py` reads.

A results document is JSON:

    {"schema": "chronozarr-bench/1", "benchmark": "encode", "title": ..., "date": ..., "mode": "full",
     "machine": {...}, "versions": {...}, "setup": {"series": "...", ...},
     "metrics": [{"key": "seconds", "label": "wall", "unit": "s", "primary": true}, ...],
     "rows": [{"group": "local disk", "op": "frame", "tool": "chronozarr", "kind": "subject",
               "work": "what this row does", "same_work": true,
               "values": {"seconds": {"median": 0.1, "min": ..., "max": ..., "runs": [...]}},
               "profile": {"summary": "...", ...}}, ...]}

`kind` is "subject" (chronozarr), "peer" (a tool a user would pick instead) or "floor" (the
unavoidable part of the same work, measured alone). `same_work` says a peer does the work the
subject does, so the targets (ahead of every peer, within 1.2x of the floor) apply to the pair.
A peer doing less than the subject (`same_work` false: the same encode without an optional array)
may carry `max_ratio`, the most the subject may take over it (what the extra work may cost).
Lower is better for every metric. Anything else a script wants to keep goes under "raw".
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

SCHEMA = "chronozarr-bench/1"
RESULTS = Path(__file__).resolve().parent / "results"
KINDS = ("subject", "peer", "floor")


def quick() -> bool:
    """BENCH_QUICK=1 (or any value but "" and "0") asks every benchmark for its quick size."""
    return os.environ.get("BENCH_QUICK", "") not in ("", "0")


def stats(values: Iterable[float], digits: int = 4) -> dict[str, Any]:
    """Median, min, max and every run of a list of measurements."""
    runs = [float(v) for v in values]
    if not runs:
        raise ValueError("stats() needs at least one measurement")
    rounded = [round(v, digits) for v in runs]
    return {"median": round(statistics.median(runs), digits), "min": min(rounded), "max": max(rounded), "runs": rounded}


def single(value: float, digits: int = 4) -> dict[str, Any]:
    """A figure measured once (a size, a count): same shape as stats()."""
    return stats([value], digits)


def row(
    group: str, op: str, tool: str, kind: str, work: str, values: dict[str, Any], *, same_work: bool = True, **extra: Any
) -> dict[str, Any]:
    """One row of a results document; `values` maps metric keys to stats() dicts."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    out: dict[str, Any] = {"group": group, "op": op, "tool": tool, "kind": kind, "work": work, "same_work": same_work, "values": values}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def metric(key: str, label: str, unit: str, primary: bool = False) -> dict[str, Any]:
    return {"key": key, "label": label, "unit": unit, "primary": primary}


def versions(names: Sequence[str]) -> dict[str, str]:
    """Installed versions of the named distributions (those missing are left out)."""
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def document(
    benchmark: str,
    title: str,
    *,
    machine: dict[str, Any],
    date: str,
    setup: dict[str, Any],
    metrics: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    packages: Sequence[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """A whole results document (see the module docstring)."""
    if not any(m.get("primary") for m in metrics):
        raise ValueError(f"{benchmark}: one metric must be primary")
    doc = {
        "schema": SCHEMA,
        "benchmark": benchmark,
        "title": title,
        "date": date,
        "mode": "quick" if quick() else "full",
        "machine": machine,
        "versions": versions(("chronozarr", *packages)),
        "setup": setup,
        "metrics": metrics,
        "rows": rows,
    }
    doc.update(extra)
    return doc


def write(doc: dict[str, Any], path: Path | None = None) -> Path:
    """Write a document to `path` (default bench/results/<benchmark>.json)."""
    out = path or RESULTS / f"{doc['benchmark']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    return out
