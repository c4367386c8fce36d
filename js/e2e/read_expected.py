"""Expected values for the viewer e2e test, from the Python reader.

python read_expected.py STORE LOD T x,y [x,y ...] -> JSON {"bands", "scale", "offset", "pixels":
[{x, y, stored: [per band at T], mask, coverage, history: [[per band] per t], history_mask}]}.
"""

import json
import sys

from chronozarr.read.dataset import open_dataset

store_path, lod, t = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {"pixels": []}
with open_dataset(store_path) as s:
    out["bands"] = [b.name for b in s.bands]
    out["scale"] = [b.scale for b in s.bands]
    out["offset"] = [b.offset for b in s.bands]
    for arg in sys.argv[4:]:
        x, y = (int(v) for v in arg.split(","))
        history = s.read_point(y, x, lod=lod)
        hmask = s.read_point_mask(y, x, lod=lod)
        cov = s.read_coverage(t, lod=lod)
        out["pixels"].append({
            "x": x, "y": y,
            "stored": [int(v) for v in history[t]],
            "mask": None if hmask is None else int(hmask[t]),
            "coverage": None if cov is None else int(cov[y, x]),
            "history": history.astype(int).tolist(),
            "history_mask": None if hmask is None else hmask.astype(int).tolist(),
        })
print(json.dumps(out))
