"""The codec table's bounded decoding and deterministic gzip, against independent encoders
(Python's gzip, numcodecs, frames built by hand from RFC 8878)."""

from __future__ import annotations

import gzip

import numcodecs
import numpy as np
import pytest
from hostile_stores import streamed_zstd_bomb, zstd_first_block

from chronozarr.format.codecs import CodecSpec, FixedHeaderGZip
from chronozarr.format.zstd_frame import zstd_prefix, zstd_with_size

VALUES = np.random.default_rng(5).integers(1000, 1016, 4096).astype("<u2")
NBYTES = VALUES.nbytes


def test_fixed_header_gzip_has_no_timestamp_and_any_gzip_reader_reads_it():
    encoded = FixedHeaderGZip(level=5).encode(VALUES)
    assert encoded[:4] == b"\x1f\x8b\x08\x00" and encoded[4:8] == b"\x00\x00\x00\x00" and encoded[9] == 255
    assert gzip.decompress(encoded) == VALUES.tobytes()
    assert bytes(numcodecs.GZip().decode(encoded)) == VALUES.tobytes()
    assert FixedHeaderGZip(level=5).encode(VALUES) == encoded


def test_a_streamed_zstd_frame_decodes_within_its_bound_and_a_bomb_does_not():
    frame = streamed_zstd_bomb(1 << 20)  # declares nothing, holds 1 MiB of 7
    spec = CodecSpec("zstd")
    out = spec.decode(frame, 1 << 20, np.dtype("u1"))
    assert bytes(out) == b"\x07" * (1 << 20)
    for nbytes in (1 << 19, (1 << 20) + 1):  # too small a bound, or a frame that holds less
        with pytest.raises(ValueError, match="does not decode"):
            spec.decode(frame, nbytes, np.dtype("u1"))


def test_a_chunk_of_no_fixed_size_decodes_at_most_its_bound_found_from_headers():
    strings = numcodecs.VLenUTF8().encode(np.array(["red", "nir"], dtype=object))
    for spec in (CodecSpec("zstd"), CodecSpec("gzip"), CodecSpec("blosc", cname="lz4")):
        encoded = spec.compressor(np.dtype("u1")).encode(strings)
        assert bytes(spec.decode_at_most(encoded, 1000)) == strings
        with pytest.raises(ValueError):
            spec.decode_at_most(encoded, len(strings) - 1)
    frame = streamed_zstd_bomb(1 << 18)  # RLE blocks: their sizes are exact
    assert bytes(CodecSpec("zstd").decode_at_most(frame, 1 << 18)) == b"\x07" * (1 << 18)
    with pytest.raises(ValueError, match="up to 2147483648 bytes"):
        CodecSpec("zstd").decode_at_most(streamed_zstd_bomb(2 << 30), 1 << 20)
    with pytest.raises(ValueError, match="takes"):
        CodecSpec("zstd").decode_at_most(frame + b"x", 1 << 18)


def test_zstd_with_size_declares_the_bound_only_where_the_frame_declares_nothing():
    declared = numcodecs.Zstd(level=3).encode(VALUES)
    assert zstd_with_size(declared, NBYTES) == declared
    with pytest.raises(ValueError, match=f"holds {NBYTES} bytes, expected {NBYTES - 2}"):
        zstd_with_size(declared, NBYTES - 2)
    streamed = streamed_zstd_bomb(1 << 18)
    rewritten = zstd_with_size(streamed, 1 << 18)
    assert rewritten[4] & 0xC0 == 0xC0 and int.from_bytes(rewritten[6:14], "little") == 1 << 18


BLOCK = 1 << 17
LONG = np.random.default_rng(6).integers(1000, 1016, 4 * BLOCK).astype("<u2")  # 8 zstd blocks


def _first_block(content: bytes) -> bytes:
    """The one compressed block of numcodecs' frame of `content` (< 128 KiB), as a first block
    that is not the last."""
    frame = bytes(numcodecs.Zstd(level=5).encode(content))
    start, end = zstd_first_block(frame)
    header = int.from_bytes(frame[start : start + 3], "little")
    assert (header >> 1) & 3 == 2 and header & 1 and end == len(frame), "one compressed block"
    return (header & ~1).to_bytes(3, "little") + frame[start + 3 :]


@pytest.mark.parametrize("upto", [1, BLOCK + 1, 7 * BLOCK - 1, 8 * BLOCK])
def test_a_zstd_read_of_the_first_bytes_gives_them_and_no_more_than_the_chunk(upto):
    out = np.full(LONG.nbytes + 8, 0xEE, dtype=np.uint8)
    got = CodecSpec("zstd").decode(numcodecs.Zstd(level=5).encode(LONG), LONG.nbytes, np.dtype("<u2"), out, upto=upto)
    assert len(got) == LONG.nbytes and bytes(got[:upto]) == LONG.tobytes()[:upto]
    assert (out[LONG.nbytes :] == 0xEE).all()


def test_a_zstd_chunk_whose_first_block_is_short_is_read_whole_when_the_prefix_s_size_is_wrong():
    content = bytes(range(256)) * 400  # 100 KiB in one compressed block, then two raw blocks
    frame = b"\x28\xb5\x2f\xfd\x00\x38" + _first_block(content) + (BLOCK << 3).to_bytes(3, "little") + b"\x01" * BLOCK
    frame += (1 | (BLOCK << 3)).to_bytes(3, "little") + b"\x02" * BLOCK
    nbytes = len(content) + 2 * BLOCK
    assert zstd_prefix(frame, nbytes, BLOCK + 5) is not None  # guessed 256 KiB; the blocks hold 228 KiB
    got = CodecSpec("zstd").decode(frame, nbytes, np.dtype("u1"), upto=BLOCK + 5)
    assert bytes(got) == content + b"\x01" * BLOCK + b"\x02" * BLOCK


def test_a_checksummed_zstd_chunk_damaged_past_the_prefix_is_refused_before_decoding():
    spec = CodecSpec("zstd", checksum=True)
    stored = bytearray(spec.encode(LONG, np.dtype("<u2")))
    stored[-20] ^= 0xFF  # in the last block, which a read of the first byte does not decode
    with pytest.raises(ValueError, match="crc32c"):
        spec.decode(bytes(stored), LONG.nbytes, np.dtype("<u2"), upto=1)


def test_a_gzip_bomb_stops_one_byte_past_the_bound():
    bomb = gzip.compress(b"\0" * (64 << 20))
    with pytest.raises(ValueError, match=f"more than {NBYTES} bytes"):
        CodecSpec("gzip").decode(bomb, NBYTES, np.dtype("u2"))


def _blosc(cname: str, shuffle: str) -> bytes:
    mode = {"shuffle": numcodecs.Blosc.SHUFFLE, "bitshuffle": numcodecs.Blosc.BITSHUFFLE}.get(shuffle, numcodecs.Blosc.NOSHUFFLE)
    return numcodecs.Blosc(cname=cname, clevel=5, shuffle=mode, blocksize=0).encode(VALUES)


@pytest.mark.parametrize(
    ("cname", "shuffle"), [("zstd", "noshuffle"), ("zstd", "shuffle"), ("lz4", "shuffle"), ("lz4", "noshuffle"), ("zstd", "bitshuffle"), ("lz4", "bitshuffle")]
)
def test_every_blosc_flags_byte_either_decodes_to_the_values_or_is_refused(cname, shuffle):
    """No flags byte may decode to other values: the check stands between blosc and wrong data."""
    encoded = _blosc(cname, shuffle)
    spec = CodecSpec("blosc", 5, cname, shuffle)
    assert bytes(spec.decode(encoded, NBYTES, VALUES.dtype)) == VALUES.tobytes()
    accepted = 0
    for flags in range(256):
        damaged = bytearray(encoded)
        damaged[2] = flags
        try:
            out = spec.decode(bytes(damaged), NBYTES, VALUES.dtype)
        except ValueError:
            continue
        assert bytes(out) == VALUES.tobytes(), f"flags {flags:#04x} decoded to other values"
        accepted += 1
    assert accepted >= 1


@pytest.mark.parametrize(("field", "offset", "value"), [("a later header format", 0, 3), ("0-byte items", 3, 0), ("blocks larger than the chunk", 8, NBYTES + 2)])
def test_blosc_headers_c_blosc_refuses_are_refused(field, offset, value):
    """A header c-blosc would not decode (numcodecs refuses it here too) is our error, in both readers."""
    damaged = bytearray(_blosc("zstd", "noshuffle"))
    width = 4 if offset == 8 else 1
    damaged[offset : offset + width] = value.to_bytes(width, "little")
    with pytest.raises(Exception):  # noqa: B017, PT011  # c-blosc's own refusal, whatever its type
        numcodecs.Blosc().decode(bytes(damaged))
    with pytest.raises(ValueError, match="not one c-blosc writes or reads"):
        CodecSpec("blosc", 5, "zstd", "noshuffle").decode(bytes(damaged), NBYTES, VALUES.dtype)


@pytest.mark.parametrize(("offset", "value", "words"), [(3, 1, "1-byte items"), (4, 0, "header says 0 bytes"), (12, 99, "truncated or damaged")])
def test_blosc_header_fields_that_disagree_are_refused(offset, value, words):
    damaged = bytearray(_blosc("lz4", "shuffle"))
    damaged[offset : offset + (1 if offset == 3 else 4)] = value.to_bytes(1 if offset == 3 else 4, "little")
    with pytest.raises(ValueError, match=words):
        CodecSpec("blosc", 5, "lz4", "shuffle").decode(bytes(damaged), NBYTES, VALUES.dtype)


def test_a_blosc_chunk_claiming_another_compressor_is_refused():
    encoded = bytearray(_blosc("zstd", "noshuffle"))
    with pytest.raises(ValueError, match="declares lz4"):
        CodecSpec("blosc", 5, "lz4", "noshuffle").decode(bytes(encoded), NBYTES, VALUES.dtype)


@pytest.mark.parametrize(("cname", "shuffle"), [("zstd", "noshuffle"), ("lz4", "shuffle")])
def test_a_blosc_header_naming_another_stream_format_is_refused(cname, shuffle):
    """Byte 1 names the compressor's stream format; c-blosc reads only format 1 (the JS decoder
    read others into wrong values, found by the hostile corpus)."""
    encoded = _blosc(cname, shuffle)
    assert encoded[1] == 1
    for version in (0, 2, 255):
        damaged = bytearray(encoded)
        damaged[1] = version
        with pytest.raises(ValueError, match="stream format"):
            CodecSpec("blosc", 5, cname, shuffle).decode(bytes(damaged), NBYTES, VALUES.dtype)


@pytest.mark.parametrize(("written", "declared"), [("bitshuffle", "shuffle"), ("shuffle", "bitshuffle"), ("bitshuffle", "noshuffle")])
def test_a_blosc_chunk_shuffled_otherwise_than_its_array_declares_is_refused(written, declared):
    with pytest.raises(ValueError, match="disagree with the array's shuffle"):
        CodecSpec("blosc", 5, "zstd", declared).decode(_blosc("zstd", written), NBYTES, VALUES.dtype)
