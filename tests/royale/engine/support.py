"""Builders for engine tests: small hand-made games with the posts' numbers."""

from __future__ import annotations

import json
import random
from datetime import datetime
from typing import Any

import pytest

from royale.engine import apply_action, day_open, get_ruleset, new_game, night_close, night_open
from royale.engine.actions import Action
from royale.engine.draft import open_draft
from royale.engine.events import event_choose
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


def set_game(state: GameState, **fields: Any) -> GameState:
    """Set game fields directly (``day``, ``phase``, ``shrink_tonight`` ...): test setup."""
    d = open_draft(state, rng())
    for k, v in fields.items():
        setattr(d, k, v)
    return d.finish()


def set_flags(state: GameState, **flags: Any) -> GameState:
    """Set game flags directly (as an event or the day's close would have): test setup."""
    d = open_draft(state, rng())
    d.wflags().update(flags)
    return d.finish()


def dead(state: GameState, cid: int, cause: str, step: int | None = None) -> GameState:
    """Test setup: ``cid`` died (its Death recorded with ``step``, by default the next one)."""
    d = open_draft(state, rng())
    d.kill(cid, cause, d.next_step() if step is None else step)
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


def refused(
    state: GameState, action: Action, error: type[Exception], now: float | datetime = T0
) -> None:
    """The rules refuse with ``error``, and the state they were given is untouched."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(error):
        act(state, action, now)
    assert json.dumps(state.to_json(), sort_keys=True) == before


def next_day(state: GameState, pick: str | None = None, seed: int = 0) -> tuple[GameState, list]:
    """The night closes and the next day opens, with the director's pick if given."""
    if pick is not None:
        state, _ = event_choose(state, pick, [], rng(seed))
    state, closing = night_close(state, rng(seed))
    state, opening = day_open(state, rng(seed))
    return state, closing + opening


def safe_places(state: GameState) -> list[str]:
    """Ordinary places not vanishing tonight (neither the safe zone nor 无限城)."""
    rs = get_ruleset(state.ruleset)
    special = {rs.safe_zone, rs.final_place, *(z.place for z in rs.special_zones)}
    return [p for p in state.places_on_map() if p not in state.shrink_tonight and p not in special]


def keep_safe(state: GameState, *cids: int) -> GameState:
    """Test setup: the living ``cids`` stand where tonight's shrink cannot take them."""
    alive = [c for c in cids if state.characters[c].alive]
    return edit(state, *alive, place=safe_places(state)[0]) if alive else state


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


def holding(state: GameState, cid: int) -> list[str]:
    return kinds_of(state, state.characters[cid].held)


def of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def public(events: list[Any], kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.kind == kind and e.audience.kind == "public"]


def heard(events: list[Any], cid: int, kind: str) -> list[dict[str, Any]]:
    """What ``cid`` alone was told."""
    return [
        e.payload
        for e in events
        if e.kind == kind and e.audience.kind == "character" and e.audience.character == cid
    ]
