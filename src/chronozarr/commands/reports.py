"""How `validate` and `doctor` end: the report as lines or JSON, and exit status 1 only on a failure."""

from __future__ import annotations

import json
from typing import NoReturn

import typer

from ..check.findings import Report


def finish_with(report: Report, as_json: bool) -> NoReturn:
    """Print the report and exit: 0 when nothing failed (warnings and info do not fail)."""
    typer.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.to_text())
    raise typer.Exit(0 if report.ok else 1)
