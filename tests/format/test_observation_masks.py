"""--valid and --mask-bits as rules on a mask's stored integers, checked against numpy here."""

from __future__ import annotations

import numpy as np
import pytest

from chronozarr.errors import InputError
from chronozarr.format.observation_masks import QA_BITS, mask_rules, parse_mask_bits, parse_valid


def test_valid_keeps_exactly_the_listed_classes() -> None:
    rule = parse_valid("scl:4,5,6,7,11")
    scl = np.arange(12, dtype=np.uint8).reshape(3, 4)
    np.testing.assert_array_equal(rule.allows(scl), np.isin(scl, [4, 5, 6, 7, 11]))
    assert rule.note == "scl classes 4,5,6,7,11 kept"


def test_mask_bits_refuse_observations_with_any_named_bit_set() -> None:
    rule = parse_mask_bits("qa_pixel:fill,dilated,cirrus,cloud,shadow,snow")
    qa = np.arange(1 << 8, dtype=np.uint16)
    refused = (qa & 0b111111) != 0  # bits 0..5
    np.testing.assert_array_equal(rule.allows(qa), ~refused)
    clear_water = np.array([(1 << 6) | (1 << 7), 21824, 22280], dtype=np.uint16)  # 21824: Landsat clear land, 22280: cloud
    np.testing.assert_array_equal(rule.allows(clear_water), [True, True, False])
    assert QA_BITS["shadow"] == 4 and QA_BITS["water"] == 7


@pytest.mark.parametrize("text, option", [("scl", "--valid"), ("scl:", "--valid"), (":4", "--valid"), ("scl:a,b", "--valid")])
def test_malformed_valid_is_refused_with_an_example(text: str, option: str) -> None:
    with pytest.raises(InputError, match="scl:4,5,6,7,11"):
        parse_valid(text)


def test_unknown_bits_and_two_rules_for_one_asset_are_refused() -> None:
    with pytest.raises(InputError, match="no QA_PIXEL bit"):
        parse_mask_bits("qa_pixel:clouds")
    with pytest.raises(InputError, match="two rules"):
        mask_rules(["scl:4"], ["scl:cloud"])
