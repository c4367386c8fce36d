"""Monthly median composites of cloudy scenes: chronozarr convert --composite next to odc-stac.

    python bench/composite.py            # 12 months x 6 scenes x 4 bands of 2048 x 2048 px, and the area doubled
    python bench/composite.py --small    # 3 months x 3 scenes x 4 bands of 512 x 512 px, quick

The benchmark writes the scenes itself: Sentinel-2-like COGs (uint16 bands at 10 m, DEFLATE with
the horizontal predictor, nodata 0) and the SCL scene classification at 20 m, with clouds and
shadows, and a STAC item collection listing them (the proj extension on every asset, as Earth
Search gives it). Each side then makes the same monthly median over the observations whose SCL
class is 4, 5, 6, 7 or 11 and whose bands are not nodata, in its own child process (peak RSS is
VmHWM, its own):

- the pipeline a user writes today: `odc.stac.load` (dask chunks of 1024 px, SCL read onto the
  10 m grid by nearest neighbour), `where(valid)`, `resample(time="1MS").median()`, `np.rint`,
  the count of valid observations, `to_zarr`;
- `chronozarr convert items.json OUT --composite month --reducer median --valid scl:4,5,6,7,11`.

Both outputs are compared value for value (every valid pixel's median and every coverage count)
before any figure is recorded. Then chronozarr runs again on the area doubled, for the memory
target. Results: bench/results/composite.json (bench/record.py's format).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import record  # noqa: E402

FULL = {"months": 12, "scenes": 6, "size": 2048}
SMALL = {"months": 3, "scenes": 3, "size": 512}
BANDS = ("blue", "green", "red", "nir")
KEPT = (4, 5, 6, 7, 11)
EPSG, WEST, NORTH, PIXEL = 32633, 400_000, 5_000_000, 10
TARGET_TIME_RATIO = 1.0
TARGET_RSS_RATIO = 1.0
TARGET_FLAT = 0.15  # peak RSS may grow at most 15 % when the area doubles

ODC = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import _common
import numpy as np, odc.stac, pystac, xarray as xr, dask
started = time.perf_counter()
items = list(pystac.ItemCollection.from_file({items!r}))
data = odc.stac.load(items, bands=[*{bands!r}, "scl"], chunks={{"x": 1024, "y": 1024}}, resampling="nearest", groupby="id")
bands = data[list({bands!r})].to_array("band")
valid = data.scl.isin(list({kept!r})) & (bands != 0).all("band")
monthly = bands.where(valid).astype("float64").resample(time="1MS").median().transpose("time", "band", "y", "x")
coverage = valid.resample(time="1MS").sum().clip(max=255).astype("uint8")
out = xr.Dataset({{"median": np.rint(monthly).fillna(0).astype("uint16"), "coverage": coverage}})
out.to_zarr({store!r}, zarr_format=3, consolidated=False, mode="w")
print(json.dumps({{"seconds": time.perf_counter() - started, "peak_rss_mb": _common.peak_rss_bytes() / 1e6}}))
"""

CHRONOZARR = _common.CLI_CHILD


def scene(month: int, k: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The (band, y, x) DN at 10 m and the SCL at 20 m of one scene: a landscape of the synthetic
    series, a few clouds with their shadows, a clipped pass now and then."""
    frame = next(_common.iter_timesteps(1, len(BANDS), size, size, seed=_common.SEED + 97 * month + k))
    rng = np.random.default_rng([month, k])
    half = size // 2
    y, x = np.ogrid[0:half, 0:half]
    cloud = np.zeros((half, half), dtype=bool)
    for _ in range(int(rng.integers(1, 5))):
        cy, cx, r = rng.integers(0, half, 2).tolist() + [int(rng.integers(half // 20, half // 6))]
        cloud |= (y - cy) ** 2 + (x - cx) ** 2 < r * r
    shadow = np.roll(cloud, (half // 40, half // 50), axis=(0, 1)) & ~cloud
    scl = np.where(rng.random((half, half)) < 0.7, 4, 5).astype(np.uint8)
    scl[shadow], scl[cloud] = 3, 9
    up = np.repeat(np.repeat(cloud, 2, axis=0), 2, axis=1)
    frame[:, up] = 7000
    if (month + k) % 4 == 1:  # a clipped pass: its east eighth has no data
        frame[:, :, size - size // 8 :] = 0
        scl[:, half - half // 8 :] = 0
    return frame, scl


def write_cog(path: Path, values: np.ndarray, pixel: int) -> dict[str, Any]:
    """One COG; returns the asset's proj fields."""
    import rasterio
    from rasterio.transform import from_origin

    transform = from_origin(WEST, NORTH, pixel, pixel)
    with rasterio.open(path, "w", driver="COG", width=values.shape[1], height=values.shape[0], count=1, dtype=values.dtype,
                       crs=f"EPSG:{EPSG}", transform=transform, nodata=0, compress="DEFLATE", predictor=2) as dataset:
        dataset.write(values, 1)
    return {"proj:epsg": EPSG, "proj:shape": list(values.shape), "proj:transform": list(transform)[:6]}


def item(month: int, k: int, hrefs: dict[str, tuple[str, dict[str, Any]]], size: int) -> dict[str, Any]:
    day = 3 + 4 * k
    stamp = f"2023-{month + 1:02d}-{day:02d}T10:20:{k:02d}Z"
    east, south = WEST + size * PIXEL, NORTH - size * PIXEL
    from pyproj import Transformer

    to_lonlat = Transformer.from_crs(EPSG, 4326, always_xy=True)
    (w, e), (s, n) = zip(*[to_lonlat.transform(a, b) for a, b in ((WEST, south), (east, NORTH))], strict=True)
    ring = [[w, s], [e, s], [e, n], [w, n], [w, s]]
    assets = {
        key: {"href": href, "type": "image/tiff; application=geotiff; profile=cloud-optimized", "roles": ["data"],
              "raster:bands": [{"nodata": 0, "data_type": "uint8" if key == "scl" else "uint16"}], **proj}
        for key, (href, proj) in hrefs.items()
    }
    return {
        "type": "Feature", "stac_version": "1.0.0", "id": f"S2A_33TUN_{stamp[:10].replace('-', '')}_{k}_L2A",
        "collection": "sentinel-2-l2a", "bbox": [w, s, e, n], "geometry": {"type": "Polygon", "coordinates": [ring]},
        "stac_extensions": ["https://stac-extensions.github.io/projection/v1.1.0/schema.json",
                            "https://stac-extensions.github.io/raster/v1.1.0/schema.json"],
        "properties": {"datetime": stamp, "platform": "sentinel-2a", "proj:epsg": EPSG, "s2:processing_baseline": "05.09",
                       "earthsearch:boa_offset_applied": True},
        "links": [], "assets": assets,
    }


def write_items(folder: Path, months: int, scenes: int, size: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    features = []
    for month in range(months):
        for k in range(scenes):
            frame, scl = scene(month, k, size)
            hrefs = {}
            for b, band in enumerate(BANDS):
                path = folder / f"{month:02d}_{k}_{band}.tif"
                hrefs[band] = (str(path), write_cog(path, frame[b], PIXEL))
            path = folder / f"{month:02d}_{k}_scl.tif"
            hrefs["scl"] = (str(path), write_cog(path, scl, 2 * PIXEL))
            features.append(item(month, k, hrefs, size))
    items = folder / "items.json"
    items.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    return items


def compare(ours: Path, theirs: Path) -> int:
    """Every valid median and every coverage count equal, else SystemExit; returns the pixels compared."""
    import zarr

    import chronozarr

    peer = zarr.open_group(theirs, mode="r")
    medians, coverage = peer["median"], peer["coverage"]
    compared = 0
    with chronozarr.open_dataset(ours) as store:
        for t in range(len(store.times)):
            counts = coverage[t]
            np.testing.assert_array_equal(store.read_coverage(t), counts, err_msg=f"coverage of month {t}")
            observed = counts > 0
            expected = np.stack([medians[t, b] for b in range(len(BANDS))])
            np.testing.assert_array_equal(store.read(t)[:, observed], expected[:, observed], err_msg=f"median of month {t}")
            compared += int(observed.sum()) * len(BANDS)
    return compared


def figures(peer: dict[str, float], ours: dict[str, float], big: dict[str, float], size: int, doubled: int) -> dict[str, str]:
    """The ratios the targets judge, in words: chronozarr against odc-stac in this run, and
    chronozarr's peak RSS as the area doubles."""
    pixels = (doubled / size) ** 2
    return {
        "against odc-stac, same run": f"wall {ours['seconds'] / peer['seconds']:.2f}x ({ours['seconds']:.1f} s against {peer['seconds']:.1f} s), "
                                      f"peak RSS {ours['peak_rss_mb'] / peer['peak_rss_mb']:.2f}x ({ours['peak_rss_mb']:.0f} MB against "
                                      f"{peer['peak_rss_mb']:.0f} MB)",
        "as the area doubles": f"peak RSS {big['peak_rss_mb']:.0f} MB on {doubled} x {doubled} px against {ours['peak_rss_mb']:.0f} MB on "
                               f"{size} x {size} px ({pixels:.2f}x the pixels): {100 * (big['peak_rss_mb'] / ours['peak_rss_mb'] - 1):+.1f} % "
                               f"(target at most +{100 * TARGET_FLAT:.0f} %); wall {big['seconds'] / ours['seconds']:.2f}x",
    }


def run_chronozarr(bench: str, items: Path, out: Path) -> dict[str, Any]:
    args = ["convert", str(items), str(out), "--assets", ",".join(BANDS), "--valid", "scl:" + ",".join(map(str, KEPT)),
            "--composite", "month", "--reducer", "median", "--no-progress"]
    return _common.run_child(CHRONOZARR.format(bench=bench, args=args))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--shape", metavar="MONTHS,SCENES,SIZE", help="another size (the tests use a tiny one)")
    parser.add_argument("--output", type=Path, default=Path(__file__).resolve().parent / "results" / "composite.json")
    args = parser.parse_args()
    shape = SMALL if args.small or record.quick() else FULL
    if args.shape:
        shape = dict(zip(("months", "scenes", "size"), (int(v) for v in args.shape.split(",")), strict=True))
    bench = str(Path(__file__).resolve().parent)
    work = Path(tempfile.mkdtemp(prefix="chronozarr-composite-bench-"))
    load, started = os.getloadavg(), _common.now_utc()
    try:
        size, doubled = shape["size"], int(round(shape["size"] * 2**0.5 / 16)) * 16
        items = write_items(work / "scenes", shape["months"], shape["scenes"], size)
        peer = _common.run_child(ODC.format(bench=bench, items=str(items), store=str(work / "odc.zarr"), bands=BANDS, kept=KEPT))
        ours = run_chronozarr(bench, items, work / "ours")
        compared = compare(work / "ours", work / "odc.zarr")
        print(f"odc-stac: {peer['seconds']:.1f} s, peak {peer['peak_rss_mb']:.0f} MB; chronozarr: {ours['seconds']:.1f} s, "
              f"peak {ours['peak_rss_mb']:.0f} MB; {compared} values identical")
        shutil.rmtree(work / "scenes")
        big_items = write_items(work / "scenes-2x", shape["months"], shape["scenes"], doubled)
        big = run_chronozarr(bench, big_items, work / "ours-2x")
        targets = {
            "wall_at_most_1_0x_odc_stac": ours["seconds"] / peer["seconds"] <= TARGET_TIME_RATIO,
            "peak_rss_at_most_1_0x_odc_stac": ours["peak_rss_mb"] / peer["peak_rss_mb"] <= TARGET_RSS_RATIO,
            "peak_rss_flat_as_the_area_doubles": big["peak_rss_mb"] / ours["peak_rss_mb"] - 1 <= TARGET_FLAT,
        }
        work_text = f"{shape['months']} months x {shape['scenes']} scenes x 4 bands of {size} x {size} px, SCL at 20 m"
        rows = [
            record.row(f"{size} x {size}", "monthly median composite", "chronozarr", "subject", "convert --composite month --reducer median",
                       {"seconds": record.single(ours["seconds"], 3), "peak_rss": record.single(ours["peak_rss_mb"] * 1e6, 0)}),
            record.row(f"{size} x {size}", "monthly median composite", "odc-stac + xarray", "peer", "odc.stac.load, resample(1MS).median(), to_zarr",
                       {"seconds": record.single(peer["seconds"], 3), "peak_rss": record.single(peer["peak_rss_mb"] * 1e6, 0)}),
            record.row(f"{doubled} x {doubled}", "monthly median composite, area doubled", "chronozarr", "subject", "the same on twice the area",
                       {"seconds": record.single(big["seconds"], 3), "peak_rss": record.single(big["peak_rss_mb"] * 1e6, 0)}, same_work=False),
        ]
        doc = record.document(
            "composite", "Composites: monthly medians of cloudy scenes",
            machine={**_common.machine(), "load_average_at_start": [round(v, 2) for v in load]}, date=started,
            setup={"series": work_text, "checked": f"{compared} medians and coverage counts identical to odc-stac's",
                   **figures(peer, ours, big, size, doubled), "targets": ", ".join(f"{k}: {v}" for k, v in targets.items())},
            metrics=[record.metric("seconds", "wall", "s", primary=True), record.metric("peak_rss", "peak RSS", "B")],
            rows=rows, packages=("odc-stac", "xarray", "dask", "rasterio"), raw={"odc": peer, "chronozarr": ours, "chronozarr_2x": big, "targets": targets},
        )
        record.write(doc, args.output)
        print(json.dumps(targets, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
