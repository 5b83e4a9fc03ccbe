"""Builders for engine tests: small hand-made games with the posts' numbers."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from royale.engine import apply_action, day_open, get_ruleset, new_game, night_open
from royale.engine.actions import Action
from royale.engine.draft import open_draft
from royale.engine.state import GameState

I256 = "islington_256"
K252 = "kimetsu_252"
T0 = 1_000_000.0  # a night's "now" in seconds; tests add offsets to it


def rng(n: int = 0) -> random.Random:
    return random.Random(n)


def empty_game(ruleset: str = I256, n: int = 4, *, where: str | None = None) -> GameState:
    """Day 1 opened, night 1 open, nothing scattered; characters 1..n spawned at ``where``."""
    rs = get_ruleset(ruleset)
    zero = {p.selector: 0 for p in rs.placement}
    state, _ = new_game(ruleset, [(i, f"角色{i}") for i in range(1, n + 1)], rng(), placement=zero)
    state, _ = day_open(state, rng())
    state, _ = night_open(state, rng())
    if where is not None:
        state = edit(state, *(range(1, n + 1)), place=where)
    return state


def edit(state: GameState, *cids: int, **fields: Any) -> GameState:
    """Set character fields directly (test setup, not a rule)."""
    d = open_draft(state, rng())
    for cid in cids:
        c = d.wc(cid)
        for k, v in fields.items():
            setattr(c, k, v)
    return d.finish()


def give(
    state: GameState, cid: int, kind: str, *, hand: bool = False, uses: int | None = None
) -> tuple[GameState, int]:
    d = open_draft(state, rng())
    iid = d.new_item(kind, uses=uses)
    c = d.wc(cid)
    (c.hands if hand else c.pack).append(iid)
    return d.finish(), iid


def put(state: GameState, place: str, kind: str) -> tuple[GameState, int]:
    d = open_draft(state, rng())
    iid = d.new_item(kind)
    d.wp(place).items.append(iid)
    return d.finish(), iid


def vanished(state: GameState, place: str) -> GameState:
    """Mark a place as gone from the map (test setup: as after its shrink)."""
    d = open_draft(state, rng())
    d.wp(place).gone = True
    return d.finish()


def act(
    state: GameState, action: Action, now: float | datetime = T0, seed: int = 0
) -> tuple[GameState, list[Any]]:
    return apply_action(state, action, rng(seed), now)


def found_character(
    state: GameState, actor: int, target: int, now: float = T0
) -> tuple[GameState, str]:
    """Make ``actor``'s last search have found ``target`` (as a real search would)."""
    from royale.engine.state import Found

    place = state.characters[actor].place
    assert place is not None
    handle = f"h{actor}-{target}"
    return edit(
        state, actor, found=Found("character", place, target, handle), last_search_at=now
    ), handle


def kinds_of(state: GameState, iids: list[int]) -> list[str]:
    return [state.items[i].kind for i in iids]


def of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]
