"""format/append_rule on parsed blocks: the v0.1 form, unknown fields and provenance count as
fields an append keeps."""

from __future__ import annotations

from chronozarr.format.append_rule import growth_mismatch
from chronozarr.format.root_block import RootBlock


def _block(times: int, **extra: object) -> RootBlock:
    return RootBlock.from_dict({
        "spec_version": "0.2.0", "variable": "data", "times": [f"2024-02-{t + 1:02d}" for t in range(times)],
        "bands": [{"name": "red", "dtype": "uint8"}], "nodata": None, "crs": "EPSG:4326",
        "temporal": {"encoding": "none"}, **extra,
    })


def test_a_none_store_grown_by_one_timestep_is_an_append() -> None:
    assert growth_mismatch(_block(1), _block(2)) is None


def test_fields_outside_what_an_append_grows_must_stay() -> None:
    assert "chronozarr.x_note" in (growth_mismatch(_block(1, x_note="a"), _block(2, x_note="b")) or "")
    assert "chronozarr.provenance" in (growth_mismatch(_block(1), _block(2, provenance={"source": "s"})) or "")
    assert "temporal encoding" in (growth_mismatch(
        _block(1),
        _block(2, temporal={"encoding": "star-delta", "anchor_interval": 4, "anchor_indices": [0], "delta_reference": {"1": 0}}),
    ) or "")


def test_a_shorter_or_equal_time_axis_is_not_an_append() -> None:
    assert "first timesteps" in (growth_mismatch(_block(3), _block(2)) or "")
    assert "already published" in (growth_mismatch(_block(2), _block(2)) or "")
