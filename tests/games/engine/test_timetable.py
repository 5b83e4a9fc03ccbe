from __future__ import annotations

from datetime import date, datetime, time, timedelta

from games.engine import timetable as tt

BJ = tt.BEIJING
START = date(2026, 11, 1)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=BJ)


def test_a_default_day_opens_at_midnight_and_its_night_window_is_21_10_to_21_25() -> None:
    schedule = tt.Timetable(START).day_schedule(2)
    assert schedule == [
        ("day_open", at(2, 0)),
        ("day_close", at(2, 21)),
        ("night_open", at(2, 21, 10)),
        ("night_end", at(2, 21, 25)),
        ("night_close", at(2, 21, 30)),
    ]


def test_a_night_that_closes_after_midnight_lands_on_the_next_date() -> None:
    times = {**tt.DEFAULT_TIMES, "day_open": time(8), "night_close": time(0, 30)}
    schedule = dict(tt.Timetable(START, times).day_schedule(1))
    assert schedule["night_close"] == datetime(2026, 11, 2, 0, 30, tzinfo=BJ)


def test_an_override_moves_one_transition_of_one_day() -> None:
    table = tt.Timetable(START, overrides={(3, "day_close"): at(3, 22)})
    assert table.due_at(3, "day_close") == at(3, 22)
    assert table.due_at(2, "day_close") == at(2, 21)


def test_due_transitions_catch_up_in_order_and_stop_at_now() -> None:
    steps = tt.due_transitions(tt.Timetable(START), day=0, phase="before", now=at(2, 21, 12))
    kinds = [(s.day, s.kind) for s in steps]
    assert kinds == [
        (1, "day_open"), (1, "day_close"), (1, "night_open"), (1, "night_end"),
        (1, "night_close"), (2, "day_open"), (2, "day_close"), (2, "night_open"),
    ]  # fmt: skip
    assert steps[-1].phase_after == "night"


def test_nothing_is_due_before_the_first_day_opens() -> None:
    just_before = at(1, 0) - timedelta(seconds=1)
    assert tt.due_transitions(tt.Timetable(START), day=0, phase="before", now=just_before) == []


def test_upcoming_lists_the_next_transitions_after_the_current_phase() -> None:
    steps = tt.upcoming(tt.Timetable(START), day=4, phase="night", count=3)
    assert [(s.day, s.kind) for s in steps] == [
        (4, "night_end"), (4, "night_close"), (5, "day_open"),
    ]  # fmt: skip
