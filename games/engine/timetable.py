"""Phase and deadline arithmetic: when each transition of each game day falls due.

A game day runs through five transitions in order. Times are wall-clock times in the game's time
zone (北京时间); each one falls on or after the one before it, so a night that closes after
midnight lands on the next date without any special case. A director can move any single
transition of any day (per-day override).

A game day may span several calendar days ([061]: 一般讨论日持续两天，每逢周末时讨论日延长一天):
it opens on its first date and closes on its last, and the next game day starts the date after.
Each ruleset's default schedule is data (``games/rulesets/schedules.json``).

[061] (RULINGS [061] 14) lets the day's pace change the calendar (``paces``: the pace a day was
given, by the players' requests or the director): after a day given 加速 every following day is
one natural day, opening 00:00 and closing at the day's close time the same date, whatever the
weekend, until a day given 延时 (延迟成功时，不再视为“执行加速”状态) or set back to 正常 by a
director. A day given 延时 lasts one natural day more than it would have. The day a 加速 is
granted on keeps its own dates (it is already under way; only the following days shorten).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from functools import cache
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo

BEIJING: Final = ZoneInfo("Asia/Shanghai")

# (transition, phase the game is in after it)
STEPS: Final[tuple[tuple[str, str], ...]] = (
    ("day_open", "day"),
    ("day_close", "dusk"),
    ("night_open", "night"),
    ("night_end", "late"),
    ("night_close", "dawn"),
)
TRANSITIONS: Final = tuple(kind for kind, _ in STEPS)
PHASE_AFTER: Final = dict(STEPS)
PHASES: Final = ("before", *PHASE_AFTER.values())

DEFAULT_TIMES: Final[Mapping[str, time]] = {
    "day_open": time(0, 0),
    "day_close": time(21, 0),
    "night_open": time(21, 10),
    "night_end": time(21, 25),
    "night_close": time(21, 30),
}


SATURDAY: Final = 5

# A day's pace (``games.models.Pace``'s values), as the calendar reads it.
NORMAL: Final = "normal"
SPED_UP: Final = "sped_up"
DELAYED: Final = "delayed"


def span_dates(first: date, *, span: int, weekend_extra: bool) -> date:
    """The last calendar date of a game day that opens on ``first``."""
    last = first + timedelta(days=max(span, 1) - 1)
    if weekend_extra and any(
        (first + timedelta(days=i)).weekday() >= SATURDAY for i in range((last - first).days + 1)
    ):
        last += timedelta(days=1)
    return last


@dataclass(frozen=True, slots=True)
class Timetable:
    start_date: date
    times: Mapping[str, time] = field(default_factory=lambda: dict(DEFAULT_TIMES))
    overrides: Mapping[tuple[int, str], datetime] = field(default_factory=dict)
    tz: tzinfo = BEIJING
    day_span: int = 1
    weekend_extra: bool = False
    # [061]: day -> the pace it was given (SPED_UP, DELAYED, or NORMAL set by a director)
    paces: Mapping[int, str] = field(default_factory=dict)

    def _last_date(self, first: date, *, carried: bool, pace: str | None) -> date:
        if carried and pace != NORMAL:
            last = first  # 加速: one natural day, weekend or not
        else:
            last = span_dates(first, span=self.day_span, weekend_extra=self.weekend_extra)
        return last + timedelta(days=1) if pace == DELAYED else last

    def _walk(self, day: int) -> tuple[date, date, bool]:
        """Game day ``day``'s first and last dates, and whether it opens under a 加速 carried
        over from an earlier day."""
        if day < 1:
            raise ValueError("game days start at 1")
        if not self.paces and self.day_span <= 1 and not self.weekend_extra:
            first = self.start_date + timedelta(days=day - 1)
            return first, first, False
        first, carried = self.start_date, False
        for earlier in range(1, day):
            pace = self.paces.get(earlier)
            first = self._last_date(first, carried=carried, pace=pace) + timedelta(days=1)
            carried = speed_up_after(carried=carried, pace=pace)
        pace = self.paces.get(day)
        return first, self._last_date(first, carried=carried, pace=pace), carried

    def day_dates(self, day: int) -> tuple[date, date]:
        """The first and last calendar dates of game day ``day`` (equal for one-date days)."""
        first, last, _carried = self._walk(day)
        return first, last

    def carries_speed_up(self, day: int) -> bool:
        """Whether ``day`` opens under 执行加速: an earlier day's 加速 not yet ended (by a 延时,
        or a director's 正常). The day's own pace, if any, may end it during the day."""
        return self._walk(day)[2]

    def calendar_pace(self, day: int) -> str:
        """How the day's length was set: SPED_UP (one natural day, a 加速 carried over),
        DELAYED (one natural day more) or NORMAL."""
        carried = self._walk(day)[2]
        pace = self.paces.get(day)
        if pace == DELAYED:
            return DELAYED
        return SPED_UP if carried and pace != NORMAL else NORMAL

    def day_schedule(self, day: int) -> list[tuple[str, datetime]]:
        """Every transition of game day ``day`` (1-based) with its due time."""
        first, last = self.day_dates(day)
        current = datetime.combine(first, time(0), self.tz)
        schedule = []
        for kind in TRANSITIONS:
            # The day closes on its last date; the night follows the close.
            on = last if kind == "day_close" else current.date()
            at = datetime.combine(on, self.times[kind], self.tz)
            if at < current:
                at += timedelta(days=1)
            at = self.overrides.get((day, kind), at)
            schedule.append((kind, at))
            current = at
        return schedule

    def due_at(self, day: int, kind: str) -> datetime:
        return dict(self.day_schedule(day))[kind]


def speed_up_after(*, carried: bool, pace: str | None) -> bool:
    """Whether the days after one are under 加速: the day was given 加速, or it carried one
    and was given no pace (延时 and a director's 正常 end it)."""
    return pace == SPED_UP or (carried and pace is None)


def pace_moves_held_day(
    before: Timetable, after: Timetable, *, day: int, closed: bool
) -> int | None:
    """The first game day up to ``day`` (the game's current one) whose dates a pace change
    would move though they are behind it: its first date once it has opened, its last once it
    has closed (``closed``: the current day's close has run). None when there is none."""
    for held in range(1, day + 1):
        (was_first, was_last), (first, last) = before.day_dates(held), after.day_dates(held)
        if was_first != first or ((held < day or closed) and was_last != last):
            return held
    return None


@dataclass(frozen=True, slots=True)
class Transition:
    day: int
    kind: str
    due_at: datetime

    @property
    def phase_after(self) -> str:
        return PHASE_AFTER[self.kind]


def next_transition(timetable: Timetable, *, day: int, phase: str) -> Transition:
    """The transition that follows ``phase`` of ``day``."""
    if phase == "before":
        day, kind = max(day, 1), "day_open"
    elif phase == "dawn":
        day, kind = day + 1, "day_open"
    else:
        index = list(PHASE_AFTER.values()).index(phase)
        kind = TRANSITIONS[index + 1]
    return Transition(day, kind, timetable.due_at(day, kind))


def due_transitions(
    timetable: Timetable, *, day: int, phase: str, now: datetime, limit: int = 50
) -> list[Transition]:
    """Transitions due by ``now``, in order, starting after the current phase.

    ``limit`` bounds catching up after a long outage: the rest follow on the next tick.
    """
    due: list[Transition] = []
    while len(due) < limit:
        step = next_transition(timetable, day=day, phase=phase)
        if step.due_at > now:
            break
        due.append(step)
        day, phase = step.day, step.phase_after
    return due


def upcoming(timetable: Timetable, *, day: int, phase: str, count: int) -> list[Transition]:
    """The next ``count`` transitions, due or not (for the control room)."""
    steps = []
    for _ in range(count):
        step = next_transition(timetable, day=day, phase=phase)
        steps.append(step)
        day, phase = step.day, step.phase_after
    return steps


# --- each ruleset's default schedule (data) ----------------------------------------------------

SCHEDULES_FILE: Final = Path(__file__).resolve().parent.parent / "rulesets" / "schedules.json"


@dataclass(frozen=True, slots=True)
class NightStage:
    """A labelled deadline of the night, as the rule post lists it (``21:10 前【援护】…``)."""

    at: time
    label: str


@dataclass(frozen=True, slots=True)
class Schedule:
    times: Mapping[str, time]
    day_span: int = 1
    weekend_extra: bool = False
    night_stages: tuple[NightStage, ...] = ()
    source: str = ""  # the rule post's words the schedule comes from
    days: int = 10  # how many game days a game usually lasts: the calendar shows as many
    pace_days: bool = False  # [061]: 加速/延时 change the days' dates (see the module's notes)


def _clock(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def schedule_parse(data: Mapping[str, Any]) -> Schedule:
    times = {
        kind: _clock(data.get(kind, DEFAULT_TIMES[kind].strftime("%H:%M"))) for kind in TRANSITIONS
    }
    stages = tuple(
        NightStage(_clock(s["at"]), str(s["label"])) for s in data.get("night_stages", ())
    )
    return Schedule(
        times=times,
        day_span=int(data.get("day_span", 1)),
        weekend_extra=bool(data.get("weekend_extra", False)),
        night_stages=stages,
        source=str(data.get("source", "")),
        days=int(data.get("days", 10)),
        pace_days=bool(data.get("pace_days", False)),
    )


@cache
def _schedules() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(SCHEDULES_FILE.read_text(encoding="utf-8"))
    return data


def schedule_for(ruleset: str) -> Schedule:
    """The ruleset's default schedule; the core default for a ruleset the file does not name."""
    return schedule_parse(_schedules().get(ruleset, {}))
