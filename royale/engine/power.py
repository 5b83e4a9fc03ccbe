"""The power ranking (战力排名) of 人以群分 ([256]) and 柱弦榜 ([252]).

The posts rank by, in this order: 武器等级, 橙武剩余次数, 防具等级, 橙防剩余次数, 紫防剩余次数,
持有血药, 持有体力药, 当前生命值, 当前体力值. Every item held counts, hands and backpack alike:
the tier is the best held weapon's (armor's), the uses are summed over the held orange weapons
(orange/purple armor), and the supplies are counted as items. Ties share a rank and are listed in
电梯楼 order, which is the sign-up order of the character ids.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .ruleset import TIER_RANK, ItemKind, get_ruleset
from .state import Character, GameState


def _tier(kind: ItemKind) -> int:
    # 0 stands for "none held", so green is 1 and orange 4.
    return TIER_RANK[kind.tier] + 1 if kind.tier is not None else 0


def power_key(state: GameState, c: Character) -> list[int]:
    """The nine numbers of the posts' order, larger is stronger in each."""
    kinds = get_ruleset(state.ruleset).kinds
    weapon_tier = armor_tier = 0
    orange_weapon = orange_armor = purple_armor = hp_supplies = mp_supplies = 0
    for iid in c.held:
        item = state.items[iid]
        kind = kinds[item.kind]
        uses = item.uses or 0
        if kind.category == "weapon":
            weapon_tier = max(weapon_tier, _tier(kind))
            if kind.tier == "orange":
                orange_weapon += uses
        elif kind.category == "armor":
            armor_tier = max(armor_tier, _tier(kind))
            if kind.tier == "orange":
                orange_armor += uses
            elif kind.tier == "purple":
                purple_armor += uses
        elif kind.category == "supply":
            hp_supplies += kind.hp > 0
            mp_supplies += kind.mp > 0
    return [
        weapon_tier,
        orange_weapon,
        armor_tier,
        orange_armor,
        purple_armor,
        hp_supplies,
        mp_supplies,
        c.hp,
        c.mp,
    ]


def power_rows(state: GameState) -> list[dict[str, Any]]:
    """Living player characters, strongest first: ``{rank, character, name, key}``; equal keys
    share the rank (1, 2, 2, 4) and keep the id order."""
    players = sorted(
        (c for c in state.characters.values() if c.alive and not c.npc), key=lambda c: c.id
    )
    keyed = sorted(((power_key(state, c), c) for c in players), key=lambda kc: kc[0], reverse=True)
    rows: list[dict[str, Any]] = []
    for i, (key, c) in enumerate(keyed):
        rank = rows[-1]["rank"] if rows and rows[-1]["key"] == key else i + 1
        rows.append({"rank": rank, "character": c.id, "name": c.name, "key": key})
    return rows


def power_top(state: GameState, n: int = 5) -> list[dict[str, Any]]:
    """The rows the events publish: the top ``n``, and a tie reaching into the top ``n`` whole
    (a group with fewer than ``n`` players above it is shown with everyone above it)."""
    return [r for r in power_rows(state) if r["rank"] <= n]


def power_bottom(state: GameState, fraction: float = 0.1) -> list[int]:
    """The character ids of the bottom ``fraction`` (意料之外的剧情's 排名后10%), best first: the
    last ``ceil(fraction × players)`` places, at least one; a tie across that line is included
    whole."""
    rows = power_rows(state)
    if not rows:
        return []
    # Exact arithmetic: 30 × 0.1 in floats is 3.0000000000000004, whose ceiling is 4.
    count = max(1, math.ceil(len(rows) * Fraction(fraction).limit_denominator()))
    line = rows[len(rows) - count]["rank"]
    return [r["character"] for r in rows if r["rank"] >= line]
