"""Expected values for the viewer's study tools (legend, scale bar, history CSV), from the Python reader.

python study_expected.py history STORE LOD x,y [x,y ...]
    -> {"times", "bands", "scale", "offset", "pixels": [{x, y, stored: [[band] per t], valid: [[band] per t],
        coverage: [per t] | null}]}
python study_expected.py stretch STORE LOD T BAND ROW0 ROW1 COL0 COL1
    -> {"p2", "p98", "min", "max", "n"}: the valid physical values of the level's window at T, the
       percentiles as the element at round(f * (n - 1)) of the sorted values
python study_expected.py degree LAT -> {"metres": ground metres of one degree of longitude at LAT (pyproj Geod)}
"""

import json
import math
import sys

import numpy as np

from chronozarr.read.dataset import open_dataset


def history(path: str, lod: int, pixels: list[str]) -> dict:
    with open_dataset(path) as s:
        out = {"times": s.times_iso, "bands": s.band_names, "scale": [b.scale for b in s.bands],
               "offset": [b.offset for b in s.bands], "pixels": []}
        for arg in pixels:
            x, y = (int(v) for v in arg.split(","))
            stored = s.read_point(y, x, lod=lod)
            mask = s.read_point_mask(y, x, lod=lod)
            valid = s.validity(stored, None if mask is None else mask[:, None])
            cov = None
            if s.has_coverage:
                cov = [int(s.read_coverage(t, lod=lod, window=(y, y + 1, x, x + 1))[0, 0]) for t in range(len(s.times_iso))]
            out["pixels"].append({"x": x, "y": y, "stored": stored.astype(float).tolist(),
                                  "valid": np.broadcast_to(valid, stored.shape).astype(bool).tolist(), "coverage": cov})
        return out


def stretch(path: str, lod: int, t: int, band: int, window: tuple[int, ...]) -> dict:
    with open_dataset(path) as s:
        values = s.read(t, lod=lod, window=window)[band]
        mask = s.read_mask(t, lod=lod, window=window)
        valid = s.validity(values, mask)
        b = s.bands[band]
        v = np.sort(values[valid].astype(np.float64) * b.scale + b.offset)
        at = lambda f: float(v[min(len(v) - 1, max(0, math.floor(f * (len(v) - 1) + 0.5)))])  # noqa: E731
        return {"p2": at(0.02), "p98": at(0.98), "min": float(v[0]), "max": float(v[-1]), "n": int(len(v))}


def degree(lat: float) -> dict:
    from pyproj import Geod

    _, _, metres = Geod(ellps="WGS84").inv(0.0, lat, 1.0, lat)
    return {"metres": metres}


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "history":
        result = history(args[0], int(args[1]), args[2:])
    elif cmd == "stretch":
        result = stretch(args[0], int(args[1]), int(args[2]), int(args[3]), tuple(int(v) for v in args[4:8]))
    else:
        result = degree(float(args[0]))
    print(json.dumps(result))
