"""Periods of a composite: each acquisition's period start, checked against dates worked out by hand
and with Python's datetime (isocalendar) as the independent oracle."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_settings import PROPERTIES

from chronozarr.errors import InputError
from chronozarr.format.periods import Period, composite_name, parse_period, period_starts


def _times(*texts: str) -> np.ndarray:
    return np.array(texts, dtype="datetime64[ns]")


def test_calendar_periods_are_labelled_with_their_start_at_utc_midnight() -> None:
    times = _times("2024-03-17T10:31:02", "2024-12-31T23:59:59", "2021-01-03T00:00:01")
    expected = {
        "day": ["2024-03-17", "2024-12-31", "2021-01-03"],
        "week": ["2024-03-11", "2024-12-30", "2020-12-28"],  # Mondays; 2021-01-03 is a Sunday of ISO week 2020-W53
        "month": ["2024-03-01", "2024-12-01", "2021-01-01"],
        "quarter": ["2024-01-01", "2024-10-01", "2021-01-01"],
        "year": ["2024-01-01", "2024-01-01", "2021-01-01"],
    }
    for kind, starts in expected.items():
        assert list(period_starts(times, parse_period(kind))) == list(_times(*starts)), kind


def test_fixed_periods_count_from_the_first_day_or_the_given_origin() -> None:
    times = _times("2024-01-05T12:00", "2024-01-20T09:00", "2024-01-21T00:00", "2024-02-06T01:00")
    assert list(period_starts(times, parse_period("16D"))) == list(_times("2024-01-05", "2024-01-05", "2024-01-21", "2024-02-06"))
    origin = np.datetime64("2024-01-01")
    assert list(period_starts(times, parse_period("16d"), origin)) == list(_times("2024-01-01", "2024-01-17", "2024-01-17", "2024-02-02"))


@PROPERTIES
@given(st.datetimes(min_value=datetime(1980, 1, 1), max_value=datetime(2100, 1, 1)))
def test_week_start_is_the_monday_of_the_iso_week(moment: datetime) -> None:
    day = moment.date()
    monday = date.fromisocalendar(day.isocalendar().year, day.isocalendar().week, 1)
    got = period_starts(np.array([moment], dtype="datetime64[ns]"), Period("week"))[0]
    assert got == np.datetime64(monday, "ns")


@PROPERTIES
@given(st.lists(st.integers(0, 4000), min_size=1, max_size=20), st.integers(1, 40))
def test_fixed_period_holds_its_times_and_is_n_days_from_the_origin(offsets: list[int], n: int) -> None:
    origin = date(2015, 6, 1)
    times = np.array([datetime.combine(origin + timedelta(days=k), datetime.min.time()) + timedelta(hours=7) for k in offsets], dtype="datetime64[ns]")
    starts = period_starts(times, Period("days", n), np.datetime64(origin))
    for k, start in zip(offsets, starts, strict=True):
        expected = origin + timedelta(days=(k // n) * n)
        assert start == np.datetime64(expected, "ns")


def test_unknown_periods_are_refused_naming_the_choices() -> None:
    for text in ("fortnight", "0D", "D", "-3D"):
        with pytest.raises(InputError, match="month"):
            parse_period(text)


def test_composite_name_is_what_provenance_says() -> None:
    assert composite_name(parse_period("month"), "median") == "monthly median"
    assert composite_name(parse_period("16D"), "medoid") == "16-day medoid"
