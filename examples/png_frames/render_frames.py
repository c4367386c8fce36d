"""Render a monthly series to georeferenced PNG frames, the way an exporter hands them over.

One 8-bit RGBA PNG per month with a world file beside it (`2019-01.png` + `2019-01.pgw`, or `.wld`),
and `manifest.csv` listing them. The months are synthetic reflectance (a river reach in UTM 18S at
10 m, cloud gaps); swap `months()` for your own mosaics. One linear stretch for the whole series
(the 2nd to 98th percentile of the valid red, green and blue values to 0..255) so brightness
compares across months; alpha is 0 where no scene was valid, with RGB 0 there.

    python render_frames.py FRAMES_DIR [--sidecar pgw|wld|none]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import rasterio
from rasterio.errors import NotGeoreferencedWarning

HEIGHT, WIDTH, N_MONTH = 96, 128, 6
WEST, NORTH, PIXEL = 498_450, 9_162_200, 10  # the frames' outer edges: EPSG:32718, 10 m
MONTHS = [f"2019-{m:02d}" for m in range(1, N_MONTH + 1)]


def months(seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """red, green, blue DN (month, band, y, x) and the valid-scene flag (month, y, x)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    dn = np.stack([rng.normal(mean, 60, (N_MONTH, HEIGHT, WIDTH)) for mean in (450, 700, 400)], axis=1)
    valid = np.ones((N_MONTH, HEIGHT, WIDTH), dtype=bool)
    for m in range(N_MONTH):
        river = np.abs(x - (50 + 4 * m + 15 * np.sin(y / 14))) < 7
        bar = np.abs(x - (62 + 4 * m + 15 * np.sin(y / 14))) < 3
        dn[m][:, river] = np.array([[1000], [1150], [900]]) + rng.normal(0, 40, (3, river.sum()))
        dn[m][:, bar] = np.array([[1600], [1500], [1300]]) + rng.normal(0, 50, (3, bar.sum()))
        if m % 2:
            valid[m, 8 * m : 8 * m + 30, 80 + 4 * m : 120] = False  # a cloud left unfilled
    return dn, valid


def rgba(dn: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """8-bit RGBA frames (month, 4, y, x) under one stretch for the series."""
    lo, hi = np.percentile(dn.transpose(1, 0, 2, 3)[:, valid], [2, 98])
    rgb = np.clip(np.round((dn - lo) / (hi - lo) * 255), 0, 255).astype(np.uint8)
    rgb[np.broadcast_to(~valid[:, None], rgb.shape)] = 0
    return np.concatenate([rgb, np.where(valid, 255, 0).astype(np.uint8)[:, None]], axis=1)


def write_frame(path: Path, frame: np.ndarray, sidecar: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotGeoreferencedWarning)  # a PNG holds no georeferencing
        with rasterio.open(path, "w", driver="PNG", width=WIDTH, height=HEIGHT, count=4, dtype="uint8") as ds:
            ds.write(frame)
    if sidecar != "none":
        # x size, two rotations, y size (negative: north up), then the centre of the upper-left pixel
        lines = [PIXEL, 0, 0, -PIXEL, WEST + PIXEL / 2, NORTH - PIXEL / 2]
        path.with_suffix(f".{sidecar}").write_text("\n".join(f"{v:.10f}" for v in lines) + "\n")


def render(out: Path, sidecar: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    frames = rgba(*months())
    for month, frame in zip(MONTHS, frames, strict=True):
        write_frame(out / f"{month}.png", frame, sidecar)
    manifest = out / "manifest.csv"
    manifest.write_text("uri,datetime\n" + "".join(f"{m}.png,{m}-01\n" for m in MONTHS))
    return manifest


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sidecar", choices=["pgw", "wld", "none"], default="pgw", help="world file extension, or none")
    args = parser.parse_args()
    print(render(args.out, args.sidecar))
