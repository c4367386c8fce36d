"""`python -m chronozarr.demo OUTDIR` and `chronozarr demo [DIR]`: generate the series, encode it,
check it reads back bit for bit, and serve it in the viewer on request."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from ..errors import ChronozarrError, DemoError
from ..format.geometry import size_text
from .scene import BANDS
from .series import CRS, PROVENANCE, demo_series

STORE_NAME = "demo.zarr"
FULL = {"n_time": 120, "height": 768, "width": 1024}
SMALL = {"n_time": 24, "height": 96, "width": 128}
FULL_CHUNK = 256  # level 0 is 3 x 4 cells, three levels: a real pyramid to scrub
SMALL_CHUNK = 32


def verify_level0(store: Path, da: xr.DataArray, mask: xr.DataArray | None = None, coverage: xr.DataArray | None = None) -> int:
    """Validate the store against the spec, then read level 0 back through the reader and compare
    every timestep (and mask and coverage) bit for bit; returns the number of timesteps checked."""
    from ..check.validate import validate
    from ..read.dataset import open_dataset

    report = validate(store)
    if not report.ok:
        raise DemoError(f"the demo store does not validate: {report.summary()}")
    expected = da.values
    with open_dataset(store) as reader:
        for t in range(expected.shape[0]):
            stored = reader.read(t)
            if not np.array_equal(stored, expected[t]):
                bad = int(np.count_nonzero(stored != expected[t]))
                raise DemoError(f"level 0 timestep {t} differs from the generated data in {bad} values")
            for name, plane, read in (("mask", mask, reader.read_mask), ("coverage", coverage, reader.read_coverage)):
                got = read(t) if plane is not None else None
                if plane is not None and (got is None or not np.array_equal(got, plane.values[t])):
                    raise DemoError(f"level 0 {name} of timestep {t} differs from the generated {name}")
    return expected.shape[0]


MARKER = ".chronozarr-demo"  # validators skip root objects named .chronozarr*: the store stays clean
MARKER_TEXT = "written by `chronozarr demo`; it replaces this store on its next run\n"


def _clear_previous(store: Path) -> None:
    """Remove a demo store this command wrote (it carries MARKER); refuse to touch anything else,
    since a user's own store copied or named demo.zarr looks just like one."""
    if not store.exists() and not store.is_symlink():
        return
    if store.is_symlink() or not store.is_dir():
        raise DemoError(f"{store} exists and is not a store directory; remove it or choose another OUTDIR")
    if (store / MARKER).is_file() and not (store / MARKER).is_symlink():
        shutil.rmtree(store)
    elif any(store.iterdir()):
        raise DemoError(
            f"{store} exists and was not written by the demo (it has no {MARKER} marker), so the demo "
            "leaves it alone; move it away or choose another OUTDIR"
        )


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chronozarr.demo",
        description="Generate the synthetic river series, encode it into OUTDIR/demo.zarr and check it reads back.",
    )
    parser.add_argument("outdir", type=Path, help="directory for demo.zarr (created if missing)")
    parser.add_argument("--small", action="store_true", help="a tiny series (24 dates, 96 x 128) for tests")
    parser.add_argument("--encoding", choices=("auto", "none", "star-delta"), default="auto", help="temporal encoding (default auto)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the scene (default 0)")
    parser.add_argument("--serve", action="store_true", help="then serve the store in the browser viewer until Ctrl-C")
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000; a free one when taken)")
    args = parser.parse_args(argv)
    try:
        store = build_demo(args.outdir, small=args.small, encoding=args.encoding, seed=args.seed, out=out)
    except ChronozarrError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not args.serve:
        out(f"viewer: `chronozarr view {store}` serves it in the browser viewer (or `chronozarr demo`)")
        return 0
    return serve_demo(store, args.port, out)


def build_demo(outdir: Path, *, small: bool = False, encoding: str = "auto", seed: int = 0, out: Callable[[str], None] = print) -> Path:
    """Generate the series, encode it into `outdir/demo.zarr` (replacing an earlier demo store,
    nothing else), validate it and read level 0 back bit for bit; returns the store's path."""
    from ..write.encode import encode

    size, chunk = (SMALL, SMALL_CHUNK) if small else (FULL, FULL_CHUNK)
    store = Path(outdir) / STORE_NAME
    _clear_previous(store)
    started = time.perf_counter()
    da, mask, coverage = demo_series(**size, seed=seed, progress=None)
    n_time, n_band, height, width = da.shape
    out(f"generated {n_time} dates x {n_band} bands of {size_text(width, height)} in {time.perf_counter() - started:.1f} s")
    summary = encode(
        da, store, crs=CRS, encoding=encoding, chunk_size=chunk, mask=mask, coverage=coverage,
        bands=BANDS, provenance=PROVENANCE,
    )
    (store / MARKER).write_text(MARKER_TEXT)
    out(f"store: {summary.path}")
    out(f"summary: {summary}")
    checked = verify_level0(store, da, mask, coverage)
    out(f"validated: level 0 identical for {checked} timesteps")
    return store


def serve_demo(store: Path, port: int, out: Callable[[str], None]) -> int:
    """Serve the store next to js/viewer on 127.0.0.1 (`port`, else a free one) until Ctrl-C."""
    from ..view import NOT_INSTALLED, start_view, viewer_installed

    if not viewer_installed():
        print(f"error: {NOT_INSTALLED}", file=sys.stderr)
        return 1
    try:
        session = start_view(store, port=port)
    except OSError:
        session = start_view(store, port=0)  # the port is taken: any free one
    out(f"viewer: {session.url}")
    if session.map_url:
        out(f"on a map (MapLibre): {session.map_url}")
    out("serving on 127.0.0.1 until Ctrl-C")
    try:
        threading_event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        if session.server is not None:
            session.server.stop()
    return 0


def threading_event():  # a seam for tests
    import threading

    return threading.Event()
