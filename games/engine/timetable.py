"""Phase and deadline arithmetic: when each transition of each game day falls due.

A game day runs through five transitions in order. Times are wall-clock times in the game's time
zone (北京时间); each one falls on or after the one before it, so a night that closes after
midnight lands on the next date without any special case. A director can move any single
transition of any day (per-day override).

A game day may span several calendar days ([061]: 一般讨论日持续两天，每逢周末时讨论日延长一天):
it opens on its first date and closes on its last, and the next game day starts the date after.
Each ruleset's default schedule is data (``games/rulesets/schedules.json``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
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

    def day_dates(self, day: int) -> tuple[date, date]:
        """The first and last calendar dates of game day ``day`` (equal for one-date days)."""
        if day < 1:
            raise ValueError("game days start at 1")
        if self.day_span <= 1 and not self.weekend_extra:
            first = self.start_date + timedelta(days=day - 1)
            return first, first
        first = self.start_date
        for _ in range(day - 1):
            first = span_dates(first, span=self.day_span, weekend_extra=self.weekend_extra)
            first += timedelta(days=1)
        return first, span_dates(first, span=self.day_span, weekend_extra=self.weekend_extra)

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
    )


def schedule_for(ruleset: str) -> Schedule:
    """The ruleset's default schedule; the core default for a ruleset the file does not name."""
    data = json.loads(SCHEDULES_FILE.read_text(encoding="utf-8"))
    return schedule_parse(data.get(ruleset, {}))
