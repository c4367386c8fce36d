"""--valid and --mask-bits on dated globs and manifests: a dated file's mask is its sibling
`<name>_<asset><ext>` (which the glob may match too), a manifest row's is the column named after the
asset. Every composite value, mask and coverage equals numpy's over the same arrays
(tests/composite_scenes.py); without a mask a glob is judged by nodata alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from composite_scenes import MASK_TRANSFORM, expected_composite, make_scenes
from raster_inputs import geotiff

import chronozarr
from chronozarr.convert import convert
from chronozarr.errors import InputError

FAST = {"chunk_size": 8, "progress": False, "encoding": "none"}
DAYS = ["2024-01-03", "2024-01-13", "2024-01-23", "2024-02-02", "2024-02-12", "2024-03-23"]
MONTHS = [[0, 1, 2], [3, 4], [5]]


def _read_back(path: Path) -> tuple[np.ndarray, ...]:
    with chronozarr.open_dataset(path) as store:
        n = len(store.times)
        return tuple(np.stack([read(t) for t in range(n)]) for read in (store.read, store.read_mask, store.read_coverage))


def _files(folder: Path, scenes, mask_key: str, mask_name=lambda stem, key: f"{stem}_{key}.tif") -> list[tuple[str, str]]:
    """Each scene as one two-band file S2_<date>.tif (nodata 0) and its 20 m mask file."""
    folder.mkdir(exist_ok=True)
    out = []
    for day, scene in zip(DAYS, scenes, strict=True):
        stem = f"S2_{day.replace('-', '')}"
        geotiff(folder / f"{stem}.tif", scene.bands, nodata=0)
        geotiff(folder / mask_name(stem, mask_key), scene.mask[None], transform=MASK_TRANSFORM)
        out.append((f"{stem}.tif", mask_name(stem, mask_key)))
    return out


def _check(out: Path, scenes, reducer: str, **expected) -> None:
    want = expected_composite([[scenes[i] for i in m] for m in MONTHS], reducer, **expected)
    assert (want[2] < np.stack([np.full(want[2].shape[1:], len(m)) for m in MONTHS])).any()  # the masks refuse observations
    for got, expected_array in zip(_read_back(out), want, strict=True):
        np.testing.assert_array_equal(got, expected_array)


def test_a_dated_glob_reads_each_file_s_scl_from_its_sibling(tmp_path: Path) -> None:
    scenes = make_scenes([d + "T10:00:00Z" for d in DAYS], seed=71)
    _files(tmp_path / "scenes", scenes, "scl")  # the glob below matches the masks too
    result = convert(str(tmp_path / "scenes" / "*.tif"), tmp_path / "out", composite="month", reducer="median",
                     valid=["scl:4,5,6,7,11"], **FAST)
    _check(tmp_path / "out", scenes, "median")
    assert "scl classes 4,5,6,7,11 kept" in str(result) and "nearest neighbour" in str(result)


def test_a_dated_glob_finds_landsat_qa_pixel_siblings_whatever_their_case(tmp_path: Path) -> None:
    scenes = make_scenes([d + "T10:00:00Z" for d in DAYS], seed=72, qa=True)
    _files(tmp_path / "scenes", scenes, "qa_pixel", mask_name=lambda stem, key: f"{stem}_{key.upper()}.tif")
    convert(str(tmp_path / "scenes" / "S2_????????.tif"), tmp_path / "out", composite="month", reducer="mean",
            mask_bits=["qa_pixel:cloud,shadow"], **FAST)
    _check(tmp_path / "out", scenes, "mean", qa_bits=(3, 4))


def test_a_csv_manifest_names_each_row_s_mask_in_the_asset_s_column(tmp_path: Path) -> None:
    scenes = make_scenes([d + "T10:00:00Z" for d in DAYS], seed=73)
    files = _files(tmp_path / "scenes", scenes, "scl", mask_name=lambda stem, key: f"masks_{stem}.tif")
    rows = "".join(f"scenes/{data},{day}T10:00:00Z,scenes/{mask}\n" for (data, mask), day in zip(files, DAYS, strict=True))
    (tmp_path / "list.csv").write_text("uri,datetime,SCL\n" + rows)
    convert(str(tmp_path / "list.csv"), tmp_path / "out", composite="month", reducer="medoid", valid=["scl:4,5,6,7,11"],
            gap_fill="carry-forward", **FAST)
    _check(tmp_path / "out", scenes, "medoid", carry=True)


def test_a_json_manifest_names_the_qa_pixel_per_item(tmp_path: Path) -> None:
    scenes = make_scenes([d + "T10:00:00Z" for d in DAYS], seed=74, qa=True)
    files = _files(tmp_path / "scenes", scenes, "qa_pixel")
    items = [{"uri": f"scenes/{data}", "datetime": day, "qa_pixel": f"scenes/{mask}"} for (data, mask), day in zip(files, DAYS, strict=True)]
    (tmp_path / "list.json").write_text(json.dumps({"items": items}))
    convert(str(tmp_path / "list.json"), tmp_path / "out", composite="month", reducer="max", mask_bits=["qa_pixel:fill,cloud,shadow"], **FAST)
    _check(tmp_path / "out", scenes, "max", qa_bits=(0, 3, 4))


def test_a_missing_mask_is_named_with_where_it_is_looked_for(tmp_path: Path) -> None:
    scenes = make_scenes([d + "T10:00:00Z" for d in DAYS], seed=75)
    files = _files(tmp_path / "scenes", scenes, "scl")
    (tmp_path / "scenes" / files[2][1]).unlink()
    with pytest.raises(InputError, match=r"S2_20240123\.tif has no mask file S2_20240123_scl\.tif beside it"):
        convert(str(tmp_path / "scenes" / "*.tif"), tmp_path / "a", composite="month", valid=["scl:4,5,6,7,11"], **FAST)
    (tmp_path / "list.csv").write_text("uri,datetime\n" + "".join(f"scenes/{d},{day}\n" for (d, _), day in zip(files, DAYS, strict=True)))
    with pytest.raises(InputError, match=r"line 2 names no scl mask.*uri,datetime,scl"):
        convert(str(tmp_path / "list.csv"), tmp_path / "b", composite="month", valid=["scl:4,5,6,7,11"], **FAST)


def test_an_unreadable_mask_is_named_or_its_scene_left_out_with_skip_unreadable(tmp_path: Path) -> None:
    from composite_scenes import write_items

    scenes = make_scenes([d + "T10:00:00Z" for d in DAYS], seed=76)
    items = write_items(tmp_path, scenes)
    (tmp_path / "S01_scl.tif").write_bytes(b"not a tiff")  # a truncated download of the second scene's SCL
    options = {"assets": ["B04", "B08"], "composite": "month", "valid": ["scl:4,5,6,7,11"], **FAST}
    with pytest.raises(InputError, match="S01_scl.tif"):
        convert(items, tmp_path / "refused", **options)
    result = convert(items, tmp_path / "out", skip_unreadable=True, **options)
    want = expected_composite([[scenes[0], scenes[2]], scenes[3:5], scenes[5:]], "median")
    for got, expected_array in zip(_read_back(tmp_path / "out"), want, strict=True):
        np.testing.assert_array_equal(got, expected_array)
    assert "2024-01-01  2 scene(s)" in str(result) and "skipped 1 unreadable file(s) (--skip-unreadable): " in str(result)
