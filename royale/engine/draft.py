"""Copy-on-write editing of a :class:`GameState`.

An engine step opens a ``Draft`` over the committed state, reads through it freely, and asks for a
writable copy (``wc``/``wp``/``wi``) of exactly the objects it changes. Nothing of the input state
is ever mutated, so raising a :class:`RuleError` half-way simply drops the draft: the refused action
has changed nothing. ``finish`` builds the new state, sharing every untouched object.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from games.engine.events import DIRECTORS, PUBLIC, Audience, GameEvent, to_character

from .house import house_items
from .ruleset import ItemKind, Ruleset, get_ruleset
from .state import (
    CAUSE_DROWNED,
    GONE_VANISHED,
    Call,
    Character,
    Death,
    GameState,
    Item,
    Place,
)

_AUDIENCES: dict[int, Audience] = {}


def aud(character: int) -> Audience:
    """The private stream of one character (cached: events are built in the hot path)."""
    found = _AUDIENCES.get(character)
    if found is None:
        found = _AUDIENCES[character] = to_character(character)
    return found


class Draft:
    __slots__ = (
        "_chars_own",
        "_flags_own",
        "_gone_own",
        "_items_own",
        "_places_own",
        "_wchars",
        "_witems",
        "_wplaces",
        "base",
        "calls",
        "chars",
        "day",
        "deaths",
        "events",
        "flags",
        "gone",
        "items",
        "next_item",
        "phase",
        "places",
        "rng",
        "rs",
        "shrink_tonight",
        "step",
        "winner",
    )

    def __init__(self, state: GameState, ruleset: Ruleset, rng: random.Random) -> None:
        self.base = state
        self.rs = ruleset
        self.rng = rng
        self.chars = state.characters
        self.places = state.places
        self.items = state.items
        self.gone = state.gone
        self.flags = state.flags
        self._chars_own = self._places_own = self._items_own = self._gone_own = self._flags_own = (
            False
        )
        self._wchars: set[int] = set()
        self._wplaces: set[str] = set()
        self._witems: set[int] = set()
        self.day = state.day
        self.phase = state.phase
        self.deaths = state.deaths
        self.step = state.step
        self.next_item = state.next_item
        self.shrink_tonight = state.shrink_tonight
        self.calls = state.calls
        self.winner = state.winner
        self.events: list[GameEvent] = []

    # --- writable copies -------------------------------------------------------------------------

    def wc(self, cid: int) -> Character:
        if cid not in self._wchars:
            if not self._chars_own:
                self.chars = dict(self.chars)
                self._chars_own = True
            self.chars[cid] = self.chars[cid].copy()
            self._wchars.add(cid)
        return self.chars[cid]

    def wp(self, name: str) -> Place:
        if name not in self._wplaces:
            if not self._places_own:
                self.places = dict(self.places)
                self._places_own = True
            self.places[name] = self.places[name].copy()
            self._wplaces.add(name)
        return self.places[name]

    def wi(self, iid: int) -> Item:
        if iid not in self._witems:
            if not self._items_own:
                self.items = dict(self.items)
                self._items_own = True
            self.items[iid] = self.items[iid].copy()
            self._witems.add(iid)
        return self.items[iid]

    def wflags(self) -> dict[str, Any]:
        if not self._flags_own:
            self.flags = dict(self.flags)
            self._flags_own = True
        return self.flags

    def add_character(self, character: Character) -> None:
        if not self._chars_own:
            self.chars = dict(self.chars)
            self._chars_own = True
        self.chars[character.id] = character
        self._wchars.add(character.id)

    # --- items -----------------------------------------------------------------------------------

    def kind(self, iid: int) -> ItemKind:
        return self.rs.kinds[self.items[iid].kind]

    def new_item(self, kind_key: str, *, uses: int | None = None) -> int:
        """Create an item (logged by the caller: spawn, upgrade, reward or event)."""
        kind = self.rs.kinds[kind_key]
        iid = self.next_item
        self.next_item += 1
        if not self._items_own:
            self.items = dict(self.items)
            self._items_own = True
        self.items[iid] = Item(iid, kind_key, kind.uses if uses is None else uses)
        self._witems.add(iid)
        return iid

    def mark_gone(self, iid: int, reason: str) -> None:
        if not self._gone_own:
            self.gone = dict(self.gone)
            self._gone_own = True
        self.gone[iid] = reason

    def take_from(self, cid: int, iid: int) -> None:
        c = self.wc(cid)
        if iid in c.hands:
            c.hands.remove(iid)
        else:
            c.pack.remove(iid)

    def unused_keys(self, kinds: Iterable[ItemKind]) -> list[str]:
        """The keys of ``kinds`` that may still be created: an untiered kind always, a weapon or
        armor name only if it was never created in this game (共N件: it exists at most once)."""
        used = {i.kind for i in self.items.values()}
        return [k.key for k in kinds if k.tier is None or k.key not in used]

    def restockable_keys(self, kinds: Iterable[ItemKind]) -> list[str]:
        """What the shop can sell: an untiered kind always; a weapon or armor name when no item
        of it is in play (never created, or every one of it gone — used up, vanished, broken,
        upgraded). The default deal places every green name, so a shop limited to never-created
        names would have no greens at all; 共N件 still holds for the items in play at once."""
        live = {i.kind for i in self.items.values() if i.id not in self.gone}
        return [k.key for k in kinds if k.tier is None or k.key not in live]

    def locate(self, iid: int) -> tuple[str, Any]:
        """Where an item is: ("place", name) / ("character", id) / ("gone", reason) / ("house",
        "auction" | "escrow" | "stall")."""
        if iid in self.gone:
            return ("gone", self.gone[iid])
        for c in self.chars.values():
            if iid in c.hands or iid in c.pack:
                return ("character", c.id)
        for p in self.places.values():
            if iid in p.items:
                return ("place", p.name)
        for held, where in house_items(self.flags):
            if held == iid:
                return ("house", where)
        raise AssertionError(f"item {iid} is nowhere")  # an invariant break, not a rule refusal

    def describe_item(self, iid: int) -> dict[str, Any]:
        item = self.items[iid]
        data = self.kind(iid).describe()
        data["id"] = iid
        if item.uses is not None:
            data["uses"] = item.uses
        return data

    # --- characters ------------------------------------------------------------------------------

    def at_place(self, place: str) -> list[Character]:
        """The living characters at a place (NPCs included), in the state's order."""
        return [c for c in self.chars.values() if c.alive and c.place == place]

    def players_alive(self) -> list[int]:
        """The living players (NPCs never win, vote or rank)."""
        return [c.id for c in self.chars.values() if c.alive and not c.npc]

    # --- events ----------------------------------------------------------------------------------

    def to(self, cid: int, kind: str, payload: dict[str, Any], actor: int | None = None) -> None:
        if self.chars[cid].npc:
            return  # nobody reads an NPC's stream (the shell has no row for it to address)
        self.events.append(GameEvent(kind, aud(cid), payload, actor))

    def directors(self, kind: str, payload: dict[str, Any], actor: int | None = None) -> None:
        self.events.append(GameEvent(kind, DIRECTORS, payload, actor))

    def public(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(GameEvent(kind, PUBLIC, payload, None))

    # --- deaths ----------------------------------------------------------------------------------

    def next_step(self) -> int:
        self.step += 1
        return self.step

    def kill(self, cid: int, cause: str, step: int) -> list[int]:
        """Mark a character dead; returns its items (the caller loots, drops or vanishes them)."""
        c = self.wc(cid)
        held = c.held
        c.hands = []
        c.pack = []
        c.alive = False
        c.hp = 0
        c.bleeding = 0
        c.found = None
        # Drowned characters are ranked before every other death (出局顺序在全场最前).
        self.deaths = (
            *self.deaths,
            Death(cid, cause, self.day, 0 if cause == CAUSE_DROWNED else step),
        )
        self.to(cid, "died", {"cause": cause})
        return held

    def drop_at(self, place: str, iids: list[int]) -> None:
        if iids:
            self.wp(place).items.extend(iids)

    def vanish(self, iids: list[int], why: str) -> None:
        for iid in iids:
            self.mark_gone(iid, GONE_VANISHED)
        if iids:
            self.directors("items_vanished", {"items": list(iids), "why": why})

    def add_call(self, call: Call) -> None:
        self.calls = (*self.calls, call)

    # --- commit ----------------------------------------------------------------------------------

    def finish(self) -> GameState:
        return GameState(
            ruleset=self.base.ruleset,
            day=self.day,
            phase=self.phase,
            characters=self.chars,
            places=self.places,
            items=self.items,
            gone=self.gone,
            deaths=self.deaths,
            step=self.step,
            next_item=self.next_item,
            shrink_tonight=self.shrink_tonight,
            calls=self.calls,
            winner=self.winner,
            flags=self.flags,
        )


def open_draft(state: GameState, rng: random.Random) -> Draft:
    """A draft over ``state`` with its own ruleset: how every engine step starts."""
    return Draft(state, get_ruleset(state.ruleset), rng)
