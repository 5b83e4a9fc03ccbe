"""Phase and deadline arithmetic: when each transition of each game day falls due.

A game day runs through five transitions in order. Times are wall-clock times in the game's time
zone (北京时间); each one falls on or after the one before it, so a night that closes after
midnight lands on the next date without any special case. A director can move any single
transition of any day (per-day override).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Final
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


@dataclass(frozen=True, slots=True)
class Timetable:
    start_date: date
    times: Mapping[str, time] = field(default_factory=lambda: dict(DEFAULT_TIMES))
    overrides: Mapping[tuple[int, str], datetime] = field(default_factory=dict)
    tz: tzinfo = BEIJING

    def day_schedule(self, day: int) -> list[tuple[str, datetime]]:
        """Every transition of game day ``day`` (1-based) with its due time."""
        if day < 1:
            raise ValueError("game days start at 1")
        current = datetime.combine(self.start_date + timedelta(days=day - 1), time(0), self.tz)
        schedule = []
        for kind in TRANSITIONS:
            at = datetime.combine(current.date(), self.times[kind], self.tz)
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
