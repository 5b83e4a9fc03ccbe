"""测试赛 (the test match): a sandbox copy of a game with more items, and the prize that carries
into the real game.

[256]: the first character to kill 阿笨 and the first to whisper 阿呆's place correctly on the test
day each get a 大喇叭 in the real game (the NPC code records them in ``flags["test_prizes"]``).
[252]: the leader of the test match's 柱弦榜 (the power ranking) gets the 大喇叭. Which rule applies
is data (``test_match.prize_rule``); the rules themselves are registered here by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .draft import open_draft
from .items import EARLY_ITEMS, grant
from .ruleset import (
    TIERED_CATEGORIES,
    Ruleset,
    RulesetError,
    _int,
    _selector,
    register_section,
)
from .state import SETUP, GameState

Result = tuple[GameState, list[Any]]
PrizeRule = Callable[[GameState], list[int]]
PRIZE_RULES: dict[str, PrizeRule] = {}


def register_prize_rule(name: str) -> Callable[[PrizeRule], PrizeRule]:
    def decorate(fn: PrizeRule) -> PrizeRule:
        PRIZE_RULES[name] = fn
        return fn

    return decorate


@register_prize_rule("npc_firsts")
def _npc_firsts(state: GameState) -> list[int]:
    # One prize per feat: the same character first at both gets two.
    return [int(c) for c in state.flags.get("test_prizes", ())]


@register_prize_rule("power_top")
def _power_top(state: GameState) -> list[int]:
    from .power import power_rows  # the power ranking module imports the engine core

    rows = power_rows(state)
    # 第一名: ties are listed in 电梯楼 order; there is one 大喇叭, so the first listed gets it.
    return [int(rows[0]["character"])] if rows else []


@dataclass(frozen=True, slots=True)
class TestMatchRules:
    item_factor: int  # the copy scatters this many times the real game's items (更多道具)
    prize: str  # selector of the prize item
    prize_rule: str
    prize_before_day_1: bool = False  # 并可在正式比赛第一日前使用: one use before day 1
    restore_hp: int = 100  # a dead character the director restores comes back with this HP
    restore_mp: int = 100  # and this MP


@register_section("test_match")
def _parse(value: Any, rs: Ruleset) -> TestMatchRules:
    if not isinstance(value, Mapping):
        raise RulesetError("test_match", "must be an object")
    factor = _int(value.get("item_factor"), "test_match.item_factor", minimum=1)
    prize = _selector(value.get("prize"), "test_match.prize", rs)
    rule = value.get("prize_rule")
    if rule not in PRIZE_RULES:
        raise RulesetError("test_match.prize_rule", f"must be one of {sorted(PRIZE_RULES)}")
    early = value.get("prize_before_day_1", False)
    if not isinstance(early, bool):
        raise RulesetError("test_match.prize_before_day_1", "must be true or false")
    restore = value.get("restore", {"hp": rs.hp_max, "mp": rs.mp_max})
    if not isinstance(restore, Mapping):
        raise RulesetError("test_match.restore", "must be an object")
    hp = _int(restore.get("hp"), "test_match.restore.hp", minimum=1)
    mp = _int(restore.get("mp"), "test_match.restore.mp", minimum=0)
    if hp > rs.hp_max:
        raise RulesetError("test_match.restore.hp", f"must be at most {rs.hp_max}")
    if mp > rs.mp_max:
        raise RulesetError("test_match.restore.mp", f"must be at most {rs.mp_max}")
    return TestMatchRules(factor, prize, str(rule), early, hp, mp)


def rules(rs: Ruleset) -> TestMatchRules:
    found = rs.sections.get("test_match")
    return found if found is not None else TestMatchRules(1, "tool:大喇叭", "power_top")


def placement(rs: Ruleset) -> dict[str, int]:
    """The copy's item counts: the ruleset's placement times its factor, a weapon or armor tier
    capped by its names (each name exists once)."""
    factor = rules(rs).item_factor
    counts: dict[str, int] = {}
    for p in rs.placement:
        kinds = rs.selector_kinds(p.selector)
        cap = len(kinds) if kinds[0].category in TIERED_CATEGORIES else None
        counts[p.selector] = p.count * factor if cap is None else min(p.count * factor, cap)
    return counts


def prize_winners(state: GameState, rs: Ruleset) -> list[int]:
    """The test match's characters who won the prize (ids of the test copy)."""
    return PRIZE_RULES[rules(rs).prize_rule](state)


def award(state: GameState, characters: list[int], rng: random.Random) -> Result:
    """In the real game: each listed character receives the prize in its backpack (before day 1;
    it may go past the item cap, as rewards do)."""
    d = open_draft(state, rng)
    found = rules(d.rs)
    prize = found.prize
    for cid in characters:
        if cid in d.chars and d.chars[cid].alive:
            iid = grant(d, cid, prize, "test_match_prize")
            if found.prize_before_day_1 and d.phase == SETUP:
                d.wflags()[EARLY_ITEMS] = [*d.flags.get(EARLY_ITEMS, ()), iid]
    d.directors("test_match_prizes", {"characters": characters, "prize": prize})
    return d.finish(), d.events
