"""Composites of STAC items written by convert and read back: every value, mask and coverage
compared with numpy computed in the test from the same scene arrays (tests/composite_scenes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from composite_scenes import expected_composite, make_scenes, write_items

import chronozarr
from chronozarr.convert import convert
from chronozarr.errors import InputError

FAST = {"chunk_size": 8, "progress": False, "encoding": "none"}
DATES = ["2024-01-03T10:00:00Z", "2024-01-13T10:00:00Z", "2024-01-23T10:00:00Z", "2024-02-02T10:00:00Z",
         "2024-02-12T10:00:00Z", "2024-03-23T10:00:00Z"]
MONTHS = [[0, 1, 2], [3, 4], [5]]


def _read_back(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], dict]:
    with chronozarr.open_dataset(path) as store:
        n = len(store.times)
        data = np.stack([store.read(t) for t in range(n)])
        mask = np.stack([store.read_mask(t) for t in range(n)])
        coverage = np.stack([store.read_coverage(t) for t in range(n)])
        return data, mask, coverage, store.times_iso, dict(store.root_attrs)


def _composite(tmp_path: Path, scenes, **options):
    items = write_items(tmp_path, scenes)
    result = convert(items, tmp_path / "out", assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], **options, **FAST)
    return result, _read_back(tmp_path / "out")


@pytest.mark.parametrize("reducer", ["median", "mean", "min", "max", "first", "last", "medoid"])
def test_monthly_composite_matches_numpy_for_each_reducer(tmp_path: Path, reducer: str) -> None:
    scenes = make_scenes(DATES, seed=1)
    _, (data, mask, coverage, times, _) = _composite(tmp_path, scenes, composite="month", reducer=reducer)
    want_data, want_mask, want_coverage = expected_composite([[scenes[i] for i in m] for m in MONTHS], reducer)
    assert times == ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"]
    np.testing.assert_array_equal(mask, want_mask)
    np.testing.assert_array_equal(coverage, want_coverage)
    np.testing.assert_array_equal(data, want_data)


def test_carry_forward_fills_gaps_with_the_last_valid_value_coverage_zero_mask_one(tmp_path: Path) -> None:
    scenes = make_scenes(DATES, seed=2, cloudy=0.7)
    result, (data, mask, coverage, _, attrs) = _composite(tmp_path, scenes, composite="month", reducer="median", gap_fill="carry-forward")
    want_data, want_mask, want_coverage = expected_composite([[scenes[i] for i in m] for m in MONTHS], "median", carry=True)
    assert (want_coverage == 0).any() and ((want_coverage == 0) & (want_mask == 1)).any()  # the case holds carried pixels
    np.testing.assert_array_equal(mask, want_mask)
    np.testing.assert_array_equal(coverage, want_coverage)
    np.testing.assert_array_equal(data, want_data)
    report = chronozarr.validate(tmp_path / "out")
    assert report.ok, report.to_text()
    provenance = attrs["chronozarr"]["provenance"] if "chronozarr" in attrs else attrs["provenance"]
    assert provenance["composite"] == "monthly median" and provenance["gap_fill"] == "carry-forward"
    assert "scl classes 4,5,6,7,11 kept" in provenance["notes"] and "nearest neighbour" in provenance["notes"]
    assert provenance["sources"] == ["sentinel-2-l2a (sentinel-2a)"]
    text = str(result)
    assert "2024-02-01  2 scene(s)" in text and "gap-filled" in text


def test_fixed_periods_count_from_the_period_start(tmp_path: Path) -> None:
    scenes = make_scenes(DATES, seed=3)
    _, (data, mask, coverage, times, _) = _composite(tmp_path, scenes, composite="16D", reducer="max", period_start="2024-01-01")
    groups = [[0, 1], [2], [3, 4], [5]]  # from 01-01: 01-01..01-16, 01-17..02-01, 02-02..02-17, 03-21..04-05 (2024 is a leap year)
    assert times == ["2024-01-01T00:00:00Z", "2024-01-17T00:00:00Z", "2024-02-02T00:00:00Z", "2024-03-21T00:00:00Z"]
    want = expected_composite([[scenes[i] for i in g] for g in groups], "max")
    for got, expected in zip((data, mask, coverage), want, strict=True):
        np.testing.assert_array_equal(got, expected)


def test_landsat_qa_bits_make_observations_invalid_where_any_named_bit_is_set(tmp_path: Path) -> None:
    scenes = make_scenes(DATES[:3], seed=4, qa=True)
    items = write_items(tmp_path, scenes, mask_key="qa_pixel", collection="landsat-c2-l2", platform="landsat-8")
    convert(items, tmp_path / "out", assets=["B04", "B08"], mask_bits=["qa_pixel:cloud,shadow"], composite="month", reducer="mean", **FAST)
    data, mask, coverage, _, _ = _read_back(tmp_path / "out")
    want = expected_composite([scenes], "mean", qa_bits=(3, 4))
    for got, expected in zip((data, mask, coverage), want, strict=True):
        np.testing.assert_array_equal(got, expected)


def test_a_dry_run_lists_the_periods_and_their_scenes_and_writes_nothing(tmp_path: Path) -> None:
    items = write_items(tmp_path, make_scenes(DATES, seed=5))
    result = convert(items, tmp_path / "out", assets=["B04", "B08"], composite="month", dry_run=True, **FAST)
    text = str(result)
    assert "monthly median composite of 6 scene(s) in 3 period(s)" in text
    assert "2024-01-01  3 scene(s): item S00" in text and "grid" in text
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_composite_options_are_refused_without_composite_and_with_group_by(tmp_path: Path) -> None:
    items = write_items(tmp_path, make_scenes(DATES[:2], seed=6))
    with pytest.raises(InputError, match="--composite"):
        convert(items, tmp_path / "a", assets=["B04"], reducer="median", **FAST)
    with pytest.raises(InputError, match="--group-by"):
        convert(items, tmp_path / "b", assets=["B04"], composite="month", group_by="day", **FAST)
    with pytest.raises(InputError, match="not a band"):
        convert(items, tmp_path / "c", assets=["B04", "scl"], composite="month", valid=["scl:4"], **FAST)
    json.loads(items.read_text())


BASELINE_DATES = ["2022-01-10T10:00:00Z", "2022-01-20T10:00:00Z", "2022-01-28T10:00:00Z", "2022-02-05T10:00:00Z"]


# Earth Search: the baseline, and whether it took the offset out of the COGs (false: values carry +1000)
EARTH_SEARCH_OLD = {"s2:processing_baseline": "03.01", "earthsearch:boa_offset_applied": False}
EARTH_SEARCH_NEW = {"s2:processing_baseline": "04.00", "earthsearch:boa_offset_applied": False}


def _baseline_scenes(seed: int, old: dict, new: dict, high: int = 250):
    scenes = make_scenes(BASELINE_DATES, seed=seed, high=high)
    for scene in scenes:
        scene.properties = dict(old if scene.when < "2022-01-25" else new)
    return scenes


@pytest.mark.parametrize("old, new", [(EARTH_SEARCH_OLD, EARTH_SEARCH_NEW), ({"s2:processing_baseline": "03.01"}, {"s2:processing_baseline": "04.00"})])
def test_a_baseline_mix_is_stored_on_the_04_00_convention_older_scenes_shifted(tmp_path: Path, old: dict, new: dict) -> None:
    scenes = _baseline_scenes(7, old, new)
    result, (data, mask, coverage, _, attrs) = _composite(tmp_path, scenes, composite="month", reducer="mean")
    shifts = {s.name: 1000 for s in scenes[:2]}
    want = expected_composite([scenes[:3], scenes[3:]], "mean", shifts=shifts)
    for got, expected in zip((data, mask, coverage), want, strict=True):
        np.testing.assert_array_equal(got, expected)
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert all((b.scale, b.offset) == (1e-4, -0.1) for b in store.bands)
    assert "2 scene(s) before baseline 04.00 shifted by +1000 DN" in str(result)


def test_harmonize_none_keeps_values_as_delivered(tmp_path: Path) -> None:
    scenes = _baseline_scenes(8, EARTH_SEARCH_OLD, EARTH_SEARCH_NEW)
    result, (data, _, _, _, _) = _composite(tmp_path, scenes, composite="month", reducer="mean", harmonize="none")
    np.testing.assert_array_equal(data, expected_composite([scenes[:3], scenes[3:]], "mean")[0])
    assert "not harmonised" in str(result)


def test_scenes_the_provider_harmonised_already_are_not_shifted(tmp_path: Path) -> None:
    """Earth Search's `earthsearch:boa_offset_applied` true on a 04.00 item: the provider took the
    +1000 DN out of the COGs, so the series is on one convention as delivered and nothing moves."""
    scenes = _baseline_scenes(11, EARTH_SEARCH_OLD, {"s2:processing_baseline": "04.00", "earthsearch:boa_offset_applied": True})
    result, (data, mask, coverage, _, _) = _composite(tmp_path, scenes, composite="month", reducer="mean")
    for got, expected in zip((data, mask, coverage), expected_composite([scenes[:3], scenes[3:]], "mean"), strict=True):
        np.testing.assert_array_equal(got, expected)
    assert "shifted" not in str(result) and "not harmonised" not in str(result)


def test_a_mix_the_items_do_not_tell_is_refused_naming_harmonize(tmp_path: Path) -> None:
    scenes = _baseline_scenes(9, EARTH_SEARCH_OLD, EARTH_SEARCH_NEW)
    scenes[0].properties = {}
    with pytest.raises(InputError, match="--harmonize none"):
        _composite(tmp_path, scenes, composite="month")
    for scene in scenes:
        scene.properties = {}  # none tells, and the dates span 2022-01-25
    (tmp_path / "again").mkdir()
    with pytest.raises(InputError, match="--harmonize none"):
        _composite(tmp_path / "again", scenes, composite="month")


def test_a_shift_that_leaves_the_uint16_range_is_refused_naming_the_pixels(tmp_path: Path) -> None:
    scenes = _baseline_scenes(10, EARTH_SEARCH_OLD, EARTH_SEARCH_NEW, high=65535)
    with pytest.raises(InputError, match=r"uint16 range at \d+ pixel"):
        _composite(tmp_path, scenes, composite="month")


def _record_reads(monkeypatch, frames) -> list:
    """Every window a scene or mask file is read over, as (col, row, width, height), in order."""
    boxes = []
    original = frames.OpenFiles.read

    def counted(self, uri, indexes, box):
        boxes.append(box)
        return original(self, uri, indexes, box)

    monkeypatch.setattr(frames.OpenFiles, "read", counted)
    return boxes


def test_scenes_are_read_block_by_block_and_carry_forward_walks_back_when_the_cache_is_gone(tmp_path: Path, monkeypatch) -> None:
    """Blocks of 16 x 16 pixels: every read of a scene or mask file is one such window (never a frame),
    and with no window result kept between periods the gaps are still filled from the latest
    earlier period (found by walking back)."""
    from chronozarr.inputs import composite_reads, frames

    boxes = _record_reads(monkeypatch, frames)
    monkeypatch.setattr(composite_reads, "CARRIED_BYTES", 0)
    monkeypatch.setattr(composite_reads, "CARRIED_AT_LEAST", 0)  # nothing kept: every gap is found walking back
    scenes = make_scenes(DATES, seed=14, cloudy=0.8)
    _, (data, mask, coverage, _, _) = _composite(tmp_path, scenes, composite="month", reducer="median", gap_fill="carry-forward", block_size=2)
    want = expected_composite([[scenes[i] for i in m] for m in MONTHS], "median", carry=True)
    assert ((want[2] == 0) & (want[1] == 1)).any()
    for got, expected in zip((data, mask, coverage), want, strict=True):
        np.testing.assert_array_equal(got, expected)
    # 2 x 2 cells of 8 px per block on the 20 x 18 grid; the one larger window is the writer's resume
    # digest (64 x 64 pixels at most, here the whole small grid), read for the first and last period
    blocks = [b for b in boxes if max(b[2], b[3]) <= 16]
    assert blocks and set(boxes) - set(blocks) <= {(0, 0, 18, 20)}


def test_a_window_is_reduced_tile_by_tile_with_the_values_of_the_whole(tmp_path: Path, monkeypatch) -> None:
    """Tiles of 8 px cut from the writer's blocks (the grid is 18 x 20): no read larger than a tile,
    and the composite, mask and coverage those tiles give are numpy's over the whole frame."""
    from chronozarr.inputs import composite_reads, frames

    boxes = _record_reads(monkeypatch, frames)
    monkeypatch.setattr(composite_reads, "TILE", 8)
    scenes = make_scenes(DATES, seed=21, cloudy=0.5)
    _, got = _composite(tmp_path, scenes, composite="month", reducer="median")
    want = expected_composite([[scenes[i] for i in m] for m in MONTHS], "median")
    for values, expected in zip(got[:3], want, strict=True):
        np.testing.assert_array_equal(values, expected)
    assert boxes and max(max(b[2], b[3]) for b in boxes) <= 8


def test_dated_files_make_iso_week_composites_judged_by_their_nodata(tmp_path: Path) -> None:
    from raster_inputs import geotiff

    dates = ["2024-03-04", "2024-03-06", "2024-03-10", "2024-03-11", "2024-03-20"]  # Mon, Wed, Sun | Mon | Wed
    scenes = make_scenes([d + "T00:00:00Z" for d in dates], seed=15)
    (tmp_path / "scenes").mkdir()
    for day, scene in zip(dates, scenes, strict=True):
        geotiff(tmp_path / "scenes" / f"S2_{day.replace('-', '')}.tif", scene.bands, nodata=0)
    convert(str(tmp_path / "scenes" / "*.tif"), tmp_path / "out", composite="week", reducer="mean", **FAST)
    data, mask, coverage, times, _ = _read_back(tmp_path / "out")
    assert times == ["2024-03-04T00:00:00Z", "2024-03-11T00:00:00Z", "2024-03-18T00:00:00Z"]
    for scene in scenes:
        scene.mask[:] = 4  # no mask asset: only nodata and the footprint judge
    want = expected_composite([scenes[:3], scenes[3:4], scenes[4:]], "mean")
    for got, expected in zip((data, mask, coverage), want, strict=True):
        np.testing.assert_array_equal(got, expected)


def test_baseline_scales_and_offsets_the_items_declare_give_way_to_the_store_convention(tmp_path: Path) -> None:
    """Earth Search declares offset 0 on older items and -0.1 on 04.00 ones: a mix the files could not
    share, stored as one convention; a user's provenance gains the composite fields it lacks."""
    scenes = _baseline_scenes(16, EARTH_SEARCH_OLD, EARTH_SEARCH_NEW)
    items = write_items(tmp_path, scenes)
    collection = json.loads(items.read_text())
    for feature in collection["features"]:
        offset = -0.1 if feature["properties"]["s2:processing_baseline"] == "04.00" else 0.0
        for key in ("B04", "B08"):
            feature["assets"][key]["raster:bands"] = [{"nodata": 0, "scale": 0.0001, "offset": offset, "data_type": "uint16"}]
    items.write_text(json.dumps(collection))
    convert(items, tmp_path / "out", assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], composite="month", reducer="min",
            provenance={"sources": ["my search"], "notes": "for a river"}, **FAST)
    data, _, _, _, attrs = _read_back(tmp_path / "out")
    np.testing.assert_array_equal(data, expected_composite([scenes[:3], scenes[3:]], "min", shifts={s.name: 1000 for s in scenes[:2]})[0])
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert all((b.scale, b.offset) == (1e-4, -0.1) for b in store.bands)
    provenance = attrs["chronozarr"]["provenance"] if "chronozarr" in attrs else attrs["provenance"]
    assert provenance["sources"] == ["my search"] and provenance["composite"] == "monthly min"
    assert provenance["notes"].startswith("for a river; ") and "harmonised" in provenance["notes"]


def test_an_unreadable_scene_is_named_or_left_out_with_skip_unreadable(tmp_path: Path) -> None:
    scenes = make_scenes(DATES, seed=17)
    items = write_items(tmp_path, scenes)
    (tmp_path / "S01_B08.tif").write_bytes(b"not a tiff")
    with pytest.raises(InputError, match="S01_B08.tif"):
        convert(items, tmp_path / "refused", assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], composite="month", **FAST)
    result = convert(items, tmp_path / "out", assets=["B04", "B08"], valid=["scl:4,5,6,7,11"], composite="month", reducer="last",
                     skip_unreadable=True, **FAST)
    data, mask, coverage, _, _ = _read_back(tmp_path / "out")
    want = expected_composite([[scenes[0], scenes[2]], scenes[3:5], scenes[5:]], "last")
    for got, expected in zip((data, mask, coverage), want, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert "2024-01-01  2 scene(s)" in str(result) and "skipped 1 unreadable" in str(result)


def test_append_keeps_the_store_baseline_convention_or_refuses_a_jump(tmp_path: Path) -> None:
    from chronozarr.convert import append_composite

    dates = ["2021-12-10T10:00:00Z", "2022-01-10T10:00:00Z", "2022-02-05T10:00:00Z", "2022-03-05T10:00:00Z"]
    scenes = make_scenes(dates, seed=18)
    for scene in scenes:
        scene.properties = dict(EARTH_SEARCH_NEW if scene.when >= "2022-01-25" else EARTH_SEARCH_OLD)
    folders = [tmp_path / name for name in ("a", "b", "c", "d")]
    for folder in folders:
        folder.mkdir()
    options = {"assets": ["B04", "B08"]}
    mask = {"valid": ("scl:4,5,6,7,11",), "composite": "month", "reducer": "max"}
    # a store on baseline 04.00's convention (made from a mix) takes older scenes shifted, newer as they are
    convert(write_items(folders[0], scenes[1:3]), tmp_path / "on04", **options, **mask, **FAST)
    append_composite(tmp_path / "on04", write_items(folders[1], scenes[3:]), **mask, rasters=options, progress=False)
    data, _, _, times, _ = _read_back(tmp_path / "on04")
    assert times[-1] == "2022-03-01T00:00:00Z"
    want = expected_composite([[s] for s in scenes[1:]], "max", shifts={scenes[1].name: 1000})[0]
    np.testing.assert_array_equal(data, want)
    # a store of older scenes only, without the offset: 04.00 scenes would jump by 1000 DN
    convert(write_items(folders[2], scenes[:1]), tmp_path / "old", **options, **mask, **FAST)
    with pytest.raises(InputError, match="--harmonize none"):
        append_composite(tmp_path / "old", write_items(folders[3], scenes[2:3]), **mask, rasters=options, progress=False)
