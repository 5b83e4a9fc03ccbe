"""Builders for werewolf engine tests: the 18 roles of [099] on fixed seats, a night played from
its submissions, a day vote from ballots."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

from games.engine.events import GameEvent
from werewolf.engine import (
    Forgo,
    UseSkill,
    apply_action,
    day_vote,
    deadline_pass,
    new_game,
    night_open,
    night_publish,
    night_resolve,
    player_view,
    tally,
)
from werewolf.engine.draft import open_draft
from werewolf.engine.state import GameState

A99 = "arknights_099"
MIN = 60.0
T0 = 1_000_000.0  # the first day's close; each later day adds DAY

DAY = 24 * 3600.0
# Seats: 1-4 狼人, 5 白眼狼, 6 先知, 7 女巫, 8 守护, 9 情痴, 10 村长, 11 猎人, 12 高僧, 13 白痴,
# 14 梦中人, 15-18 村民. Odd seats are 男, even 女.
SEATS = {
    **dict.fromkeys((1, 2, 3, 4), "wolf"),
    5: "white_wolf",
    6: "seer",
    7: "witch",
    8: "guard",
    9: "lover",
    10: "chief",
    11: "hunter",
    12: "monk",
    13: "idiot",
    14: "dreamer",
    **dict.fromkeys((15, 16, 17, 18), "villager"),
}
WOLVES = (1, 2, 3, 4)
WHITE, SEER, WITCH, GUARD, LOVER, CHIEF, HUNTER, MONK, IDIOT, DREAMER = range(5, 15)
VILLAGERS = (15, 16, 17, 18)


WITCH_SKILLS = ("save", "poison")
KILL_STEPS = {"wolf_kill": "wolves", "white_kill": "white_wolf"}


def rng(n: int = 0) -> random.Random:
    return random.Random(n)


def game(auction: dict[int, dict[str, Any]] | None = None) -> GameState:
    chars = [(i, f"P{i}", "男" if i % 2 else "女") for i in SEATS]
    state, _ = new_game(A99, chars, rng(), roles=SEATS, auction=auction)
    return state


def close_at(state: GameState) -> float:
    return T0 + state.day * DAY  # the close of the current day (day 0: the start)


def use(
    state: GameState, actor: int, skill: str, *targets: int, at: float | None = None
) -> tuple[GameState, list[GameEvent]]:
    now = at if at is not None else (state.closed_at or T0) + MIN
    return apply_action(state, UseSkill(actor=actor, skill=skill, targets=targets), rng(), now)


def closed(state: GameState) -> float:
    """The close that opened the current night."""
    assert state.closed_at is not None
    return state.closed_at


def usable(state: GameState, pid: int) -> list[str]:
    return [u["skill"] for u in player_view(state, pid)["usable"]]


def open_night(state: GameState) -> GameState:
    state, _ = night_open(state, rng(), close_at(state))
    return state


def play_night(
    state: GameState,
    picks: Iterable[tuple[int, str, int]] = (),
    *,
    leader: int = 1,
    seed: int = 0,
) -> tuple[GameState, list[GameEvent]]:
    """Open a night, elect ``leader`` (every living wolf votes for it), apply ``picks`` (actor,
    skill, target) in order, let every deadline pass, resolve and publish. Returns the state of
    the next day and every event of the night."""
    events: list[GameEvent] = []
    if state.phase != "night":
        state = open_night(state)
    wolves = [w for w in WOLVES if "elect" in usable(state, w)]
    for w in wolves:
        state, ev = use(state, w, "elect", leader)
        events += ev
    picks = list(picks)
    for actor, skill, target in picks:
        if skill not in WITCH_SKILLS:
            state, ev = use(state, actor, skill, target)
            events += ev
    # The kills not picked are forgone, so that the 女巫 gets her turn (通灵).
    for actor, skill in ((state.night["leader"], "wolf_kill"), (WHITE, "white_kill")):
        if state.night["steps"][KILL_STEPS[skill]]["state"] == "open" and str(
            actor
        ) not in state.night["subs"].get(skill, {}):
            state, ev = apply_action(
                state, Forgo(actor=actor, skill=skill), rng(), closed(state) + MIN
            )
            events += ev
    for actor, skill, target in picks:
        if skill in WITCH_SKILLS:
            state, ev = use(state, actor, skill, target)
            events += ev
    assert state.closed_at is not None
    state, ev = deadline_pass(state, rng(), closed(state) + 61 * MIN)
    events += ev
    state, ev = night_resolve(state, rng(seed))
    events += ev
    state, ev = night_publish(state, rng(), closed(state) + 12 * 3600)
    return state, events + ev


def vote(state: GameState, ballots: dict[int, int]) -> tuple[GameState, list[GameEvent]]:
    return day_vote(state, tally(state, ballots), rng(), close_at(state))


def edit(state: GameState, pid: int, **fields: Any) -> GameState:
    """Set player fields directly (test setup, not a rule)."""
    d = open_draft(state, rng())
    p = d.wp(pid)
    for k, v in fields.items():
        setattr(p, k, v)
    return d.finish()


def kinds(events: Iterable[GameEvent], audience: str = "public") -> list[str]:
    return [e.kind for e in events if e.audience.kind == audience]


def texts(events: Iterable[GameEvent]) -> list[str]:
    return [
        e.payload["text"] for e in events if e.audience.kind == "public" and "text" in e.payload
    ]


def outs(state: GameState) -> list[tuple[int, str]]:
    return [(o.id, o.cause) for o in state.outs]


def roundtrip(data: Any) -> Any:
    return json.loads(json.dumps(data, ensure_ascii=False))
