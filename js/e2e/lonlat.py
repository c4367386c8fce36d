"""Lon/lat of level-0 pixel centres for the MapLibre e2e test, with pyproj (not the layer's code).

python lonlat.py STORE x,y [x,y ...] -> JSON [[lon, lat], ...]
"""

import json
import sys

from pyproj import Transformer

from chronozarr.read.dataset import open_dataset

with open_dataset(sys.argv[1]) as s:
    a, b, c, d, e, f = s.levels[0].transform
    to_wgs84 = Transformer.from_crs(s.crs, "EPSG:4326", always_xy=True)
    out = []
    for arg in sys.argv[2:]:
        x, y = (int(v) + 0.5 for v in arg.split(","))
        lon, lat = to_wgs84.transform(c + a * x + b * y, f + d * x + e * y)
        out.append([lon, lat])
print(json.dumps(out))
