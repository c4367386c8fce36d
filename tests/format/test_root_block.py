"""The root `chronozarr` block model (format/root_block): every block the writer makes, and the
v0.1 forms of spec 13, go through from_dict and to_dict unchanged, key order included, so a store
rewritten by append or publish keeps the bytes of what it did not change."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from chronozarr.format.root_block import RootBlock

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "write"))
from store_matrix import CASES, encode_case  # noqa: E402

V01_BLOCK: dict[str, Any] = {
    "spec_version": "0.1.0",
    "variable": "data",
    "times": ["2024-01-01T00:00:00Z", "2024-01-11T00:00:00Z", "2024-01-21T00:00:00Z"],
    "bands": ["B04", "B03", "B02"],
    "temporal": {"anchor_interval": 2, "anchor_indices": [0, 2], "delta_reference": {"1": 0}},
    "volatility_path": "volatility",
}


def _text(block: dict[str, Any]) -> str:
    return json.dumps(block, allow_nan=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_block_the_writer_makes_round_trips_byte_for_byte(case: str, tmp_path: Path) -> None:
    root = json.loads((encode_case(case, tmp_path / "store") / "zarr.json").read_text())
    block = root["attributes"]["chronozarr"]
    assert _text(RootBlock.from_dict(block).to_dict()) == _text(block)


def test_a_v01_block_is_written_back_in_its_own_form() -> None:
    model = RootBlock.from_dict(V01_BLOCK)
    assert model.legacy and model.bands_as_names
    assert [b.name for b in model.bands] == ["B04", "B03", "B02"]
    assert model.to_dict() == V01_BLOCK
    for absent in ("nodata", "crs", "levels", "band_names"):
        assert absent not in model.to_dict()
    assert "encoding" not in model.to_dict()["temporal"]


def test_fields_this_version_does_not_read_are_kept_as_found() -> None:
    block = {**V01_BLOCK, "x_vendor": {"made_by": "another writer", "n": [1, 2]}}
    assert RootBlock.from_dict(block).to_dict() == block


@pytest.mark.parametrize(
    "field, value",
    [("variable", "a/b"), ("variable", ""), ("bands", "B04"), ("spec_version", "9.0")],
)
def test_a_block_the_reader_cannot_use_is_refused_naming_the_field(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field.split("_")[0]):
        RootBlock.from_dict({**V01_BLOCK, field: value})
