"""Same input and options, same bytes: two encodes of one series are byte-identical object for
object, for every codec and layout, so a store can be rebuilt reproducibly and an upload can skip
the objects that did not change. The encodes run more than a second apart, the resolution of the
timestamp a gzip header could carry."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import chronozarr
from conftest import make_series

CODECS = {
    "zstd": dict(codec="zstd"),
    "gzip": dict(codec="gzip"),
    "blosc-zstd-noshuffle": dict(codec="blosc", blosc_cname="zstd", blosc_shuffle="noshuffle"),
    "blosc-lz4-shuffle": dict(codec="blosc", blosc_cname="lz4", blosc_shuffle="shuffle"),
}
LAYOUTS = {
    "unsharded-none": dict(encoding="none"),
    "unsharded-star-delta": dict(encoding="star-delta", anchor_interval=2),
    "sharded-star-delta": dict(encoding="star-delta", anchor_interval=2, shard=True, shard_time=2),
    "sharded-masked": dict(encoding="none", shard=True),
}


def _objects(store: Path) -> dict[str, bytes]:
    return {p.relative_to(store).as_posix(): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("codec", sorted(CODECS))
def test_two_encodes_of_one_input_are_byte_identical(tmp_path, codec, layout):
    da = make_series(n_time=5, height=40, width=36, seed=3)
    options = {**CODECS[codec], **LAYOUTS[layout]}
    if layout == "sharded-masked":
        valid = (np.random.default_rng(4).random((5, 40, 36)) > 0.2).astype(np.uint8)
        options |= dict(mask=valid, coverage=valid.astype(np.uint16) * 3)
    stores = []
    for run in ("first", "second"):
        chronozarr.encode(da, tmp_path / run, crs="EPSG:32631", chunk_size=16, progress=False, **options)
        stores.append(_objects(tmp_path / run))
        time.sleep(1.1)
    first, second = stores
    assert sorted(first) == sorted(second)
    differing = [key for key in first if first[key] != second[key]]
    assert not differing, f"{len(differing)} objects differ, e.g. {differing[:5]}"
    assert len(first) > 20  # the comparison covered the chunks, not just the metadata
