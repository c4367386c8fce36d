"""Write a small series of synthetic NISAR L2 GCOV products (HDF5), laid out as the product
specification lays them out, so the example runs without downloading a granule.

Four 12-day repeat passes over one frame in UTM zone 15N (rice fields east of the Mississippi near
Stuttgart, Arkansas), each an HDF5 file with:

- `/science/LSAR/identification`: mission, product type, orbit and track, and the zero-Doppler
  start and end times as ISO strings;
- `/science/LSAR/GCOV/grids/frequencyA`: the diagonal covariance terms `HHHH` and `HVHV` (float32,
  linear power, fill NaN where the frame has no data), `xCoordinates` and `yCoordinates` (pixel
  centres, attached to the images as HDF5 dimension scales), their spacings, `listOfPolarizations`,
  and `projection`, a scalar holding the EPSG code with `epsg_code` and the WKT as attributes.

    python make_inputs.py OUT_DIR      # prints the glob that `chronozarr convert` reads
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

WIDTH, HEIGHT, PIXEL = 60, 40, 20.0
WEST, NORTH = 640_000.0, 3_830_000.0  # UTM 15N
EPSG = 32615
FIRST = datetime(2025, 11, 3, 23, 58, 12)
PASSES = 4
GRIDS = "/science/LSAR/GCOV/grids/frequencyA"
IDENTIFICATION = "/science/LSAR/identification"


def backscatter(k: int) -> dict[str, np.ndarray]:
    """HHHH and HVHV of pass `k`: fields that flood (dark) and grow (brighter HV), NaN off the frame."""
    rng = np.random.default_rng(100 + k)
    cols, rows = np.meshgrid(np.arange(WIDTH), np.arange(HEIGHT))
    field = (rows // 10) * 6 + cols // 10
    flooded = (field + k) % 4 == 0
    hh = np.where(flooded, 0.004, 0.08 + 0.01 * k) * rng.gamma(4.0, 0.25, (HEIGHT, WIDTH))
    hv = np.where(flooded, 0.0008, 0.015 + 0.004 * k) * rng.gamma(4.0, 0.25, (HEIGHT, WIDTH))
    outside = rows + cols < 8 + 3 * k  # the frame's near-range corner the swath misses
    return {name: np.where(outside, np.nan, value).astype(np.float32) for name, value in (("HHHH", hh), ("HVHV", hv))}


def write_product(path: Path, k: int) -> None:
    import h5py
    from pyproj import CRS

    start = FIRST + timedelta(days=12 * k)
    end = start + timedelta(seconds=6)
    stamp = "%Y-%m-%dT%H:%M:%S.000000000"
    with h5py.File(path, "w") as f:
        ident = f.create_group(IDENTIFICATION)
        for key, value in {
            "missionId": "NISAR", "productType": "GCOV", "productLevel": "L2", "lookDirection": "Right",
            "orbitPassDirection": "Ascending", "zeroDopplerStartTime": start.strftime(stamp),
            "zeroDopplerEndTime": end.strftime(stamp), "isGeocoded": "True",
        }.items():
            ident[key] = np.bytes_(value)
        ident["absoluteOrbitNumber"] = np.uint32(5_000 + 173 * k)
        ident["trackNumber"] = np.uint32(57)
        ident["frameNumber"] = np.uint16(22)
        grids = f.create_group(GRIDS)
        x = grids.create_dataset("xCoordinates", data=WEST + (np.arange(WIDTH) + 0.5) * PIXEL)
        y = grids.create_dataset("yCoordinates", data=NORTH - (np.arange(HEIGHT) + 0.5) * PIXEL)
        for scale, units, name in ((x, "meters", "xCoordinates"), (y, "meters", "yCoordinates")):
            scale.attrs["units"] = np.bytes_(units)
            scale.attrs["description"] = np.bytes_(f"CF compliant dimension associated with the {name[0].upper()} coordinate")
            scale.make_scale(name)
        grids["xCoordinateSpacing"] = np.float64(PIXEL)
        grids["yCoordinateSpacing"] = np.float64(-PIXEL)
        grids["listOfPolarizations"] = np.array([b"HH", b"HV"])
        grids["listOfCovarianceTerms"] = np.array([b"HHHH", b"HVHV"])
        crs = CRS.from_epsg(EPSG)
        projection = grids.create_dataset("projection", data=np.uint32(EPSG))
        projection.attrs["epsg_code"] = np.uint32(EPSG)
        projection.attrs["grid_mapping_name"] = np.bytes_("universal_transverse_mercator")
        projection.attrs["utm_zone_number"] = np.uint32(15)
        projection.attrs["spatial_ref"] = np.bytes_(crs.to_wkt("WKT1_GDAL"))
        for name, values in backscatter(k).items():
            image = grids.create_dataset(name, data=values, chunks=(20, 30), compression="gzip", fillvalue=np.float32(np.nan))
            image.attrs["_FillValue"] = np.float32(np.nan)
            image.attrs["units"] = np.bytes_("1")
            image.attrs["long_name"] = np.bytes_(f"radiometric terrain corrected gamma-naught backscatter {name}")
            image.attrs["grid_mapping"] = np.bytes_("projection")
            image.dims[0].attach_scale(y)
            image.dims[1].attach_scale(x)


def write(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(PASSES):
        start = FIRST + timedelta(days=12 * k)
        end = start + timedelta(seconds=6)
        name = (f"NISAR_L2_PR_GCOV_{3 + k:03d}_057_A_022_2000_DHDH_A_{start:%Y%m%dT%H%M%S}_{end:%Y%m%dT%H%M%S}"
                "_X05009_N_F_J_001.h5")
        write_product(out / name, k)
        paths.append(out / name)
    return paths


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "products")
    write(folder)
    print(f"{folder}/NISAR_L2_PR_GCOV_*.h5")
