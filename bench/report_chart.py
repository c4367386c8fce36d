"""The chart of one benchmark: the primary metric of every row, one panel per setting.

Bars are medians, whiskers the min and max of the runs; chronozarr first in each operation,
floors hatched. A log axis when the values span more than a factor of 30.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from report import blocks, fmt, primary

SUBJECT = "#1f6fb4"
PEERS = ("#e07b39", "#6aa84f", "#9e4fb0", "#c9a227", "#d0587e")
FLOOR = "#9a9a9a"


def colours(doc: dict[str, Any]) -> dict[str, str]:
    """One colour per tool across the whole chart."""
    out: dict[str, str] = {}
    peers = iter(PEERS * 3)
    for r in doc["rows"]:
        if r["tool"] in out:
            continue
        out[r["tool"]] = SUBJECT if r["kind"] == "subject" else FLOOR if r["kind"] == "floor" else next(peers)
    return out


def chart(doc: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric = primary(doc)
    key = metric["key"]
    groups: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {}
    for (group, op), rows in blocks(doc):
        groups.setdefault(group, []).append((op, [r for r in rows if key in r["values"]]))
    colour = colours(doc)
    heights = [sum(len(rows) + 1.2 for _, rows in ops) for ops in groups.values()]
    fig, axes = plt.subplots(len(groups), 1, figsize=(10, 0.9 + 0.26 * sum(heights) + 0.5 * len(groups)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    values = [r["values"][key]["median"] for ops in groups.values() for _, rows in ops for r in rows]
    positive = [v for v in values if v > 0]
    log = bool(positive) and max(positive) / min(positive) > 30
    for ax, (group, ops) in zip(axes[:, 0], groups.items()):
        _panel(ax, group, ops, key, metric["unit"], colour, log)
    axes[-1, 0].set_xlabel(f"{metric['label']} ({metric['unit']}), median; whiskers: min to max of the runs")
    fig.suptitle(f"{doc['title']}\n{doc['date'][:10]}, {doc['mode']} run", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _panel(ax: Any, group: str, ops: list[tuple[str, list[dict[str, Any]]]], key: str, unit: str, colour: dict[str, str], log: bool) -> None:
    """One setting: per operation a heading, then a bar per row labelled by its tool."""
    from matplotlib.transforms import blended_transform_factory

    heading = blended_transform_factory(ax.transAxes, ax.transData)
    positive = [r["values"][key]["median"] for _, rows in ops for r in rows if r["values"][key]["median"] > 0]
    smallest = min(positive, default=1.0)
    y = 0.0
    ticks, labels = [], []
    for op, rows in ops:
        ax.text(0.0, y - 0.15, op, transform=heading, fontsize=7.5, fontweight="bold", va="bottom")
        y += 0.5
        for r in rows:
            v = r["values"][key]
            err = [[max(0.0, v["median"] - v["min"])], [max(0.0, v["max"] - v["median"])]]
            floor = r["kind"] == "floor"
            ax.barh(y, v["median"], xerr=err, color=colour[r["tool"]], hatch="//" if floor else None,
                    edgecolor="white" if not floor else "#555555", height=0.8, capsize=2)
            text = fmt(v["median"], unit) if v["median"] > 0 or not log else "0 (nothing to fetch or do)"
            ax.text(v["median"] if v["median"] > 0 or not log else smallest, y, " " + text, va="center", fontsize=7)
            ticks.append(y)
            labels.append(f"floor: {r['tool']}" if floor else r["tool"])
            y += 1
        y += 0.4
    ax.set_yticks(ticks, labels, fontsize=7)
    ax.set_ylim(y, -0.8)
    ax.set_title(group, fontsize=9, loc="left")
    if log:
        ax.set_xscale("log")
    ax.grid(axis="x", alpha=0.3)
    ax.margins(x=0.18)
