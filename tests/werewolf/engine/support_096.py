"""Builders for [096] 名侦探柯南's engine tests: the 22 characters on fixed seats, day 1 after
the deal, a night played from its submissions, a day vote from ballots."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from games.engine.events import GameEvent
from werewolf.engine import (
    day_vote,
    deadline_pass,
    new_game,
    night_open,
    night_publish,
    night_resolve,
    tally,
)
from werewolf.engine.state import GameState

from .support import DAY, MIN, T0, rng
from .support_061 import submit as act

C96 = "conan_096"
ELVES = (1, 2, 3, 4, 5, 6, 7)
DRYAD, UNICORN, DRUID, RANGER_A, RANGER_B = 8, 9, 10, 11, 12
GOLEM, WIZARD, GENIE = 13, 14, 15
WOLVES = (16, 17, 18)
WOLF_KING, MEDUSA, DRAGON, EXORCIST = 19, 20, 21, 22
SEATS = {
    **dict.fromkeys(ELVES, "elf"),
    DRYAD: "dryad",
    UNICORN: "unicorn",
    DRUID: "druid",
    RANGER_A: "ranger",
    RANGER_B: "ranger",
    GOLEM: "golem",
    WIZARD: "wizard",
    GENIE: "genie",
    **dict.fromkeys(WOLVES, "wolf"),
    WOLF_KING: "wolf_king",
    MEDUSA: "medusa",
    DRAGON: "black_dragon",
    EXORCIST: "exorcist",
}

Pick = tuple[Any, ...]  # (actor, skill, target or targets, option?): ``act`` submits one


def close_at(state: GameState) -> float:
    """关门 (21:00) of the state's day."""
    return T0 + state.day * DAY


def game(*, relic: bool = True) -> GameState:
    """Dealt on SEATS, day 1 open (the deal has no night of its own: 开始第一天讨论日). Without
    ``relic`` the 亡灵圣物 is out of play (no holder, no curse left): for a rule that does not
    involve it, whose nights a drawn 藏匿 and its curses would otherwise change."""
    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(C96, chars, rng(), roles=SEATS, unbuilt=True)
    state, _ = night_open(state, rng(), T0 - DAY)
    state, _ = night_resolve(state, rng())
    state, _ = night_publish(state, rng(), T0 - DAY + MIN)
    if not relic:
        out: dict[str, Any] = {
            "holder": None,
            "curses": 0,
            "nights": 0,
            "bonded": None,
            "tracked": [],
            "owned": [],
        }
        state = dataclasses.replace(state, flags={**state.flags, "relic": out})
    return state


def play(
    state: GameState, picks: Sequence[Pick] = (), *, day_picks: Sequence[Pick] = ()
) -> tuple[GameState, list[GameEvent]]:
    """``day_picks`` by day (藏匿, 毒素箭), then the night from the day's close: ``picks`` in
    order a minute after it, every deadline passed (22:15), resolved and published."""
    events: list[GameEvent] = []
    at = close_at(state)
    for pick in day_picks:
        state, ev = act(state, pick, at - 10 * MIN)
        events += ev
    state, ev = night_open(state, rng(), at)
    events += ev
    for pick in picks:
        state, ev = act(state, pick, at + MIN)
        events += ev
    state, ev = deadline_pass(state, rng(), at + 76 * MIN)
    events += ev
    state, ev = night_resolve(state, rng())
    events += ev
    state, ev = night_publish(state, rng(), at + 3 * 3600)
    return state, events + ev


def vote(state: GameState, ballots: Sequence[tuple[int, int]]) -> tuple[GameState, list[GameEvent]]:
    totals = tally(state, dict(ballots))
    return day_vote(state, totals, rng(), close_at(state) - MIN, ballots=list(ballots))


def alive(state: GameState, *pids: int) -> list[bool]:
    return [state.players[p].alive for p in pids]


def cooldown(state: GameState, pid: int, skill: str) -> int:
    return state.players[pid].counters.get(f"cd:{skill}", 0)
