"""from_dict(to_dict(x)) == x for every document model of format/, through real JSON text, and
to_dict(from_dict(d)) == d for documents already in the form the writer emits."""

from __future__ import annotations

import datetime
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_settings import PROPERTIES

from chronozarr.format.codecs import BLOSC_CNAMES, BLOSC_SHUFFLES, CodecSpec
from chronozarr.format.metadata import Band, LevelMirror, Provenance, Selection, Temporal
from chronozarr.format.temporal import NONE, STAR_DELTA
from chronozarr.format.times import from_iso, iso_list

text = st.text(min_size=1, max_size=12)
finite = st.floats(allow_nan=False, allow_infinity=False)


def through_json(doc: dict[str, Any]) -> Any:
    return json.loads(json.dumps(doc, allow_nan=False))


bands = st.builds(Band, name=text, common_name=st.none() | text, scale=finite, offset=finite, units=st.none() | text)
provenances = st.builds(
    Provenance,
    sources=st.lists(text, min_size=1, max_size=4).map(tuple),
    composite=st.text(max_size=12),
    gap_fill=st.sampled_from(["carry-forward", "none"]),
    notes=st.none() | text,
)
selections = st.none() | st.builds(Selection, sampled_cells=st.integers(1, 10_000), ratio=st.integers(0, 30_000).map(lambda r: r / 10_000))


@st.composite
def temporals(draw: st.DrawFn) -> Temporal:
    """A none block, or a star-delta block with the anchors of spec 4.2 and any valid references."""
    selection = draw(selections)
    if draw(st.booleans()):
        return Temporal(NONE, selection=selection)
    n_time, k = draw(st.integers(1, 60)), draw(st.integers(1, 12))
    anchors = list(range(0, n_time, k))
    refs = {}
    for t in range(n_time):
        if t % k:
            near = [a for a in anchors if 0 < abs(t - a) < k]
            refs[t] = draw(st.sampled_from(near))
    return Temporal(STAR_DELTA, k, tuple(anchors), refs, selection)


levels = st.builds(
    LevelMirror,
    path=st.integers(0, 30).map(str),
    resolution=st.floats(1e-3, 1e6),
    transform=st.tuples(*[finite] * 6),
    shape=st.tuples(*[st.integers(0, 2**53)] * 4),
    grid=st.tuples(*[st.integers(0, 2**40)] * 2),
)


@st.composite
def codecs(draw: st.DrawFn) -> CodecSpec:
    name = draw(st.sampled_from(["zstd", "blosc", "gzip"]))
    low, high = {"zstd": (-131072, 22), "blosc": (0, 9), "gzip": (1, 9)}[name]  # spec 8 and the libraries' ranges
    level = draw(st.integers(low, high))
    if name == "blosc":
        return CodecSpec(name, level, draw(st.sampled_from(BLOSC_CNAMES)), draw(st.sampled_from(BLOSC_SHUFFLES)))
    return CodecSpec(name, level)


@settings(PROPERTIES, max_examples=150)
@given(model=st.one_of(bands, provenances, levels))
def test_band_provenance_and_level_documents_round_trip(model: Band | Provenance | LevelMirror) -> None:
    doc = through_json(model.to_dict())
    parsed = type(model).from_dict(doc)
    assert parsed == model
    assert parsed.to_dict() == doc


@PROPERTIES
@given(name=text)
def test_a_v01_band_string_is_a_band_with_only_a_name(name: str) -> None:
    assert Band.from_dict(name) == Band(name)
    assert Band.from_dict(name).to_dict() == {"name": name, "scale": 1.0, "offset": 0.0}


@PROPERTIES
@given(temporal=temporals())
def test_temporal_block_round_trips(temporal: Temporal) -> None:
    doc = through_json(temporal.to_dict())
    parsed = Temporal.from_dict(doc)
    assert parsed == temporal
    assert parsed.to_dict() == doc
    if temporal.encoding == NONE:
        assert set(doc) <= {"encoding", "selection"}  # spec 4.1: no schedule fields under none
    else:
        assert all(parsed.reference(t) == a for t, a in temporal.delta_reference.items())
        assert all(parsed.reference(a) is None for a in temporal.anchor_indices)


@PROPERTIES
@given(temporal=temporals())
def test_a_v01_temporal_block_without_encoding_is_star_delta(temporal: Temporal) -> None:
    doc = through_json(temporal.to_dict())
    del doc["encoding"]
    if temporal.encoding == STAR_DELTA:
        assert Temporal.from_dict(doc, legacy=True) == temporal
    with pytest.raises(ValueError, match="encoding"):
        Temporal.from_dict(doc)


@PROPERTIES
@given(codec=codecs(), dtype=st.sampled_from(["uint8", "uint16", "int16", "float32"]))
def test_codec_entry_round_trips(codec: CodecSpec, dtype: str) -> None:
    entry = through_json(codec.to_json(np.dtype(dtype)))
    assert CodecSpec.from_json(entry) == codec
    assert CodecSpec.from_json(entry).to_json(np.dtype(dtype)) == entry
    if codec.name == "blosc":
        assert entry["configuration"]["typesize"] == np.dtype(dtype).itemsize


@PROPERTIES
@given(codec=codecs(), data=st.binary(max_size=3000), dtype=st.sampled_from(["uint8", "uint16", "int16", "float32"]))
def test_every_codec_decodes_what_it_encodes(codec: CodecSpec, data: bytes, dtype: str) -> None:
    itemsize = np.dtype(dtype).itemsize
    data = data[: len(data) - len(data) % itemsize] or bytes(itemsize)
    chunk = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<"))
    encoded = bytes(codec.compressor(chunk.dtype).encode(chunk))
    assert bytes(codec.decode(encoded, len(data), chunk.dtype)) == data


@PROPERTIES
@given(ms=st.lists(st.integers(-30610224000000, 253402300799999), min_size=1, max_size=8))  # years 1000-9999
def test_iso_timestamps_round_trip_to_the_millisecond(ms: list[int]) -> None:
    texts = iso_list(ms)
    assert from_iso(texts).astype(np.int64).tolist() == ms
    for value, rendered in zip(ms, texts, strict=True):
        seconds, millis = divmod(value, 1000)
        day, second = divmod(seconds, 86400)
        date = (datetime.date(1970, 1, 1) + datetime.timedelta(days=day)).isoformat()
        clock = f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
        assert rendered == f"{date}T{clock}" + (f".{millis:03d}" if millis else "") + "Z"
