"""Check a water-mask store the way the guide does: physical values are NaN exactly where the mask
(a coordinate of `to_xarray()`) is 0, `water` is 0 or 1 at level 0 and a fraction at coarser
levels, and the band units come from `open_store(path).attrs.bands`.

    python check_water_stack.py STORE
"""

from __future__ import annotations

import sys

import numpy as np

import chronozarr


def check(path: str) -> None:
    assert chronozarr.validate(path).ok
    store = chronozarr.open_store(path)
    print("bands:", ", ".join(f"{b.name} {b.scale:g} {b.offset:g} {b.units!r}" for b in store.attrs.bands))
    da = store.to_xarray(lod=0, physical=True)
    invalid = (da.mask == 0).broadcast_like(da)
    assert np.array_equal(np.isnan(da.values), invalid.values), "NaN must be exactly where the mask is 0"
    water = da.sel(band="water").where(da.mask == 1)
    assert set(np.unique(water.values[~np.isnan(water.values)])) <= {0.0, 1.0}
    share = water.mean(dim=("y", "x")).values
    print("water share of valid pixels by month:", " ".join(f"{v:.3f}" for v in share))
    coarse = store.to_xarray(lod=1, physical=True).sel(band="water").where(lambda a: a.mask == 1)
    values = coarse.values[~np.isnan(coarse.values)]
    print(f"level 1: {int(((values > 0) & (values < 1)).sum())} blocks hold a fraction strictly between 0 and 1")
    print("ok")


if __name__ == "__main__":
    check(sys.argv[1])
