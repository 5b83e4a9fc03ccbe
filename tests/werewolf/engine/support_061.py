"""Builders for [061] 林峰's engine tests: the 19 roles on fixed seats, the prelude (附身, 遇难,
the 铁柱's first 票台), a night played from its submissions, a day vote from ordered ballots."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    tally,
)
from werewolf.engine.state import GameState

from .support import DAY, MIN, T0, edit, rng

L61 = "lin_feng_061"
# Seats: the post's order of roles.
SEATS = {
    1: "wolf_queen",
    2: "wolf_king",
    3: "wolf_hunter",
    4: "wolf_judge",
    5: "fox",
    6: "psychic",
    7: "angel",
    8: "ambitious",
    9: "shadow",
    10: "ranger",
    11: "poisoner",
    12: "pillar",
    13: "treasure",
    14: "keeper",
    15: "mine",
    16: "piper",
    17: "seer",
    18: "ghost",
    19: "hostage",
}
QUEEN, KING, HUNTER, JUDGE, FOX, PSYCHIC, ANGEL, AMBITIOUS, SHADOW, RANGER = range(1, 11)
POISONER, PILLAR, TREASURE, KEEPER, MINE, PIPER, SEER, GHOST, HOSTAGE = range(11, 20)

Pick = tuple[Any, ...]  # (actor, skill, targets tuple, option?)


def close_at(state: GameState) -> float:
    return T0 + state.day * DAY


def submit(state: GameState, pick: Pick, at: float) -> tuple[GameState, list[GameEvent]]:
    actor, skill, targets, *rest = pick
    if isinstance(targets, int):
        targets = (targets,)
    option = rest[0] if rest else None
    action = UseSkill(actor=actor, skill=skill, targets=tuple(targets), option=option)
    return apply_action(state, action, rng(), at)


def _stage_default(state: GameState, votable: Iterable[int]) -> Pick:
    last = set(state.flags.get("lf_stage_last", []))
    living = [p.id for p in state.players.values() if p.alive]
    k = len(living) // 3
    pool = [i for i in sorted(living, reverse=True) if i not in last and i not in set(votable)]
    return (PILLAR, "stage", tuple(pool[:k]))


def play(
    state: GameState,
    picks: Sequence[Pick] = (),
    *,
    votable: Iterable[int] = (),
    seed: int = 0,
) -> tuple[GameState, list[GameEvent]]:
    """Open the night (the prelude from the deal), apply ``picks`` in order (the 铁柱's 票台 is
    submitted for the highest seats not in ``votable`` unless a pick names it), let every
    deadline pass, resolve and publish. Returns the next day's state and the night's events."""
    events: list[GameEvent] = []
    state, ev = night_open(state, rng(), close_at(state))
    events += ev
    at = state.closed_at or T0
    picks = list(picks)
    pillar = state.players[PILLAR]
    if (
        pillar.alive
        and "stage" in pillar.skills
        and not any(p[1] == "stage" for p in picks)
        and state.night["steps"]["pillar"]["state"] == "open"
    ):
        picks.insert(0, _stage_default(state, votable))
    for pick in picks:
        state, ev = submit(state, pick, at + MIN)
        events += ev
    state, ev = deadline_pass(state, rng(), at + 61 * MIN)
    events += ev
    state, ev = night_resolve(state, rng(seed))
    events += ev
    state, ev = night_publish(state, rng(), at + 12 * 3600)
    return state, events + ev


def game(
    possess: int = 1, hostage: int = 13, picks: Sequence[Pick] = (), votable: Iterable[int] = ()
) -> GameState:
    """Dealt on SEATS; the 幽灵 possesses ``possess``, the 人质 chooses ``hostage``; day 1."""
    chars = [(i, f"P{i}", None) for i in SEATS]
    state, _ = new_game(L61, chars, rng(), roles=SEATS)
    state, _ = play(
        state, [(GHOST, "possess", possess), (HOSTAGE, "hostage", hostage), *picks], votable=votable
    )
    return state


def vote(
    state: GameState, ballots: Sequence[tuple[int, int]], *, favor: int | None = None
) -> tuple[GameState, list[GameEvent]]:
    """The day's vote from ``(voter, target)`` ballots, earliest first. A 天使 asked for 偏爱
    uses it on ``favor``, or forgoes it."""
    totals = tally(state, dict(ballots))
    at = close_at(state)
    state, events = day_vote(state, totals, rng(), at, ballots=list(ballots))
    for w in state.windows:
        if w["skill"] == "favor":
            if favor is None:
                action: Any = Forgo(actor=w["actor"], skill="favor")
            else:
                action = UseSkill(actor=w["actor"], skill="favor", targets=(favor,))
            state, ev = apply_action(state, action, rng(), at + MIN)
            events += ev
    return state, events


def window(
    state: GameState, actor: int, skill: str, target: int
) -> tuple[GameState, list[GameEvent]]:
    """A day window's use (狩猎, 公敌, 勾魂, 怨恨, 遗志) a minute before it closes."""
    action = UseSkill(actor=actor, skill=skill, targets=(target,))
    until = [w["until"] for w in state.windows if w["actor"] == actor and w["skill"] == skill]
    return apply_action(state, action, rng(), (until[0] if until else close_at(state)) - MIN)


def windows(state: GameState) -> list[tuple[int, str]]:
    return [(w["actor"], w["skill"]) for w in state.windows]


def faction(state: GameState, pid: int) -> str:
    return state.players[pid].faction


def alive(state: GameState, *pids: int) -> list[bool]:
    return [state.players[p].alive for p in pids]


__all__ = ["DAY", "MIN", "T0", "edit", "rng"]
