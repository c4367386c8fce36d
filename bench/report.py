"""Write docs/benchmarks.md (one table and one chart per benchmark) from the results JSON.

    python bench/report.py                 # bench/results/*.json and js/bench/results/*.json
    python bench/report.py --out docs/benchmarks.md --images docs/benchmarks

Only documents in the format of bench/record.py are read; others are listed as skipped. A
benchmark's reading of its figures, written by hand, goes in docs/benchmarks/<name>-notes.md and
follows its chart. For
every block of rows (one setting, one operation) the subject's (chronozarr's) primary metric is
divided by each peer's and by each floor's, side by side. The targets: ahead of every peer that
does the same work (ratio below 1), and within 1.2x of every floor that carries a target. A miss
says by how much and, when the row carries one, what its profile shows.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SOURCES = (REPO / "bench" / "results", REPO / "js" / "bench" / "results")
SCHEMA = "chronozarr-bench/1"
FLOOR_TARGET = 1.2
ORDER = ("encode", "read", "browser", "reader", "append", "scale", "composite", "region", "browser-region")


# ---------------------------------------------------------------- the numbers


def primary(doc: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in doc["metrics"] if m.get("primary"))


def blocks(doc: dict[str, Any]) -> list[tuple[tuple[str, str], list[dict[str, Any]]]]:
    """Rows grouped by (group, op) in first-seen order, the subject first, floors last."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        out.setdefault((r["group"], r["op"]), []).append(r)
    rank = {"subject": 0, "peer": 1, "floor": 2}
    return [(key, sorted(rows, key=lambda r: rank[r["kind"]])) for key, rows in out.items()]


def median(row: dict[str, Any], key: str) -> float | None:
    value = row["values"].get(key)
    return None if value is None else value["median"]


def compare(subject: dict[str, Any], other: dict[str, Any], key: str) -> dict[str, Any]:
    """The subject's median over the other row's, and whether the target for the pair is met."""
    a, b = median(subject, key), median(other, key)
    ratio = a / b if a is not None and b else None
    out: dict[str, Any] = {"tool": other["tool"], "kind": other["kind"], "ratio": ratio, "target": None, "met": None}
    if ratio is None:
        return out
    if other["kind"] == "peer" and other.get("same_work", True):
        out.update(target="ahead (< 1x)", met=ratio < 1.0)
    elif other["kind"] == "peer" and "max_ratio" in other:
        out.update(target=f"<= {other['max_ratio']}x (the extra work's cost)", met=ratio <= other["max_ratio"])
    elif other["kind"] == "floor" and other.get("target", True):
        out.update(target=f"<= {FLOOR_TARGET}x floor", met=ratio <= FLOOR_TARGET)
    return out


def verdicts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Per block with a subject: its comparisons with every other row, and the misses."""
    key = primary(doc)["key"]
    out = []
    for (group, op), rows in blocks(doc):
        subjects = [r for r in rows if r["kind"] == "subject"]
        if not subjects:
            continue
        subject = subjects[0]
        pairs = [compare(subject, r, key) for r in rows if r is not subject]
        misses = [p for p in pairs if p["met"] is False]
        out.append({"group": group, "op": op, "subject": subject, "pairs": pairs, "misses": misses})
    return out


# ---------------------------------------------------------------- formatting


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value:.2f} s" if value >= 1 else f"{value * 1000:.1f} ms"
    if unit == "ms":
        return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.1f} ms"
    if unit == "B":
        for scale, name in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
            if abs(value) >= scale:
                return f"{value / scale:.3g} {name}" if value < 10 * scale else f"{value / scale:,.0f} {name}"
        return f"{value:.0f} B"
    if unit == "count":
        return f"{value:.0f}"
    return f"{value:.3g} {unit}".strip()


def cell(row: dict[str, Any], metric: dict[str, Any]) -> str:
    """`median (min-max)` of one metric, or the single figure when it was measured once."""
    value = row["values"].get(metric["key"])
    if value is None:
        return "-"
    text = fmt(value["median"], metric["unit"])
    if len(value.get("runs", [])) > 1 and value["min"] != value["max"]:
        text += f" ({fmt(value['min'], metric['unit'])} - {fmt(value['max'], metric['unit'])}, n={len(value['runs'])})"
    return text


def ratio_text(pair: dict[str, Any]) -> str:
    if pair["ratio"] is None:
        return "-"
    text = f"{pair['ratio']:.2f}x"
    if pair["met"] is False:
        return f"**{text} MISS**"
    return text if pair["met"] is None else f"{text} ok"


def table_rows(doc: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the benchmark's one table (markdown and terminal share them)."""
    metrics = doc["metrics"]
    head = ["setting", "operation", "tool", "work measured", *[f"{m['label']}" for m in metrics], "chronozarr / this", "target"]
    found = {(v["group"], v["op"]): v for v in verdicts(doc)}
    lines = []
    for key, rows in blocks(doc):
        verdict = found.get(key)
        by_tool = {id(p_row): p for p_row, p in _pairs_by_row(rows, verdict)}
        for r in rows:
            pair = by_tool.get(id(r))
            if r["kind"] == "subject":
                ratio, target = "1x", ("met" if verdict and not verdict["misses"] else f"missed {len(verdict['misses'])}" if verdict else "-")
            elif pair:
                ratio, target = ratio_text(pair), pair["target"] or ("other work" if r["kind"] == "peer" else "no target")
            else:
                ratio, target = "-", "-"
            tool = r["tool"] if r["kind"] != "floor" else f"floor: {r['tool']}"
            lines.append([key[0], key[1], tool, r["work"], *[cell(r, m) for m in metrics], ratio, target])
    return head, lines


def _pairs_by_row(rows: list[dict[str, Any]], verdict: dict[str, Any] | None) -> Iterable[tuple[dict[str, Any], dict[str, Any]]]:
    if not verdict:
        return []
    others = [r for r in rows if r is not verdict["subject"]]
    return zip(others, verdict["pairs"])


def text_table(doc: dict[str, Any]) -> str:
    """The table for a terminal (the scripts print it after a run)."""
    head, rows = table_rows(doc)
    rows = [[c.replace("**", "") for c in r[:3] + r[4:]] for r in rows]
    head = head[:3] + head[4:]
    widths = [max(len(x[i]) for x in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in [head, *rows]]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def markdown_table(doc: dict[str, Any]) -> str:
    head, rows = table_rows(doc)
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def misses_text(doc: dict[str, Any]) -> list[str]:
    """One line per missed target: by how much, and the profile when the row has one."""
    lines = []
    for v in verdicts(doc):
        for p in v["misses"]:
            what = f"{p['ratio']:.2f}x {'the floor' if p['kind'] == 'floor' else p['tool']} (target {p['target']})"
            line = f"- {v['group']} / {v['op']}: chronozarr at {what}"
            profile = v["subject"].get("profile")
            if profile:
                line += f"; profile: {profile.get('summary', json.dumps(profile)[:300])}"
            else:
                line += "; no profile recorded for this row"
            lines.append(line)
    return lines


def section(doc: dict[str, Any], image: str | None) -> str:
    """The markdown section of one benchmark."""
    machine = doc.get("machine", {})
    start, end = machine.get("load_average_at_start") or doc.get("load_average_at_start"), machine.get("load_average")
    load = f"load average at start {start}, at the end {end}" if start and end else f"load average at start {start or end}"
    facts = [
        f"- date: {doc['date']}, mode: {doc['mode']}" + (" (quick: indicative only)" if doc["mode"] == "quick" else ""),
        f"- machine: {machine.get('cpu_count', machine.get('cpus', '?'))} cores, {machine.get('platform', '?')}, "
        f"{_gib(machine.get('memory_bytes'))}, {load}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in sorted(doc.get("versions", {}).items())),
        *[f"- {k}: {v}" for k, v in doc.get("setup", {}).items()],
    ]
    parts = [f"## {doc['title']}", "", *facts, "", markdown_table(doc), ""]
    missed = misses_text(doc)
    parts += ["Targets missed:", "", *missed, ""] if missed else ["Every target of this benchmark is met in this run.", ""]
    if image:
        parts += [f"![{doc['title']}]({image})", ""]
    return "\n".join(parts)


def _gib(n: Any) -> str:
    return f"{n / 2**30:.0f} GiB" if isinstance(n, (int, float)) else "? GiB"


# ---------------------------------------------------------------- files


def load(paths: Iterable[Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """The results documents among `paths`, ordered as ORDER; and the names of the files skipped."""
    docs, skipped = [], []
    for path in sorted(paths):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            skipped.append(path.name)
            continue
        if isinstance(doc, dict) and doc.get("schema") == SCHEMA:
            docs.append(doc)
        else:
            skipped.append(path.name)
    docs.sort(key=lambda d: (ORDER.index(d["benchmark"]) if d["benchmark"] in ORDER else len(ORDER), d["benchmark"]))
    return docs, skipped


def write_report(docs: list[dict[str, Any]], out: Path, images: Path, skipped: list[str] = ()) -> Path:
    from report_chart import chart

    images.mkdir(parents=True, exist_ok=True)
    parts = [
        "# Benchmarks",
        "",
        "Generated by `python bench/report.py` (`make bench-report`) from the results JSON that `make bench`",
        "writes (`bench/results/*.json`, `js/bench/results/*.json`); do not edit by hand. Each table gives,",
        "for every row, the work it measures, the median with the spread of its runs, and chronozarr's",
        "median divided by that row's (below 1x: chronozarr is faster or smaller). Targets: ahead of every",
        f"peer that does the same work, and within {FLOOR_TARGET}x of the floor (the unavoidable part of the work).",
        "Figures from a shared or quick run are indicative; ratios are taken side by side in one run.",
        "",
    ]
    for doc in docs:
        png = images / f"{doc['benchmark']}.png"
        chart(doc, png)
        parts.append(section(doc, str(png.relative_to(out.parent))))
        notes = images / f"{doc['benchmark']}-notes.md"  # what the figures mean, written by hand
        if notes.exists():
            parts += [notes.read_text().strip(), ""]
    if skipped:
        parts += [f"Files not in the results format, left out: {', '.join(skipped)}.", ""]
    out.write_text("\n".join(parts))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "benchmarks.md")
    parser.add_argument("--images", type=Path, default=REPO / "docs" / "benchmarks")
    parser.add_argument("results", nargs="*", type=Path, help="result files (default: every *.json in bench/results and js/bench/results)")
    args = parser.parse_args(argv)
    paths = args.results or [p for d in SOURCES for p in d.glob("*.json")]
    docs, skipped = load(paths)
    if not docs:
        sys.exit("error: no results in the bench/record.py format; run `make bench` first")
    path = write_report(docs, args.out, args.images, skipped)
    print(f"wrote {path} ({len(docs)} benchmarks)")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
