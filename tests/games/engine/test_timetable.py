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


# --- [061] 林峰: 一般讨论日持续两天，每逢周末时讨论日延长一天; 加速/延时 (RULINGS [061] 14)

MONDAY = date(2026, 11, 2)


def lin_feng(paces: dict[int, str] | None = None) -> tt.Timetable:
    schedule = tt.schedule_for("lin_feng_061")
    return tt.Timetable(
        MONDAY,
        schedule.times,
        day_span=schedule.day_span,
        weekend_extra=schedule.weekend_extra,
        paces=paces or {},
    )


def nov(day: int) -> date:
    return date(2026, 11, day)


def test_061_schedule_lets_the_pace_change_the_calendar() -> None:
    schedule = tt.schedule_for("lin_feng_061")
    assert (schedule.day_span, schedule.weekend_extra, schedule.pace_days) == (2, True, True)
    assert not tt.schedule_for("arknights_099").pace_days


def test_061_a_day_is_two_natural_days_closing_21_00_of_the_second() -> None:
    table = lin_feng()
    assert table.day_dates(1) == (nov(2), nov(3))  # 周一、周二
    assert table.due_at(1, "day_open") == at(2, 0)
    assert table.due_at(1, "day_close") == at(3, 21)  # 周二 21:00
    assert table.due_at(1, "night_open") == at(3, 21)
    assert table.due_at(1, "night_close") == at(3, 22)
    assert table.day_dates(2) == (nov(4), nov(5))  # 周三、周四


def test_061_a_day_touching_a_weekend_gets_one_more_natural_day() -> None:
    table = lin_feng()
    assert table.day_dates(3) == (nov(6), nov(8))  # 周五、周六 + 周日
    assert table.due_at(3, "day_close") == at(8, 21)
    assert table.day_dates(4) == (nov(9), nov(10))  # 周一、周二


def test_061_after_a_speed_up_on_day_2_each_following_day_is_one_natural_day() -> None:
    table = lin_feng({2: tt.SPED_UP})
    assert table.day_dates(2) == (nov(4), nov(5))  # the day it was granted on keeps its dates
    assert table.day_dates(3) == (nov(6), nov(6))  # 周五: one natural day
    assert table.due_at(3, "day_close") == at(6, 21)  # 周五 21:00, the same day it opens
    assert table.due_at(3, "night_open") == at(6, 21)
    assert table.day_dates(4) == (nov(7), nov(7))  # 周六: no weekend day under 加速
    assert table.day_dates(5) == (nov(8), nov(8))  # 周日
    assert [table.carries_speed_up(d) for d in (1, 2, 3, 4, 5)] == [False, False, True, True, True]
    assert table.calendar_pace(2) == tt.NORMAL
    assert table.calendar_pace(3) == tt.SPED_UP


def test_061_a_delay_on_day_4_adds_a_natural_day_and_ends_the_speed_up() -> None:
    table = lin_feng({2: tt.SPED_UP, 4: tt.DELAYED})
    assert table.day_dates(3) == (nov(6), nov(6))
    assert table.day_dates(4) == (nov(7), nov(8))  # 周六 + 1: closes 周日 21:00
    assert table.due_at(4, "day_close") == at(8, 21)
    assert table.calendar_pace(4) == tt.DELAYED
    assert table.day_dates(5) == (nov(9), nov(10))  # 加速 over: two days again
    assert table.day_dates(6) == (nov(11), nov(12))
    assert table.day_dates(7) == (nov(13), nov(15))  # and the weekend day is back
    assert not table.carries_speed_up(5)
    assert table.carries_speed_up(4)  # opened under 加速; the 延时 ended it during the day


def test_061_a_delay_without_a_speed_up_adds_one_natural_day() -> None:
    table = lin_feng({1: tt.DELAYED})
    assert table.day_dates(1) == (nov(2), nov(4))  # 周一至周三
    assert table.due_at(1, "day_close") == at(4, 21)
    assert table.day_dates(2) == (nov(5), nov(6))  # 周四、周五
    assert table.day_dates(3) == (nov(7), nov(9))  # 周六、周日 + 周一


def test_061_a_directors_normal_ends_a_speed_up_like_a_delay_without_the_extra_day() -> None:
    table = lin_feng({1: tt.SPED_UP, 3: tt.NORMAL})
    assert table.day_dates(2) == (nov(4), nov(4))
    assert table.day_dates(3) == (nov(5), nov(6))  # 周四、周五: two days again
    assert table.day_dates(4) == (nov(7), nov(9))  # 周六、周日 + 周一


def test_061_a_speed_up_moves_the_scheduler_due_times_of_the_following_days() -> None:
    normal, sped = lin_feng(), lin_feng({2: tt.SPED_UP})
    assert tt.next_transition(normal, day=2, phase="dawn").due_at == at(6, 0)
    steps = tt.due_transitions(sped, day=2, phase="dawn", now=at(7, 0, 1))
    assert [(s.day, s.kind, s.due_at) for s in steps] == [
        (3, "day_open", at(6, 0)), (3, "day_close", at(6, 21)), (3, "night_open", at(6, 21)),
        (3, "night_end", at(6, 22)), (3, "night_close", at(6, 22)), (4, "day_open", at(7, 0)),
    ]  # fmt: skip
    unchanged = tt.due_transitions(normal, day=2, phase="dawn", now=at(7, 0, 1))
    assert [(s.day, s.kind) for s in unchanged] == [(3, "day_open")]  # closes 周日 21:00


def test_pace_changes_may_not_move_a_day_already_under_way_or_closed() -> None:
    before = lin_feng({2: tt.SPED_UP})
    delayed_3 = lin_feng({2: tt.SPED_UP, 3: tt.DELAYED})
    # day 3 open: its close may move (a 延时 of today)
    assert tt.pace_moves_held_day(before, delayed_3, day=3, closed=False) is None
    # day 3 closed (its night running): no longer
    assert tt.pace_moves_held_day(before, delayed_3, day=3, closed=True) == 3
    # a 加速 on the closed day only shortens the days after it
    sped_3 = lin_feng({3: tt.SPED_UP})
    assert tt.pace_moves_held_day(lin_feng(), sped_3, day=3, closed=True) is None
    # a past day's pace moves every day after it: refused
    assert tt.pace_moves_held_day(lin_feng(), lin_feng({1: tt.SPED_UP}), day=3, closed=False) == 2
