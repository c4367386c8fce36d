"""Every reducer x period kind x gap fill, each run with one of four mask kinds and one of five
Sentinel-2 baseline cases, chosen so that every pair of values of any two of those five dimensions
is run at least once (checked below). Each store is read back and compared, value for value, with
a composite computed here: periods grouped with Python's datetime (never format/periods.py), each
observation judged from the scene arrays, the baseline shift added where the items say the scene
predates 04.00, and the reducer applied pixel by pixel with numpy (tests/composite_scenes.py)."""

from __future__ import annotations

import itertools
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from composite_scenes import KEPT_SCL, expected_composite, make_scenes, on_10m, write_items

import chronozarr
from chronozarr.convert import convert

REDUCERS = ("median", "mean", "min", "max", "first", "last", "medoid")
PERIODS = ("day", "week", "month", "quarter", "year", "10D")
GAP_FILLS = ("none", "carry-forward")
MASKS = ("scl", "qa", "nodata", "scl+qa")  # --valid, --mask-bits, nodata and footprint alone, both masks
BASELINES = ("landsat", "earth-search", "planetary", "provider", "as-delivered")
# Two scenes on one day, two days of one ISO week, the baseline change (2022-01-25) inside January,
# the first quarter and two years; 2021-12-27 is a Monday.
DATES = ["2021-12-27T10:00:00Z", "2021-12-27T14:00:00Z", "2021-12-30T10:00:00Z", "2022-01-05T10:00:00Z",
         "2022-01-20T10:00:00Z", "2022-01-26T10:00:00Z", "2022-01-26T15:00:00Z", "2022-02-03T10:00:00Z",
         "2022-04-02T10:00:00Z"]
QA_REFUSED = (3, 4)  # cloud, shadow
FAST = {"chunk_size": 8, "progress": False, "encoding": "none"}


def _design() -> list[tuple[str, str, str, str, str]]:
    """(reducer, period, gap fill, mask, baseline): the product of the first three, the other two
    turning with them so that every pair of values is met."""
    rows = []
    for (r, reducer), (p, period), (g, gap) in itertools.product(enumerate(REDUCERS), enumerate(PERIODS), enumerate(GAP_FILLS)):
        rows.append((reducer, period, gap, MASKS[(r + p + 2 * g) % len(MASKS)], BASELINES[(2 * r + p + g) % len(BASELINES)]))
    return rows


DESIGN = _design()


def test_the_design_meets_every_pair_of_values() -> None:
    dimensions = (REDUCERS, PERIODS, GAP_FILLS, MASKS, BASELINES)
    for a, b in itertools.combinations(range(len(dimensions)), 2):
        met = {(row[a], row[b]) for row in DESIGN}
        assert met == set(itertools.product(dimensions[a], dimensions[b])), (a, b)


def _start(when: datetime, period: str, origin: date) -> date:
    """The period's first day, as a calendar says it."""
    day = when.date()
    if period == "day":
        return day
    if period == "week":
        return day - timedelta(days=day.weekday())
    if period == "month":
        return day.replace(day=1)
    if period == "quarter":
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    if period == "year":
        return date(day.year, 1, 1)
    length = int(period[:-1])
    return origin + timedelta(days=((day - origin).days // length) * length)


def _groups(scenes, period: str) -> tuple[list[str], list[list]]:
    whens = [datetime.fromisoformat(s.when.replace("Z", "+00:00")) for s in scenes]
    starts: dict[date, list] = {}
    for when, scene in sorted(zip(whens, scenes, strict=True), key=lambda pair: pair[0]):
        starts.setdefault(_start(when, period, min(whens).date()), []).append(scene)
    return [f"{d.isoformat()}T00:00:00Z" for d in starts], list(starts.values())


OLD, NEW = "2022-01-25", {"earth-search": ({"s2:processing_baseline": "03.01", "earthsearch:boa_offset_applied": False},
                                           {"s2:processing_baseline": "04.00", "earthsearch:boa_offset_applied": False}),
                          "planetary": ({"s2:processing_baseline": "03.01"}, {"s2:processing_baseline": "04.00"}),
                          "provider": ({"s2:processing_baseline": "03.01", "earthsearch:boa_offset_applied": False},
                                       {"s2:processing_baseline": "04.00", "earthsearch:boa_offset_applied": True})}
NEW["as-delivered"] = NEW["earth-search"]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    """The scenes' COGs written once (bands, SCL and QA_PIXEL at 20 m) and one item collection per
    baseline case."""
    folder = tmp_path_factory.mktemp("matrix")
    made = make_scenes(DATES, seed=81, cloudy=0.6)
    rng = np.random.default_rng(82)
    for scene in made:
        cloudy = rng.random(scene.mask.shape) < 0.3
        scene.extra = {"qa_pixel": np.where(cloudy, 1 << rng.integers(1, 5, scene.mask.shape), 1 << 6).astype(np.uint16)}
    write_items(folder, made)
    for case in BASELINES:
        for scene in made:
            scene.properties = {} if case == "landsat" else dict(NEW[case][0 if scene.when < OLD else 1])
        options = {"collection": "landsat-c2-l2", "platform": "landsat-8"} if case == "landsat" else {}
        write_items(folder, made, name=f"{case}.json", files=False, **options)
    return folder, made


def _judge(mask: str):
    def valid(scene) -> np.ndarray:
        ok = (scene.bands != 0).all(axis=0)
        if "scl" in mask:
            ok &= np.isin(on_10m(scene.mask), KEPT_SCL)
        if "qa" in mask:
            ok &= (on_10m(scene.extra["qa_pixel"]).astype(int) & sum(1 << b for b in QA_REFUSED)) == 0
        return ok

    return valid


def _rules(mask: str) -> dict:
    return {"valid": ["scl:4,5,6,7,11"] if "scl" in mask else [],
            "mask_bits": ["qa_pixel:" + ",".join(("cloud", "shadow"))] if "qa" in mask else []}


@pytest.mark.parametrize("reducer, period, gap_fill, mask, baseline", DESIGN, ids=["-".join(row) for row in DESIGN])
def test_composite_equals_the_numpy_oracle(scenes, tmp_path: Path, reducer: str, period: str, gap_fill: str, mask: str, baseline: str) -> None:
    folder, made = scenes
    harmonize = "none" if baseline == "as-delivered" else None
    convert(folder / f"{baseline}.json", tmp_path / "out", assets=["B04", "B08"], composite=period, reducer=reducer, gap_fill=gap_fill,
            harmonize=harmonize, **_rules(mask), **FAST)
    labels, groups = _groups(made, period)
    shifted = baseline in ("earth-search", "planetary")
    shifts = {s.name: 1000 for s in made if s.when < OLD} if shifted else None
    want = expected_composite(groups, reducer, carry=gap_fill == "carry-forward", shifts=shifts, judge=_judge(mask))
    with chronozarr.open_dataset(tmp_path / "out") as store:
        assert store.times_iso == labels
        assert [(b.scale, b.offset) for b in store.bands] == [(1e-4, -0.1 if shifted else 0.0)] * 2  # B04/B08: reflectance x 1e-4
        n = len(labels)
        got = (np.stack([store.read(t) for t in range(n)]), np.stack([store.read_mask(t) for t in range(n)]),
               np.stack([store.read_coverage(t) for t in range(n)]))
        provenance = store.root_attrs["chronozarr"]["provenance"]
    for name, g, w in zip(("data", "mask", "coverage"), got, want, strict=True):
        np.testing.assert_array_equal(g, w, err_msg=name)
    assert provenance["gap_fill"] == gap_fill and provenance["composite"].endswith(f" {reducer}")
