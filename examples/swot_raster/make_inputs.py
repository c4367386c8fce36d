"""Write a small series of synthetic SWOT L2_HR_Raster granules (NetCDF-4), laid out as the
product writes them, so the example runs without an Earthdata login.

Five passes over one fixed 100 m scene in UTM zone 18S (the Ucayali near Pucallpa), one per 21-day
cycle: `x`/`y` pixel-centre coordinates (y increasing, south to north, as the product grids it), a
scalar `crs` grid mapping with its WKT, float32 `wse` and `water_frac` with the netCDF default
float fill 9.96921e36, the summary flags `wse_qual` and `water_area_qual` (0 good, 1 suspect,
2 degraded, 3 bad; 255 fill), and the granule times in the global attributes.

    python make_inputs.py OUT_DIR      # prints the glob that `chronozarr convert` reads
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import xarray as xr

WIDTH, HEIGHT, PIXEL = 64, 48, 100.0
WEST, SOUTH = 545_000.0, 9_070_000.0  # UTM 18S, the river west of Pucallpa
EPSG = 32718
FLOAT_FILL = np.float32(9.96921e36)  # netCDF's default fill for float, which the product keeps
FLAG_FILL = np.uint8(255)
FIRST_PASS = datetime(2024, 1, 30, 0, 10, 22)
CYCLES = range(10, 15)
STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"


def granule(k: int) -> tuple[str, xr.Dataset]:
    """Cycle `k`'s granule: its file name and contents."""
    from pyproj import CRS

    rng = np.random.default_rng(k)
    start = FIRST_PASS + timedelta(days=21 * k)
    end = start + timedelta(seconds=21)
    x = WEST + (np.arange(WIDTH) + 0.5) * PIXEL
    y = SOUTH + (np.arange(HEIGHT) + 0.5) * PIXEL  # row 0 is the south edge
    cols, rows = np.meshgrid(np.arange(WIDTH), np.arange(HEIGHT))
    channel = np.abs(rows - (HEIGHT / 2 + 6 * np.sin(cols / 9.0))) < 4 + k % 3  # the river, wider in high water
    water_frac = np.where(channel, 1.0, 0.05).astype(np.float32) + rng.normal(0, 0.03, (HEIGHT, WIDTH)).astype(np.float32)
    wse = (142.0 + 1.5 * np.sin(k) - 0.002 * cols + rng.normal(0, 0.05, (HEIGHT, WIDTH))).astype(np.float32)
    wse_qual = np.where(channel, 0, 1).astype(np.uint8)
    wse_qual[rng.random((HEIGHT, WIDTH)) < 0.08] = 2  # degraded: low coherence, few pixels
    swath = cols >= 6 + 2 * k  # the part of the scene the swath covers this pass
    wse_qual[~swath] = 3  # the product flags pixels outside the swath bad and fills their values
    wse, water_frac = np.where(swath, wse, FLOAT_FILL), np.where(swath, water_frac, FLOAT_FILL)
    water_area_qual = np.where(swath, wse_qual.clip(0, 2), 3).astype(np.uint8)
    wse_qual[0, -3:] = FLAG_FILL  # a few pixels with no flag at all
    crs = CRS.from_epsg(EPSG)
    raster = {"grid_mapping": "crs", "coordinates": "x y"}
    flags = {"standard_name": "status_flag", "flag_meanings": "good suspect degraded bad",
             "flag_values": np.array([0, 1, 2, 3], dtype=np.uint8), "valid_min": 0, "valid_max": 3, **raster}
    ds = xr.Dataset(
        {
            "crs": ((), np.bytes_(b"1"), {
                "long_name": "CRS Definition", "grid_mapping_name": "transverse_mercator", "projected_crs_name": crs.name,
                "geographic_crs_name": "WGS 84", "reference_ellipsoid_name": "WGS 84", "horizontal_datum_name": "WGS_1984",
                "prime_meridian_name": "Greenwich", "false_easting": 500000.0, "false_northing": 10000000.0,
                "longitude_of_central_meridian": -75.0, "longitude_of_prime_meridian": 0.0, "latitude_of_projection_origin": 0.0,
                "scale_factor_at_central_meridian": 0.9996, "semi_major_axis": 6378137.0, "inverse_flattening": 298.257223563,
                "crs_wkt": crs.to_wkt("WKT1_GDAL"), "spatial_ref": crs.to_wkt("WKT1_GDAL"),
                "comment": "UTM zone coordinate reference system."}),
            "wse": (("y", "x"), wse, {"long_name": "water surface elevation above geoid", "units": "m",
                                      "quality_flag": "wse_qual", "valid_min": -1500, "valid_max": 15000, **raster}),
            "wse_qual": (("y", "x"), wse_qual, {"long_name": "summary quality indicator for the water surface elevation", **flags}),
            "water_frac": (("y", "x"), water_frac, {"long_name": "water fraction", "units": "1", "quality_flag": "water_area_qual",
                                                    "valid_min": -1000, "valid_max": 10000, **raster}),
            "water_area_qual": (("y", "x"), water_area_qual, {"long_name": "summary quality indicator for the water surface area",
                                                              **flags}),
        },
        coords={
            "x": ("x", x, {"long_name": "x coordinate of projection", "standard_name": "projection_x_coordinate", "units": "m"}),
            "y": ("y", y, {"long_name": "y coordinate of projection", "standard_name": "projection_y_coordinate", "units": "m"}),
        },
        attrs={
            "Conventions": "CF-1.7", "title": "Level 2 KaRIn High Rate Raster Data Product", "institution": "JPL",
            "source": "Ka-band radar interferometer", "platform": "SWOT", "short_name": "L2_HR_Raster",
            "cycle_number": np.int16(CYCLES[k]), "pass_number": np.int16(331), "scene_number": np.int16(40),
            "coordinate_reference_system": "Universal Transverse Mercator", "resolution": np.float32(PIXEL),
            "utm_zone_num": np.int16(18), "mgrs_latitude_band": "M", "descriptor_string": "100m_UTM18M_N_x_x_x",
            "time_granule_start": start.strftime(STAMP), "time_granule_end": end.strftime(STAMP),
            "time_coverage_start": start.strftime(STAMP), "time_coverage_end": end.strftime(STAMP),
            "x_min": x[0], "x_max": x[-1], "y_min": y[0], "y_max": y[-1],
            "comment": "synthetic granule written by chronozarr's examples/swot_raster/make_inputs.py",
        },
    )
    name = (f"SWOT_L2_HR_Raster_100m_UTM18M_N_x_x_x_{CYCLES[k]:03d}_331_040F_"
            f"{start:%Y%m%dT%H%M%S}_{end:%Y%m%dT%H%M%S}_PIC0_01.nc")
    return name, ds


def write(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(len(CYCLES)):
        name, ds = granule(k)
        encoding = {v: {"_FillValue": FLOAT_FILL} for v in ("wse", "water_frac")}
        encoding |= {v: {"_FillValue": FLAG_FILL} for v in ("wse_qual", "water_area_qual")}
        encoding |= {v: {"_FillValue": None} for v in ("x", "y")}
        ds.to_netcdf(out / name, engine="netcdf4", format="NETCDF4", encoding=encoding)
        paths.append(out / name)
    return paths


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "granules")
    write(folder)
    print(f"{folder}/SWOT_L2_HR_Raster_*.nc")
