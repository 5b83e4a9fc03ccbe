"""Checks every action shares: phase, actor, stamina, places; and the director's draft."""

from __future__ import annotations

import math
import random
from datetime import datetime

from games.engine.errors import WrongPhase

from .draft import Draft, open_draft
from .errors import (
    ActorDead,
    GameOver,
    NotEnoughMP,
    NotSpawned,
    PlaceClosed,
    PlaceGone,
    Resting,
    UnknownCharacter,
    UnknownPlace,
)
from .state import DAY, MODE_ACT, MODE_REST, NIGHT, OVER, Character, GameState

Now = datetime | float | int


def seconds(now: Now) -> float:
    """The shell passes a datetime or POSIX seconds; the engine only ever compares differences."""
    return now.timestamp() if isinstance(now, datetime) else float(now)


def phase_is(d: Draft, phase: str) -> None:
    if d.phase == OVER:
        raise GameOver()
    if d.phase != phase:
        raise WrongPhase(phase=d.phase, needed=phase)


def director_draft(state: GameState, rng: random.Random) -> Draft:
    """A draft for a director's intervention: allowed in every phase until the game is over."""
    d = open_draft(state, rng)
    if d.phase == OVER:
        raise GameOver()
    return d


def living(d: Draft, cid: int) -> Character:
    """A character that exists and is alive (the dead stay dead), in any phase."""
    c = d.chars.get(cid)
    if c is None:
        raise UnknownCharacter(character=cid)
    if not c.alive:
        raise ActorDead()
    return c


def actor(d: Draft, cid: int, *, phase: str = NIGHT, spawned: bool = True) -> Character:
    phase_is(d, phase)
    c = living(d, cid)
    if spawned and c.place is None:
        raise NotSpawned()
    return c


def acting(d: Draft, cid: int) -> Character:
    """A night actor in action mode (not resting): the common case."""
    c = actor(d, cid)
    if c.mode == MODE_REST:
        raise Resting()
    return c


def day_actor(d: Draft, cid: int) -> Character:
    return actor(d, cid, phase=DAY, spawned=False)


def spend(d: Draft, cid: int, cost: int, *, acts: bool = True) -> Character:
    """Check and pay the MP of an action (行动失败 when short); marks the night as acted, except
    for spawning (``acts=False``), which leaves 静养 open."""
    c = d.chars[cid]
    if c.mp < cost:
        raise NotEnoughMP(need=cost, have=c.mp)
    w = d.wc(cid)
    w.mp -= cost
    if acts:
        w.mode = MODE_ACT
    return w


def check_place(d: Draft, name: str) -> None:
    p = d.places.get(name)
    if p is None:
        raise UnknownPlace(place=name)
    if p.gone:
        raise PlaceGone(place=name)
    if not p.open:
        raise PlaceClosed(place=name)


def here(c: Character) -> str:
    """The place of a spawned character (every night action is checked to be spawned first)."""
    if c.place is None:
        raise NotSpawned()
    return c.place


def seconds_left(last: float, now: float, cooldown: int) -> int:
    return max(1, math.ceil(cooldown - (now - last)))
