"""A new game: characters at full HP/MP, unspawned; the catalogue's items scattered at random."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine.errors import InvalidInput

from .draft import Draft
from .ruleset import TIERED_CATEGORIES, get_ruleset
from .state import Character, GameState, Place

Result = tuple[GameState, list[Any]]


def new_game(
    ruleset_key: str,
    characters: Sequence[tuple[int, str]],
    rng: random.Random,
    *,
    placement: Mapping[str, int] | None = None,
    npcs: Sequence[tuple[int, str, int]] = (),
    test_match: bool = False,
) -> Result:
    """Build the starting state (phase ``setup``; call ``day_open`` to start day 1).

    ``placement`` overrides the ruleset's default counts per selector (the director's edits
    before the game starts), e.g. ``{"trap:炸弹": 8}``. ``npcs`` are (id, name, hp) characters
    that take part in searches and attacks but not in votes, drowning or the ranking.
    ``test_match`` marks a test match's copy (``flags["test_match"]``: its NPCs and prizes differ).
    """
    rs = get_ruleset(ruleset_key)
    state = GameState(ruleset=rs.key)
    state.places = {p: Place(p) for p in rs.places}
    if test_match:
        state.flags["test_match"] = True
    ids = [cid for cid, _ in characters] + [cid for cid, _, _ in npcs]
    if len(set(ids)) != len(ids):
        raise InvalidInput(reason="duplicate character id")
    for cid, name in characters:
        state.characters[cid] = Character(cid, name, rs.hp_max, rs.mp_max)
    for cid, name, hp in npcs:
        state.characters[cid] = Character(cid, name, hp, rs.mp_max, npc=True)
    counts = {p.selector: p.count for p in rs.placement}
    for selector, count in (placement or {}).items():
        if not rs.selector_kinds(selector):
            raise InvalidInput(selector=selector)
        counts[selector] = int(count)
    d = Draft(state, rs, rng)
    places = list(rs.places)
    scattered: dict[str, list[int]] = {}
    for selector, count in counts.items():
        kinds = rs.selector_kinds(selector)
        if kinds[0].category in TIERED_CATEGORIES:
            free = d.unused_keys(kinds)
            if count > len(free):
                raise InvalidInput(selector=selector, count=count, available=len(free))
            keys = rng.sample(free, count)
        else:
            keys = [kinds[0].key] * count
        for key in keys:
            iid = d.new_item(key)
            place = rng.choice(places)
            d.wp(place).items.append(iid)
            scattered.setdefault(place, []).append(iid)
    d.directors(
        "game_created",
        {
            "ruleset": rs.key,
            "characters": [cid for cid, _ in characters],
            "npcs": [cid for cid, _, _ in npcs],
            "placement": counts,
            "scattered": scattered,
        },
    )
    d.public(
        "game_created",
        {
            "ruleset": rs.key,
            "title": rs.title,
            "characters": len(characters),
            "places": list(rs.places),
        },
    )
    return d.finish(), d.events
