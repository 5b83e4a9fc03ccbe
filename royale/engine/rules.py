"""The night actions that are not about items or combat, and the action dispatcher.

``apply_action(state, action, rng, now)`` returns ``(new_state, events)`` or raises a
:class:`RuleError`; the input state is never modified either way (copy-on-write, see ``draft``).
Handlers are found in a registry keyed by action type.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent
from games.engine.text import is_blank

from . import combat, items
from .actions import (
    Action,
    AnswerPhone,
    Attack,
    Drop,
    Equip,
    Gps,
    Megaphone,
    Move,
    Phone,
    PickUp,
    Rest,
    Search,
    Spawn,
    Telescope,
    Unequip,
    Upgrade,
    UseItem,
    Whisper,
)
from .common import Now, acting, actor, check_place, here, seconds, seconds_left, spend
from .draft import Draft, open_draft
from .errors import (
    AlreadyActed,
    AlreadySpawned,
    EmptyMessage,
    InvalidTarget,
    MessageTooLong,
    Resting,
    RestMoveUsed,
    SamePlace,
    SearchCooldown,
    TargetGone,
    UnknownCharacter,
)
from .hooks import notify
from .state import MODE_ACT, MODE_REST, Found, GameState, death_announced

Handler = Callable[[Draft, Any, float], None]


def spawn(d: Draft, a: Spawn, now: float) -> None:
    c = actor(d, a.actor, spawned=False)
    if c.place is not None:
        raise AlreadySpawned()
    check_place(d, a.place)
    w = spend(d, a.actor, d.rs.costs["spawn"], acts=False)
    w.place = a.place
    d.to(a.actor, "spawned", {"place": a.place}, a.actor)
    d.directors("spawned", {"actor": a.actor, "place": a.place}, a.actor)


def rest(d: Draft, a: Rest, now: float) -> None:
    c = actor(d, a.actor)
    if c.mode == MODE_REST:
        raise Resting()
    if c.mode == MODE_ACT:
        raise AlreadyActed()
    d.wc(a.actor).mode = MODE_REST
    d.to(a.actor, "resting", {}, a.actor)
    d.directors("resting", {"actor": a.actor}, a.actor)


def move(d: Draft, a: Move, now: float) -> None:
    c = actor(d, a.actor)
    check_place(d, a.place)
    if a.place == c.place:
        raise SamePlace(place=a.place)
    if c.mode == MODE_REST:
        if c.rest_moves >= d.rs.rest_free_moves:
            raise RestMoveUsed()
        w = d.wc(a.actor)
        w.rest_moves += 1
        cost = 0
    else:
        cost = d.rs.costs["move"]
        w = spend(d, a.actor, cost)
    origin = w.place
    w.place = a.place
    w.found = None  # leaving the scene forgets what the last search showed
    d.to(a.actor, "moved", {"place": a.place, "mp": w.mp, "free": cost == 0}, a.actor)
    d.directors("moved", {"actor": a.actor, "from": origin, "to": a.place, "cost": cost}, a.actor)
    notify(d, "move", actor=a.actor, origin=origin, place=a.place)


def search(d: Draft, a: Search, now: float) -> None:
    c = acting(d, a.actor)
    cooldown = d.rs.search_cooldown
    if c.last_search_at is not None and now - c.last_search_at < cooldown:
        raise SearchCooldown(seconds_left=seconds_left(c.last_search_at, now, cooldown))
    w = spend(d, a.actor, d.rs.costs["search"])
    place = here(w)
    w.last_search_at = now
    others = [o.id for o in d.at_place(place) if o.id != a.actor]
    ground = d.places[place].items
    n = len(others) + len(ground)
    if n == 0:
        w.found = Found("nothing", place)
        d.to(a.actor, "searched", {"place": place, "found": "nothing", "mp": w.mp}, a.actor)
        d.directors("searched", {"actor": a.actor, "place": place, "found": "nothing"}, a.actor)
        return
    pick = d.rng.randrange(n)
    if pick < len(others):
        target = others[pick]
        # Fog (雾天): the handle is random and names nobody; it only lets the actor attack.
        handle = f"{d.rng.getrandbits(48):012x}"
        w.found = Found("character", place, target, handle)
        d.to(
            a.actor,
            "searched",
            {"place": place, "found": "character", "handle": handle, "mp": w.mp},
            a.actor,
        )
        d.directors(
            "searched",
            {
                "actor": a.actor,
                "place": place,
                "found": "character",
                "target": target,
                "handle": handle,
            },
            a.actor,
        )
    else:
        iid = ground[pick - len(others)]
        w.found = Found("item", place, iid)
        d.to(
            a.actor,
            "searched",
            {"place": place, "found": "item", "item": d.describe_item(iid), "mp": w.mp},
            a.actor,
        )
        d.directors(
            "searched", {"actor": a.actor, "place": place, "found": "item", "item": iid}, a.actor
        )


def whisper(d: Draft, a: Whisper, now: float) -> None:
    c = acting(d, a.actor)
    text = a.text.strip()
    if is_blank(text):
        raise EmptyMessage()
    if len(text) > d.rs.whisper_max:
        raise MessageTooLong(max=d.rs.whisper_max, length=len(text))
    t = d.chars.get(a.target)
    if t is None:
        raise UnknownCharacter(character=a.target)
    if a.target == a.actor:
        raise InvalidTarget(character=a.target)
    if not t.alive and _death_announced(d, a.target):
        raise TargetGone()
    w = spend(d, a.actor, d.rs.costs["whisper"])
    # The recipient sees the sender's name (RULINGS 17); the text is stored raw, escaped on display.
    # A death not yet announced must not show through a refusal: such a whisper goes out as usual.
    d.to(a.target, "whisper", {"sender": a.actor, "sender_name": c.name, "text": text})
    d.to(a.actor, "whisper_sent", {"target": a.target, "text": text, "mp": w.mp}, a.actor)
    d.directors(
        "whisper",
        {"actor": a.actor, "target": a.target, "text": text, "target_alive": t.alive},
        a.actor,
    )
    notify(d, "whisper", actor=a.actor, target=a.target, text=text)


def _death_announced(d: Draft, cid: int) -> bool:
    return death_announced(d.deaths, d.day, cid)


HANDLERS: dict[type[Action], Handler] = {}


def register_action(cls: type[Action], handler: Handler) -> None:
    HANDLERS[cls] = handler


for _cls, _fn in (
    (Spawn, spawn),
    (Rest, rest),
    (Move, move),
    (Search, search),
    (Attack, combat.attack),
    (PickUp, items.pick_up),
    (Equip, items.equip),
    (Unequip, items.unequip),
    (UseItem, items.use),
    (Upgrade, items.upgrade),
    (Gps, items.gps),
    (Telescope, items.telescope),
    (Drop, items.drop),
    (Whisper, whisper),
    (Megaphone, items.megaphone),
    (Phone, items.phone),
    (AnswerPhone, items.answer_phone),
):
    register_action(_cls, _fn)


def apply_action(
    state: GameState, action: Action, rng: random.Random, now: Now
) -> tuple[GameState, list[GameEvent]]:
    """Apply one character action. Raises a RuleError (state untouched) when the rules refuse."""
    handler = HANDLERS.get(type(action))
    if handler is None:
        raise InvalidInput(action=type(action).__name__)
    d = open_draft(state, rng)
    handler(d, action, seconds(now))
    return d.finish(), d.events
