"""Work units: phases reach every level once, and every object of a store belongs to exactly one unit
(so no two cluster tasks ever write one object or one shard)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chronozarr.format.geometry import pyramid_levels
from chronozarr.write.output import Output
from chronozarr.write.phases import all_units
from chronozarr.write.plan import Plan, Schedule
from chronozarr.format.codecs import CodecSpec
from chronozarr.write.units import check_span, default_span, phases
from chronozarr.errors import InputError
from expected import level_count


def _plan(n_time=7, height=150, width=131, cs=16, shard_time=None, mask=True):
    levels = tuple(pyramid_levels(height, width, cs, (20.0, 0.0, 0.0, 0.0, -20.0, 0.0)))
    return Plan(
        output=Output(Path("/nonexistent")), variable="data", dtype="uint16", shape=(n_time, 3, height, width),
        levels=levels, codec=CodecSpec("zstd", 5), nodata=0, encoding="star-delta", schedule=Schedule.nearest(n_time, 3),
        shard_time=shard_time, has_mask=mask, has_coverage=False,
    )


@pytest.mark.parametrize("n_levels,span,expected", [
    (5, 2, [(0, 0, 1), (1, 2, 2), (2, 3, 3), (3, 4, 4)]),
    (5, 4, [(0, 0, 2), (2, 3, 4)]),
    (5, 8, [(0, 0, 3), (3, 4, 4)]),
    (3, 16, [(0, 0, 2)]),
    (1, 4, [(0, 0, 0)]),
])
def test_phases_build_each_level_once_from_the_one_below(n_levels, span, expected):
    assert [(p.base, p.first, p.last) for p in phases(n_levels, span)] == expected


@pytest.mark.parametrize("shard_time", [None, 3, 7])
@pytest.mark.parametrize("span", [2, 4, 16])
def test_every_object_belongs_to_exactly_one_unit(span, shard_time):
    plan = _plan(shard_time=shard_time)
    owner: dict[str, str] = {}
    for phase_units in all_units(plan, span, window=2):
        for unit in phase_units:
            for index in range(unit.phase.first, unit.phase.last + 1):
                level = plan.levels[index]
                for row, col in unit.block.cells(level):
                    for t in range(unit.start, unit.stop):
                        for name in ("data", "mask"):
                            key = plan.timestep_key(level, name, t, row, col)
                            assert owner.setdefault(key, unit.name) == unit.name, f"{key}: {owner[key]} and {unit.name}"
    assert set(owner) == _spec_objects(n_time=7, height=150, width=131, cs=16, n_levels=level_count(150, 131, 16), shard_time=shard_time)


def _spec_objects(n_time: int, height: int, width: int, cs: int, n_levels: int, shard_time: int | None) -> set[str]:
    """Every data and mask object key spec 2 and 7.1 give the store, from the sizes alone:
    level k is ceil(H / 2^k) x ceil(W / 2^k) in cells of cs; data keys carry band chunk 0."""
    keys = set()
    for k in range(n_levels):
        level_height, level_width = -(-height // 2**k), -(-width // 2**k)
        rows, cols = -(-level_height // cs), -(-level_width // cs)
        for t in range(n_time):
            index = t if shard_time is None else t // shard_time
            for r in range(rows):
                for c in range(cols):
                    keys |= {f"{k}/data/c/{index}/0/{r}/{c}", f"{k}/mask/c/{index}/{r}/{c}"}
    return keys


def test_the_default_block_holds_about_64_mb_and_at_least_a_source_chunk():
    plan = _plan(height=60000, width=60000, cs=512, mask=False)
    assert default_span(plan, None) == 4  # 3 bands of uint16: 16 cells of 1.5 MB
    assert default_span(plan, (4096, 4096)) == 8
    assert default_span(_plan(height=600, width=600, cs=512), None) == 2  # never beyond what covers the grid


@pytest.mark.parametrize("bad", [0, 1, 3, 6, True, 2.0])
def test_block_size_must_be_a_power_of_two_of_at_least_two(bad):
    with pytest.raises(InputError, match="power of two"):
        check_span(bad)
