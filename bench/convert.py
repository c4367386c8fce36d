"""convert of 24 single-date COGs, next to reading them with rasterio and encoding the array.

    python bench/convert.py            # 24 COGs of 4 x 2765 x 2759 uint16
    python bench/convert.py --small    # 6 COGs of 4 x 1100 x 1000, quick

The benchmark writes the COGs itself with GDAL (rasterio's COG driver, DEFLATE with the
horizontal predictor) from the synthetic series of bench/_common.py, and a manifest of them; then,
each in its own child process so peak RSS (VmHWM) is its own:

- the baseline a user would write: rasterio reads every file into one (time, band, y, x) array,
  and chronozarr.encode writes it (its two durations are timed apart, and summed);
- `chronozarr convert manifest.csv OUT` with each row of CONVERT_ROWS (the options of each row
  live there and only there: a row is one line);
- the same frames shifted by whole pixels (--grid first: read exactly where they land) and by
  fractions of a pixel (--resampling nearest: GDAL's warper), each against the unwarped convert.

Results: bench/results/convert.json. Timings on a shared machine are indicative; the ratios are
measured side by side in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

FULL = (24, 4, 2765, 2759)
SMALL = (6, 4, 1100, 1000)
CRS = "EPSG:32631"
ORIGIN = (600_000.0, 5_100_000.0)
RESOLUTION = 10.0
COMMON = ["--no-progress"]  # every convert row and the baseline's encode write the store the same way
# One row per convert run: name -> (frames, options). Adding a row (e.g. --read-ahead 2) is one line.
CONVERT_ROWS = {
    "convert": ("aligned", ["--read-ahead", "2"]),
    "convert_shifted_whole_pixels": ("shifted", ["--read-ahead", "2", "--grid", "first"]),
    "convert_shifted_warped_nearest": ("fractional", ["--read-ahead", "2", "--grid", "first", "--resampling", "nearest"]),
}
JUDGED = "convert"  # the row the targets judge and the warped rows are compared with
TARGET_RATIO = 0.9  # convert / (rasterio read + encode)
TARGET_RSS_MB = 1200
TARGET_WARP_RATIO = 1.5  # warped convert / unwarped convert

BASELINE = r"""
import json, sys, time
import numpy as np, rasterio, xarray as xr
import chronozarr
sys.path.insert(0, {bench!r})
import _common
manifest, store = {manifest!r}, {store!r}
rows = [line.split(",") for line in open(manifest).read().split()[1:]]
started = time.perf_counter()
frames = []
for uri, _ in rows:
    with rasterio.open(uri) as ds:
        frames.append(ds.read())
values = np.stack(frames)
with rasterio.open(rows[0][0]) as ds:
    t = ds.transform
read = time.perf_counter() - started
n_time, n_band, height, width = values.shape
da = xr.DataArray(values, dims=("time", "band", "y", "x"), coords={{
    "time": np.array([d for _, d in rows], dtype="datetime64[ns]"), "band": list(_common.BAND_NAMES[:n_band]),
    "y": t.f + (np.arange(height) + 0.5) * t.e, "x": t.c + (np.arange(width) + 0.5) * t.a}})
started = time.perf_counter()
summary = chronozarr.encode(da, store, crs={crs!r}, progress=False)
encode = time.perf_counter() - started
print(json.dumps({{"read_seconds": read, "encode_seconds": encode, "seconds": read + encode,
                  "objects": summary.objects, "mb": summary.nbytes / 1e6, "peak_rss_mb": _common.peak_rss_bytes() / 1e6}}))
"""

CONVERT = _common.CLI_CHILD


def write_cogs(folder: Path, shape: tuple[int, int, int, int], offsets: list[tuple[float, float]]) -> Path:
    """The series as one COG per date, each with its origin moved by (columns, rows) `offsets`;
    returns the manifest listing them."""
    import rasterio
    from rasterio.transform import from_origin

    folder.mkdir(parents=True, exist_ok=True)
    n_time, n_band, height, width = shape
    lines = ["uri,datetime"]
    for t, frame in enumerate(_common.iter_timesteps(n_time, n_band, height, width)):
        dx, dy = offsets[t]
        transform = from_origin(ORIGIN[0] + dx * RESOLUTION, ORIGIN[1] - dy * RESOLUTION, RESOLUTION, RESOLUTION)
        path = folder / f"{t:02d}.tif"
        profile = {"driver": "COG", "width": width, "height": height, "count": n_band, "dtype": "uint16",
                   "crs": CRS, "transform": transform, "compress": "DEFLATE", "predictor": 2}
        with rasterio.open(path, "w", **profile) as ds:
            ds.write(frame)
        month = np.datetime64("2023-01") + np.timedelta64(t, "M")
        lines.append(f"{path},{month}-01")
    manifest = folder / "manifest.csv"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "convert.json")
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    bench = str(Path(__file__).resolve().parent)
    work = Path(tempfile.mkdtemp(prefix="chronozarr-convert-bench-"))
    load = os.getloadavg()[0]
    try:
        started = time.perf_counter()
        rng = np.random.default_rng(_common.SEED)
        whole = [(int(x), int(y)) for x, y in rng.integers(-4, 5, size=(shape[0], 2))]
        manifests = {
            "aligned": write_cogs(work / "aligned", shape, [(0, 0)] * shape[0]),
            "shifted": write_cogs(work / "shifted", shape, [(0, 0)] + whole[1:]),
            "fractional": write_cogs(work / "fractional", shape, [(0, 0)] + [(x + 0.3, y - 0.6) for x, y in whole[1:]]),
        }
        generated = time.perf_counter() - started
        cog_mb = sum(f.stat().st_size for f in (work / "aligned").glob("*.tif")) / 1e6
        baseline = _common.run_child(BASELINE.format(bench=bench, manifest=str(manifests["aligned"]), store=str(work / "baseline"), crs=CRS))
        shutil.rmtree(work / "baseline", ignore_errors=True)
        print(f"baseline: rasterio read {baseline['read_seconds']:.1f} s + encode {baseline['encode_seconds']:.1f} s, "
              f"peak {baseline['peak_rss_mb']:.0f} MB")
        rows = {}
        for name, (frames, options) in CONVERT_ROWS.items():
            out = work / name
            command = ["convert", str(manifests[frames]), str(out), *COMMON, *options]
            rows[name] = _common.run_child(CONVERT.format(bench=bench, args=command)) | {"frames": frames, "options": options}
            shutil.rmtree(out, ignore_errors=True)
            print(f"{name}: {rows[name]['seconds']:.1f} s, peak {rows[name]['peak_rss_mb']:.0f} MB")
        convert = rows[JUDGED]
        ratios = {name: row["seconds"] / baseline["seconds"] for name, row in rows.items()}
        warp = {name: rows[name]["seconds"] / convert["seconds"] for name in rows if name.startswith("convert_shifted")}
        targets = {
            "convert_at_most_0_9x_read_plus_encode": ratios[JUDGED] <= TARGET_RATIO,
            "convert_peak_rss_under_1_2_gb": convert["peak_rss_mb"] < TARGET_RSS_MB,
            "warped_at_most_1_5x_convert": all(r <= TARGET_WARP_RATIO for r in warp.values()),
        }
        print("ratios to baseline:", {k: round(v, 3) for k, v in ratios.items()}, "warp/convert:", {k: round(v, 3) for k, v in warp.items()})
        print("targets:", targets)
        result = {
            "benchmark": "convert", "judged_row": JUDGED, "date": _common.now_utc(), "machine": _common.machine(), "load_average_at_start": load,
            "shape": list(shape), "cog_mb": cog_mb, "generate_seconds": generated, "common_options": COMMON,
            "baseline": baseline, "rows": rows, "ratio_to_baseline": ratios, "ratio_to_convert": warp, "targets": targets,
        }
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(result, indent=2) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
