"""Where pyproj puts a store's outline and texel boundaries, for the MapLibre placement check.

python truth.py STORE [LEVEL:X:Y:R ...] -> JSON on stdout:
  outline   the level-0 footprint's edge, a closed ring of lon/lat at every level-0 pixel corner
  views     per LEVEL:X:Y:R, the texel edges of LEVEL within R texels of level-0 pixel (X, Y):
            {level, x, y, edges: [{a, b, left, right}]}, a and b the lon/lat of the edge's ends,
            left and right those of the centres of the level's texels on either side; box the
            lon/lat corners of the block of texels whose edges these are
  texel_mercator  side of a level-0 texel at the footprint's centre in Web Mercator units (0..1)
Every position comes from the store's transform and CRS through pyproj; Web Mercator with the
spherical formula MapLibre uses. Needs pyproj (the `geo` extra).
"""

import json
import math
import sys

from pyproj import Transformer

from chronozarr.read.dataset import open_dataset


def mercator(lon: float, lat: float) -> tuple[float, float]:
    """Web Mercator of lon/lat, 0..1 across the world with y growing south."""
    phi = math.radians(lat)
    return (lon + 180) / 360, 0.5 - math.log(math.tan(math.pi / 4 + phi / 2)) / (2 * math.pi)


def main(path: str, specs: list[str]) -> dict:
    with open_dataset(path) as s:
        a, b, c, d, e, f = s.levels[0].transform
        width, height = s.levels[0].width, s.levels[0].height
        to_wgs84 = Transformer.from_crs(s.crs, "EPSG:4326", always_xy=True)

    def lonlat(px: float, py: float) -> list[float]:
        lon, lat = to_wgs84.transform(c + a * px + b * py, f + d * px + e * py)
        return [lon, lat]

    ring = [(x, 0) for x in range(width)] + [(width, y) for y in range(height)]
    ring += [(x, height) for x in range(width, 0, -1)] + [(0, y) for y in range(height, -1, -1)]
    views = []
    for spec in specs:
        level, x, y, r = (int(v) for v in spec.split(":"))
        k = 2**level
        cols, rows = -(-width // k), -(-height // k)
        cx, cy = x // k, y // k
        edges = []
        for row in range(max(0, cy - r), min(rows, cy + r)):
            for col in range(max(0, cx - r), min(cols, cx + r)):
                if col > 0:  # the edge between (col - 1, row) and (col, row)
                    edges.append({"a": lonlat(col * k, row * k), "b": lonlat(col * k, min(height, (row + 1) * k)),
                                  "left": lonlat((col - 0.5) * k, (row + 0.5) * k), "right": lonlat((col + 0.5) * k, (row + 0.5) * k)})
                if row > 0:  # between (col, row - 1) and (col, row)
                    edges.append({"a": lonlat(col * k, row * k), "b": lonlat(min(width, (col + 1) * k), row * k),
                                  "left": lonlat((col + 0.5) * k, (row - 0.5) * k), "right": lonlat((col + 0.5) * k, (row + 0.5) * k)})
        c0, c1, r0, r1 = max(0, cx - r) * k, min(width, (cx + r) * k), max(0, cy - r) * k, min(height, (cy + r) * k)
        box = [lonlat(c0, r0), lonlat(c1, r0), lonlat(c1, r1), lonlat(c0, r1)]
        views.append({"level": level, "x": x, "y": y, "edges": edges, "box": box})
    centre = [mercator(*lonlat(width / 2 + dx, height / 2 + dy)) for dx, dy in ((0, 0), (1, 0), (0, 1))]
    side = math.sqrt(math.dist(centre[0], centre[1]) * math.dist(centre[0], centre[2]))
    return {"width": width, "height": height, "outline": [lonlat(x, y) for x, y in ring], "views": views, "texel_mercator": side}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2:])))
