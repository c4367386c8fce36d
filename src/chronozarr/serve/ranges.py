"""The `Range` header: one byte range per request, as readers send it (spec 9, RFC 9110 14)."""

from __future__ import annotations

import re

from ..errors import RangeNotSatisfiable

# One range only. A list of ranges does not match, so it is ignored and answered 200 with the
# whole body, which RFC 9110 (14.2) allows; readers never need multipart/byteranges.
_RANGE = re.compile(r"\s*bytes\s*=\s*([0-9]*)\s*-\s*([0-9]*)\s*", re.IGNORECASE)


MAX_DIGITS = 20  # 2^64 has 20 digits


def parse_range(value: str, size: int) -> tuple[int, int] | None:
    """Inclusive (first, last) byte of a single `Range: bytes=...` against an object of `size`.

    None means the header is to be ignored (another unit, malformed, several ranges, last < first)
    and the whole body sent with 200. Raises RangeNotSatisfiable for a range past the end, a zero-length
    suffix, any range of an empty object, and a number longer than any object could need.
    """
    match = _RANGE.fullmatch(value)
    if match is None:
        return None
    first, last = match.groups()
    if len(first) > MAX_DIGITS or len(last) > MAX_DIGITS:
        # No object has 10^20 bytes; Python would also refuse to read a number this long.
        raise RangeNotSatisfiable(value[:64])
    if not first:
        if not last:
            return None
        length = int(last)
        if length == 0 or size == 0:
            raise RangeNotSatisfiable(value)
        return max(0, size - length), size - 1
    start = int(first)
    end = int(last) if last else size - 1
    if last and end < start:
        return None
    if start >= size:
        raise RangeNotSatisfiable(value)
    return start, min(end, size - 1)


def is_suffix_range(value: str) -> bool:
    """True for `bytes=-N`, which the `suffix_ranges` option answers differently."""
    match = _RANGE.fullmatch(value)
    return bool(match and not match.group(1) and match.group(2))
