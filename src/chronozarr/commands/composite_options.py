"""The options of temporal composites, which `convert` and `append` share: the period, the reducer,
which observations are valid, the gap fill and the Sentinel-2 baseline convention. Defined once,
in the form of commands/options.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import typer

from ..format.periods import CALENDAR
from ..format.reducers import REDUCERS
from ..inputs.composites import GAP_FILLS, HARMONIZE, composite_options
from .options import _option

COMPOSITE_OPTIONS = (
    _option("composite", str | None, typer.Option(
        None, metavar="|".join(CALENDAR) + "|NND",
        help="Composite the scenes per period (ISO week; NND: N days from the first date or --period-start); "
        "each period is one timestep labelled with its start (UTC).",
    )),
    _option("reducer", str | None, typer.Option(
        None, metavar="|".join(REDUCERS),
        help="Per-pixel reducer over a period's valid observations (default median; append: the store's); integer median/mean round half to even.",
    )),
    _option("valid", list[str] | None, typer.Option(
        None, metavar="ASSET:V1,V2,...", help="A mask asset's classes kept, e.g. scl:4,5,6,7,11 (repeatable; read by nearest neighbour).",
    )),
    _option("mask_bits", list[str] | None, typer.Option(
        None, metavar="ASSET:BITS", help="QA_PIXEL bits that make an observation invalid, e.g. qa_pixel:fill,dilated,cirrus,cloud,shadow,snow.",
    )),
    _option("gap_fill", str | None, typer.Option(
        None, metavar="|".join(GAP_FILLS),
        help="A pixel with no valid observation: invalid (none, default; append: the store's), or the last valid value (coverage 0).",
    )),
    _option("period_start", str | None, typer.Option(None, metavar="DATE", help="The first day of fixed NND periods (default: the first date).")),
    _option("harmonize", str | None, typer.Option(
        None, metavar="|".join(HARMONIZE),
        help="Sentinel-2 baselines: offset puts scenes before 04.00 on its -1000 DN convention (default for a known mix); none keeps values.",
    )),
)


def composite_arguments(options: Mapping[str, Any]) -> dict[str, Any]:
    """convert's (and append's) keyword arguments for composites."""
    args = {p.name: options[p.name] for p in COMPOSITE_OPTIONS}
    args |= {"valid": tuple(options["valid"] or ()), "mask_bits": tuple(options["mask_bits"] or ())}
    if args["composite"] is None:
        composite_options(**args)  # the other options without --composite are refused, naming it
    return args
