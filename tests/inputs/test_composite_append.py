"""An appended composite keeps the store's definition: a reducer or gap fill not given is the
store's (its provenance), and another period, reducer, gap fill or mask rule is refused with one
line naming the store's; mask asset keys are matched in any case (Planetary Computer's `SCL`);
--harmonize none on items whose declared offsets differ by baseline names the flag that fixes it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from composite_scenes import expected_composite, make_scenes, write_items
from typer.testing import CliRunner

import chronozarr
from chronozarr.cli import app
from chronozarr.convert import append_composite, convert
from chronozarr.errors import InputError

DATES = ["2024-05-02T10:00:00Z", "2024-05-20T10:00:00Z", "2024-06-09T10:00:00Z", "2024-07-04T10:00:00Z", "2024-07-24T10:00:00Z"]
FAST = {"chunk_size": 8, "progress": False, "encoding": "none"}
SCL = ("scl:4,5,6,7,11",)


def _store(tmp_path: Path, scenes, **options) -> tuple[Path, Path]:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    convert(write_items(tmp_path / "old", scenes[:3]), tmp_path / "out", assets=["B04", "B08"], composite="month", **options, **FAST)
    return tmp_path / "out", write_items(tmp_path / "new", scenes[3:])


def test_an_append_without_reducer_or_gap_fill_takes_the_store_s(tmp_path: Path) -> None:
    scenes = make_scenes(DATES, seed=91, cloudy=0.75)
    store, new = _store(tmp_path, scenes, reducer="max", gap_fill="carry-forward", valid=SCL)
    added = append_composite(store, new, composite="month", valid=SCL, rasters={"assets": ["B04", "B08"]}, progress=False)
    want = expected_composite([scenes[:2], scenes[2:3], scenes[3:]], "max", carry=True)
    assert ((want[2][2] == 0) & (want[1][2] == 1)).any()  # July carries June's values
    with chronozarr.open_dataset(store) as stored:
        got = tuple(np.stack([read(t) for t in range(3)]) for read in (stored.read, stored.read_mask, stored.read_coverage))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert "2024-07-01  2 scene(s)" in str(added)


@pytest.mark.parametrize("change, said", [
    ({"reducer": "mean"}, "the store is a monthly median composite"),
    ({"composite": "week"}, r"weekly \(ISO week\) median"),
    ({"gap_fill": "carry-forward"}, "--gap-fill none"),
    ({"valid": ("scl:4,5",)}, "scl classes 4,5,6,7,11 kept"),
    ({"valid": (), "mask_bits": ("scl:cloud",)}, "give the store's --valid and --mask-bits"),
])
def test_an_append_of_another_definition_is_refused_naming_the_store_s(tmp_path: Path, change: dict, said: str) -> None:
    store, new = _store(tmp_path, make_scenes(DATES, seed=92), valid=SCL)
    options = {"composite": "month", "valid": SCL} | change
    before = sorted(p.name for p in store.rglob("*"))
    with pytest.raises(InputError, match=said):
        append_composite(store, new, **options, rasters={"assets": ["B04", "B08"]}, progress=False)
    assert sorted(p.name for p in store.rglob("*")) == before


def test_the_cli_refusal_is_one_line_and_exit_2(tmp_path: Path) -> None:
    store, new = _store(tmp_path, make_scenes(DATES, seed=93), valid=SCL)
    result = CliRunner().invoke(app, ["append", str(store), str(new), "--assets", "B04,B08", "--composite", "month", "--reducer", "min",
                                      "--valid", SCL[0], "--no-progress"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().count("\n") == 0 and "monthly median" in result.output


def test_a_mask_asset_key_is_matched_in_any_case(tmp_path: Path) -> None:
    scenes = make_scenes(DATES[:3], seed=94)
    items = write_items(tmp_path, scenes, mask_key="SCL")  # Planetary Computer's key
    convert(items, tmp_path / "out", assets=["B04", "B08"], composite="month", valid=SCL, **FAST)
    with chronozarr.open_dataset(tmp_path / "out") as stored:
        np.testing.assert_array_equal(stored.read_coverage(0), expected_composite([scenes[:2]], "median")[2][0])
    with pytest.raises(InputError, match=r"no asset 'cloud' .*name the item's mask asset in --valid or --mask-bits"):
        convert(items, tmp_path / "bad", assets=["B04", "B08"], composite="month", valid=("cloud:1",), **FAST)


def test_harmonize_none_on_offsets_declared_per_baseline_names_the_flag(tmp_path: Path) -> None:
    scenes = make_scenes(["2022-01-20T10:00:00Z", "2022-01-28T10:00:00Z"], seed=95)
    for scene, baseline in zip(scenes, ("03.01", "04.00"), strict=True):
        scene.properties = {"s2:processing_baseline": baseline, "earthsearch:boa_offset_applied": False}
    items = write_items(tmp_path, scenes)
    collection = json.loads(items.read_text())
    for feature in collection["features"]:
        offset = -0.1 if feature["properties"]["s2:processing_baseline"] == "04.00" else 0.0
        for key in ("B04", "B08"):
            feature["assets"][key]["raster:bands"] = [{"nodata": 0, "scale": 0.0001, "offset": offset}]
    items.write_text(json.dumps(collection))
    with pytest.raises(InputError, match=r"item S00 declares band offset 0.0 and item S01 -0.1 .*leave out --harmonize none"):
        convert(items, tmp_path / "out", assets=["B04", "B08"], composite="month", valid=SCL, harmonize="none", **FAST)
