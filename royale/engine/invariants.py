"""Invariants of a royale state, for tests and for the shell's log-rebuild checks.

``problems(state)`` returns every broken invariant as a sentence (empty when the state is sound):
bounds of HP/MP, the dead holding nothing, vanished places holding nothing, hand rules, and item
conservation (each item in exactly one place, character, the market's holdings or the ``gone``
ledger).
"""

from __future__ import annotations

from .house import house_items
from .ruleset import get_ruleset
from .state import GameState


def problems(state: GameState, *, cap_items: bool = True) -> list[str]:
    """``cap_items=False`` when events or trades may legally have pushed someone past 6 items."""
    rs = get_ruleset(state.ruleset)
    found: list[str] = []
    where: dict[int, str] = {}

    def locate(iid: int, at: str) -> None:
        if iid in where:
            found.append(f"item {iid} is both at {where[iid]} and at {at}")
        where[iid] = at

    for p in state.places.values():
        for iid in p.items:
            locate(iid, f"place {p.name}")
        if p.gone:
            if p.items:
                found.append(f"vanished place {p.name} still holds items {p.items}")
            here = [c.id for c in state.characters.values() if c.alive and c.place == p.name]
            if here:
                found.append(f"vanished place {p.name} still holds living characters {here}")
    for c in state.characters.values():
        if not c.npc and not 0 <= c.hp <= rs.hp_max:
            found.append(f"character {c.id} has HP {c.hp}")
        if not 0 <= c.mp <= rs.mp_max:
            found.append(f"character {c.id} has MP {c.mp}")
        if not c.alive and (c.hands or c.pack or c.hp != 0):
            found.append(f"dead character {c.id} still holds items or HP")
        if c.alive and c.hp <= 0:
            found.append(f"character {c.id} is alive with HP {c.hp}")
        if len(c.hands) > rs.hand_slots:
            found.append(f"character {c.id} has {len(c.hands)} items in hand")
        cats = [rs.kinds[state.items[i].kind].category for i in c.hands if i in state.items]
        if cats.count("weapon") > 1 or cats.count("armor") > 1:
            found.append(f"character {c.id} holds two weapons or two armors in hand")
        if cap_items and c.item_count() > rs.item_cap:
            found.append(f"character {c.id} holds {c.item_count()} items")
        for iid in c.hands + c.pack:
            locate(iid, f"character {c.id}")
    for iid in state.gone:
        locate(iid, "gone")
    for iid, at in house_items(state.flags):
        locate(iid, f"the market ({at})")
    missing = set(state.items) - set(where)
    if missing:
        found.append(f"items {sorted(missing)} are nowhere")
    unknown = set(where) - set(state.items)
    if unknown:
        found.append(f"items {sorted(unknown)} are not in the item table")
    return found
