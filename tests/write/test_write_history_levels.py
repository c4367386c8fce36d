"""encode --history writes a history per level (docs/format-history.md 1.3): each coarser level's
array holds that level's block means (recomputed here with numpy from the written series), its
mask copy the level's mask, chunked along time like level 0's; the bytes do not depend on how the
store was built (fresh or appended), and the declaration lists every level's shards."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr
import zarr
from conftest import make_series
from expected import pyramid
from test_write_history import ENCODINGS, hashes

import chronozarr

CS = 16
OPTIONS = {"crs": "EPSG:32631", "chunk_size": CS, "history": True, "history_time": 4, "progress": False}


@pytest.fixture(scope="module")
def source():
    """10 timesteps of 70 x 45 pixels (levels 0..3, odd edges), nodata pixels and a mask."""
    da = make_series(n_time=10, n_band=2, height=70, width=45, seed=12)
    values = da.values.copy()
    rng = np.random.default_rng(12)
    values[rng.random(values.shape) < 0.15] = 0
    mask = (rng.random((10, 70, 45)) > 0.25).astype(np.uint8)
    return da.copy(data=values), mask


def _declaration(path):
    return json.loads((path / "zarr.json").read_text())["attributes"]["chronozarr"]["history"]


@pytest.mark.parametrize("name", list(ENCODINGS))
@pytest.mark.parametrize("masked", [False, True])
def test_every_level_has_a_history_holding_its_block_means(tmp_path, source, name, masked):
    da, mask = source
    extra = {"mask": xr.DataArray(mask, dims=("time", "y", "x"))} if masked else {"nodata": 0}
    chronozarr.encode(da, tmp_path / "s", **OPTIONS, **ENCODINGS[name], **extra)
    levels = pyramid(da.values, mask if masked else None, None, None if masked else 0, 4)
    group = zarr.open_group(tmp_path / "s", mode="r")
    declared = _declaration(tmp_path / "s")
    assert declared["version"] == "1.3" and sorted(declared["levels"]) == ["1", "2", "3"]
    for k, (data, level_mask, _) in enumerate(levels):
        name_k = "history" if k == 0 else f"history_{k}"
        history = group[name_k]
        assert history.shape == data.shape and history.chunks == (4, 2, CS, CS) and history.shards == (4, 2, CS, CS)
        np.testing.assert_array_equal(history[...], data, err_msg=f"level {k}")
        entry = declared if k == 0 else declared["levels"][str(k)]
        files = {p.relative_to(tmp_path / "s" / name_k / "c").as_posix(): p.stat().st_size for p in (tmp_path / "s" / name_k / "c").rglob("*") if p.is_file()}
        assert entry["shard_bytes"] == {f"{t}/{r}/{c}": n for (t, _, r, c), n in ((tuple(k.split("/")), n) for k, n in files.items())}
        if masked:
            copy = group["history_mask" if k == 0 else f"history_mask_{k}"]
            np.testing.assert_array_equal(copy[...], level_mask, err_msg=f"mask of level {k}")
            assert entry["mask_path"] == ("history_mask" if k == 0 else f"history_mask_{k}")
        else:
            assert "mask_path" not in entry
    consolidated = json.loads((tmp_path / "s" / "zarr.json").read_text())["consolidated_metadata"]["metadata"]
    assert {f"history_{k}" for k in (1, 2, 3)} <= set(consolidated)


def test_the_same_input_gives_the_same_bytes_and_an_append_ends_as_a_fresh_encode(tmp_path, source):
    da, mask = source
    m = xr.DataArray(mask, dims=("time", "y", "x"))
    options = OPTIONS | ENCODINGS["star-delta-sharded"]
    chronozarr.encode(da, tmp_path / "a", mask=m, **options)
    chronozarr.encode(da, tmp_path / "b", mask=m, **options)
    assert hashes(tmp_path / "a") == hashes(tmp_path / "b")
    chronozarr.encode(da[:5], tmp_path / "grown", mask=m[:5], **options)  # block 1 partly filled
    chronozarr.append(tmp_path / "grown", da[5:10], mask=m[5:10], progress=False)
    assert hashes(tmp_path / "grown", "history") == hashes(tmp_path / "a", "history")
    assert _declaration(tmp_path / "grown") == _declaration(tmp_path / "a")


def test_a_1_2_store_grows_its_level_0_history_only(tmp_path, source):
    from history_stores import as_version_1_2

    da, _ = source
    chronozarr.encode(da[:5], tmp_path / "s", nodata=0, **OPTIONS)
    as_version_1_2(tmp_path / "s")
    chronozarr.append(tmp_path / "s", da[5:10], progress=False)
    declared = _declaration(tmp_path / "s")
    assert declared["version"] == "1.2" and "levels" not in declared
    assert not (tmp_path / "s" / "history_1").exists()
    np.testing.assert_array_equal(zarr.open_group(tmp_path / "s", mode="r")["history"][...], da.values)
