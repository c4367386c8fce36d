"""What export-cog writes, checked by rio-cogeo's own validator, with the store's true values."""

from __future__ import annotations

import numpy as np

import chronozarr
from conftest import make_series

from rio_cogeo import cogeo
import rasterio


def test_rio_cogeo_validates_each_exported_cog(tmp_path) -> None:
    da = make_series(n_time=3, height=600, width=520, seed=6)  # big enough for overviews
    chronozarr.encode(da, tmp_path / "s", crs="EPSG:32631", chunk_size=256, encoding="star-delta", anchor_interval=2, progress=False)
    chronozarr.export_cog(tmp_path / "s", tmp_path / "cogs", progress=False)
    files = sorted((tmp_path / "cogs").glob("*.tif"))
    assert len(files) == 3
    for t, path in enumerate(files):
        valid, errors, warnings = cogeo.cog_validate(str(path))
        assert valid and errors == [] and warnings == [], (path.name, errors, warnings)
        with rasterio.open(path) as src:
            np.testing.assert_array_equal(src.read(), da.values[t])  # reconstructed from star-delta
