"""A demo store built from nothing: `python -m chronozarr.demo OUTDIR [--small]`.

The series is synthetic and generated on the spot (numpy only, seeded, no downloads): ten years of
monthly Sentinel-2-like composites of a meandering river migrating across a forested floodplain in
the Peruvian Amazon (UTM 18S). Bends grow and travel downstream, so sand bars appear on the inside
of bends and slowly revegetate into scroll bars; vegetation greens up every wet season; a few wet
season dates carry residual clouds, flagged in the mask and with zero coverage.

`series` builds the arrays from the river `scene`; `command` encodes, checks and serves them.
"""

from ..errors import DemoError
from .command import STORE_NAME, main, verify_level0
from .scene import BANDS
from .series import CRS, ORIGIN, PIXEL, PROVENANCE, START, cloudy_dates, demo_series

__all__ = [
    "BANDS",
    "CRS",
    "ORIGIN",
    "PIXEL",
    "PROVENANCE",
    "START",
    "STORE_NAME",
    "DemoError",
    "cloudy_dates",
    "demo_series",
    "main",
    "verify_level0",
]
