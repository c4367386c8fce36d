"""Level geometry (spec 2.1, 3.3, 6, 7.1) against a brute-force oracle over every pixel.

The oracle never uses the halving or grid formulas of format/geometry: it takes H_k = ceil(H_0 /
2^k) (the closed form of spec 6), finds each pixel's cell by integer division of its own index,
and finds a block's pixels at a coarser level by following each pixel down to the base level.
"""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given
from hypothesis import strategies as st
from property_settings import PROPERTIES

from chronozarr.format.geometry import blocks, cell_key, level_transform, pyramid_levels, time_shard

BASE = (10.0, 0.0, 500000.0, 0.0, -10.0, 5000000.0)
sizes = st.integers(1, 90)
chunk_sizes = st.sampled_from([2, 4, 6, 8, 16])


def oracle_sizes(height: int, width: int, cs: int) -> list[tuple[int, int]]:
    """(H_k, W_k) of the default pyramid: closed-form ceil(H_0 / 2^k), up to the first level
    whose every pixel falls in cell (0, 0)."""
    out = []
    k = 0
    while True:
        h, w = -(-height // 2**k), -(-width // 2**k)
        out.append((h, w))
        if (h - 1) // cs == 0 and (w - 1) // cs == 0:
            return out
        k += 1


def oracle_cells(height: int, width: int, cs: int) -> dict[tuple[int, int], tuple[list[int], list[int]]]:
    """Every cell with the pixel rows and columns that fall in it, by each pixel's own index."""
    rows: dict[int, list[int]] = defaultdict(list)
    cols: dict[int, list[int]] = defaultdict(list)
    for y in range(height):
        rows[y // cs].append(y)
    for x in range(width):
        cols[x // cs].append(x)
    return {(r, c): (rows[r], cols[c]) for r in rows for c in cols}


def _indices(s: slice) -> list[int]:
    return list(range(s.start, s.stop))


@PROPERTIES
@given(height=sizes, width=sizes, cs=chunk_sizes, max_levels=st.none() | st.integers(1, 8))
def test_level_sizes_halve_with_ceil_until_one_cell(height: int, width: int, cs: int, max_levels: int | None) -> None:
    levels = pyramid_levels(height, width, cs, BASE, max_levels)
    want = oracle_sizes(height, width, cs)
    if max_levels is not None:
        want = want[:max_levels]
    assert [(lv.height, lv.width) for lv in levels] == want
    assert [lv.index for lv in levels] == list(range(len(want)))
    assert all(lv.chunk_size == cs for lv in levels)


@PROPERTIES
@given(height=sizes, width=sizes, cs=chunk_sizes)
def test_cells_and_cell_slices_hold_exactly_their_pixels(height: int, width: int, cs: int) -> None:
    for level in pyramid_levels(height, width, cs, BASE):
        cells = oracle_cells(level.height, level.width, cs)
        assert level.cells() == sorted(cells)  # row-major
        assert level.grid == (max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1)
        for (r, c), (ys, xs) in cells.items():
            rows, cols = level.cell_slice(r, c)
            assert (_indices(rows), _indices(cols)) == (ys, xs)


@PROPERTIES
@given(k=st.integers(0, 12), a=st.floats(0.1, 1000), e=st.floats(-1000, -0.1), c=st.floats(-1e6, 1e6), f=st.floats(-1e7, 1e7))
def test_level_transform_doubles_the_pixel_size_and_keeps_the_origin(k: int, a: float, e: float, c: float, f: float) -> None:
    got = level_transform((a, 0.0, c, 0.0, e, f), k)
    assert got == (a * 2.0**k, 0.0, c, 0.0, e * 2.0**k, f)


@PROPERTIES
@given(height=sizes, width=sizes, cs=chunk_sizes)
def test_pixel_centres_and_bbox_follow_the_level_transform(height: int, width: int, cs: int) -> None:
    for level in pyramid_levels(height, width, cs, BASE):
        size = 10.0 * 2**level.index
        assert level.x_centres().tolist() == [500000.0 + (i + 0.5) * size for i in range(level.width)]
        assert level.y_centres().tolist() == [5000000.0 + (j + 0.5) * -size for j in range(level.height)]
        assert level.bbox() == (500000.0, 5000000.0 - size * level.height, 500000.0 + size * level.width, 5000000.0)


@PROPERTIES
@given(
    variable=st.sampled_from(["data", "mask", "coverage", "ndvi"]),
    t=st.integers(0, 10_000),
    row=st.integers(0, 500),
    col=st.integers(0, 500),
    has_band=st.booleans(),
)
def test_chunk_keys_are_the_default_zarr_v3_encoding(variable: str, t: int, row: int, col: int, has_band: bool) -> None:
    """c/{t}/0/{r}/{c} for data (band chunk always 0), c/{t}/{r}/{c} for mask and coverage (spec 2)."""
    coords = [t, 0, row, col] if has_band else [t, row, col]
    assert cell_key(variable, t, row, col, has_band) == "/".join([variable, "c", *map(str, coords)])


@PROPERTIES
@given(t=st.integers(0, 5000), shard_time=st.integers(1, 400))
def test_time_shard_is_the_shard_whose_range_holds_t(t: int, shard_time: int) -> None:
    shard, inner = time_shard(t, shard_time)
    assert shard * shard_time <= t < (shard + 1) * shard_time
    assert shard * shard_time + inner == t


@PROPERTIES
@given(height=st.integers(1, 70), width=st.integers(1, 70), cs=st.sampled_from([2, 4]), span=st.sampled_from([1, 2, 4, 8]))
def test_blocks_partition_each_level_and_never_split_a_2x2_block(height: int, width: int, cs: int, span: int) -> None:
    """Every cell of the base level lies in one block; at each level above, a block's window is the
    set of pixels whose source pixels (edge replication included) lie in its base window."""
    levels = pyramid_levels(height, width, cs, BASE)
    base = levels[0]
    tiles = blocks(base, span)
    owners: dict[tuple[int, int], int] = {}
    for i, block in enumerate(tiles):
        for cell in block.cells(base):
            assert cell not in owners, f"cell {cell} in two blocks"
            owners[cell] = i
    assert sorted(owners) == base.cells()
    for block in tiles:
        base_rows, base_cols = (set(_indices(s)) for s in block.window(base))
        for level in levels[1:]:
            m = level.index
            if span % 2**m:
                break
            rows, cols = block.window(level)
            want_rows = [y for y in range(level.height) if y * 2**m in base_rows]
            want_cols = [x for x in range(level.width) if x * 2**m in base_cols]
            assert (_indices(rows), _indices(cols)) == (want_rows, want_cols)
            for y in want_rows:  # every source row, the replicated last one included, is inside
                assert {min(y * 2**m + i, height - 1) for i in range(2**m)} <= base_rows
            for x in want_cols:
                assert {min(x * 2**m + i, width - 1) for i in range(2**m)} <= base_cols
            cells = oracle_cells(level.height, level.width, cs)
            inside = sorted(rc for rc, (ys, xs) in cells.items() if set(ys) & set(want_rows) and set(xs) & set(want_cols))
            assert block.cells(level) == inside
            for r, c in inside:
                rel_rows, rel_cols = block.cell_window(level, r, c)
                ys, xs = cells[(r, c)]
                assert _indices(rel_rows) == [y - want_rows[0] for y in ys]
                assert _indices(rel_cols) == [x - want_cols[0] for x in xs]
