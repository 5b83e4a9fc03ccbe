"""Reads of the battle royale, each shaped for one kind of viewer.

The engine state holds every hidden fact (who a search found, everyone's place and HP). Players
are served only from these views, which keep exactly what the rules let a character know.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from games.models import Character as CharacterRow
from games.models import Game
from royale import store
from royale.engine.events import rules_of
from royale.engine.ruleset import ItemKind, Ruleset, get_ruleset
from royale.engine.state import DAY, Character, GameState, Item
from royale.engine.votes import own_vote, weight_of


def _item(rs: Ruleset, item: Item, *, in_hand: bool) -> dict[str, Any]:
    kind: ItemKind = rs.kinds[item.kind]
    return {
        "id": item.id,
        "name": kind.name,
        "category": kind.category,
        "tier": kind.tier,
        "effect": kind.effect,
        "damage": kind.damage,
        "reduction": kind.reduction,
        "splash": kind.splash,
        "hp": kind.hp,
        "mp": kind.mp,
        "uses": item.uses,
        "vote": kind.vote,
        "in_hand": in_hand,
    }


def _held(rs: Ruleset, state: GameState, c: Character) -> list[dict[str, Any]]:
    return [_item(rs, state.items[i], in_hand=True) for i in c.hands] + [
        _item(rs, state.items[i], in_hand=False) for i in c.pack
    ]


def villain_title(rs: Ruleset) -> str:
    """What the ruleset calls its villain, from its own data (the villain event's ``title``:
    恶棍 in [256], 鬼王 in [252]); "" for a ruleset without that event."""
    rules = rules_of(rs)
    spec = rules.get("villain") if rules is not None else None
    title = spec.params.get("title") if spec is not None else None
    return str(title) if title else ""


def search_cooldown_left(rs: Ruleset, last: float | None, now: float) -> int:
    """Whole seconds until a character may search again (0: now)."""
    if last is None:
        return 0
    return max(0, math.ceil(rs.search_cooldown - (now - float(last))))


def character_view(*, state: GameState, character_id: int, now: float) -> dict[str, Any]:
    """What a character knows of itself: its own numbers, items and last search."""
    rs = get_ruleset(state.ruleset)
    c = state.characters[character_id]
    found: dict[str, Any] | None = None
    if c.found is not None:
        found = {"kind": c.found.kind, "place": c.found.place, "attacked": c.found.attacked}
        if c.found.kind == "character":
            found["handle"] = c.found.handle  # names nobody
        elif c.found.kind == "item" and c.found.target in state.items:
            found["item"] = rs.kinds[state.items[c.found.target].kind].name
    return {
        "id": c.id,
        "name": c.name,
        "alive": c.alive,
        "hp": c.hp,
        "mp": c.mp,
        "hp_max": rs.hp_max,
        "mp_max": rs.mp_max,
        "place": c.place,
        "bleeding": c.bleeding,
        "mode": c.mode,
        "rest_moves": c.rest_moves,
        "items": _held(rs, state, c),
        "item_cap": rs.item_cap,
        "found": found,
        "search_cooldown": search_cooldown_left(rs, c.last_search_at, now),
        "day": state.day,
        "phase": state.phase,
    }


def map_view(*, state: GameState) -> list[dict[str, Any]]:
    """Every place as everyone may see it: open, vanishing tonight, gone, safe, special."""
    rs = get_ruleset(state.ruleset)
    special = {z.place for z in rs.special_zones}
    # 黑暗侵袭 hides some of tonight's vanishing places: they must not show on anyone's map.
    vanishing = set(state.shrink_tonight) - set(state.flags.get("shrink_hidden", ()))
    return [
        {
            "name": p.name,
            "gone": p.gone,
            "vanishing": (not p.gone) and p.name in vanishing,
            "safe": p.name == rs.safe_zone,
            "special": p.name in special,
            "open": p.open,
        }
        for p in state.places.values()
    ]


def rules_view(*, state: GameState) -> dict[str, Any]:
    """The public numbers of the ruleset a player's page needs (costs, caps, cooldown)."""
    rs = get_ruleset(state.ruleset)
    return {
        "costs": dict(rs.costs),
        "search_cooldown": rs.search_cooldown,
        "hand_slots": rs.hand_slots,
        "item_cap": rs.item_cap,
        "whisper_max": rs.whisper_max,
        "weather": rs.weather,
    }


def director_view(*, state: GameState) -> dict[str, Any]:
    """Everything, for the control room: every character's state and what lies where."""
    rs = get_ruleset(state.ruleset)
    return {
        "day": state.day,
        "phase": state.phase,
        "characters": [
            {
                **{k: v for k, v in c.to_json().items() if k not in {"hands", "pack"}},
                "items": _held(rs, state, c),
            }
            for c in state.characters.values()
        ],
        "places": [
            {
                **m,
                "items": [
                    _item(rs, state.items[i], in_hand=False) for i in state.places[m["name"]].items
                ],
                "characters": [c.name for c in state.at_place(m["name"])],
            }
            for m in map_view(state=state)
        ],
    }


def royale_state(*, game: Game) -> GameState:
    """The game's current state (``game.seq`` as the caller read it decides what is current)."""
    return store.state_load(game).state


def player_page(*, game: Game, character: CharacterRow, now: datetime) -> dict[str, Any]:
    return player_view(state=royale_state(game=game), character_id=character.pk, now=now)


def player_view(*, state: GameState, character_id: int, now: datetime) -> dict[str, Any]:
    """What one character's page shows of the state: itself, the map, the rules, its vote."""
    return {
        "me": character_view(state=state, character_id=character_id, now=now.timestamp()),
        "map": map_view(state=state),
        "rules": rules_view(state=state),
        "vote": vote_view(state=state, character_id=character_id),
    }


def vote_view(*, state: GameState, character_id: int) -> dict[str, Any]:
    """The character's own vote today and its weight; never anyone else's ballot or a tally."""
    rs = get_ruleset(state.ruleset)
    mine = own_vote(state, character_id)
    return {
        "open": state.phase == DAY and state.day >= rs.vote_from_day,
        "from_day": rs.vote_from_day,
        "mine": state.characters[mine].name if mine is not None else None,
        "weight": weight_of(state, character_id),
        "players": [
            c.name for c in sorted(state.characters.values(), key=lambda c: c.id) if not c.npc
        ],
    }
