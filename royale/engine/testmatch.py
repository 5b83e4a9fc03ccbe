"""测试赛 (the test match): a sandbox copy of a game with more items, and the prize that carries
into the real game.

[256]: the first character to kill 阿笨 and the first to whisper 阿呆's place correctly on the test
day each get a 大喇叭 in the real game (the NPC code records them in ``flags["test_prizes"]``).
[252]: the leader of the test match's 柱弦榜 (the power ranking) gets the 大喇叭. Which rule applies
is data (``test_match.prize_rule``); the rules themselves are registered here by name.

Both posts: 若测试赛中死亡或者体力不够可实时要求导演直接往背包中提供补给 (RULINGS 28). In the test
match only (the engine flag ``test_match``), the director may ``restore`` a dead character (back
alive with ``test_match.restore`` HP and MP) and ``supply`` one (a supply item of the ruleset into
its backpack); both are interventions, refused with ``not_test_match`` in a real game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .common import director_draft, living
from .draft import Draft, open_draft
from .errors import InvalidTarget, NotASupply, NotDead, NotTestMatch, UnknownCharacter
from .items import EARLY_ITEMS, grant
from .ruleset import (
    TIERED_CATEGORIES,
    Ruleset,
    RulesetError,
    _int,
    _selector,
    register_section,
)
from .state import MODE_NONE, SETUP, GameState

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


# --- the director's live supplies in the test match (RULINGS 28) ------------------------------

WHY_SUPPLY = "test_match_supply"


def _test_match(state: GameState, rng: random.Random) -> Draft:
    d = director_draft(state, rng)
    if not d.flags.get("test_match"):
        raise NotTestMatch()
    return d


def restore(state: GameState, character: int, rng: random.Random) -> Result:
    """测试赛中死亡: the director brings a dead player back, with the ruleset's HP and MP, no
    bleeding, nothing held (its items went where its death sent them). It stands where it died
    if that place is still on the map; else it is unspawned and picks a place, free, as on night
    1. The death stays in the log; the ranking counts only a later one."""
    d = _test_match(state, rng)
    c = d.chars.get(character)
    if c is None:
        raise UnknownCharacter(character=character)
    if c.npc:
        raise InvalidTarget(character=character, reason="not a player")
    if c.alive:
        raise NotDead(character=character)
    found = rules(d.rs)
    place = c.place if c.place is not None and not d.places[c.place].gone else None
    w = d.wc(character)
    w.alive, w.hp, w.mp, w.bleeding, w.place = True, found.restore_hp, found.restore_mp, 0, place
    w.mode, w.rest_moves, w.found = MODE_NONE, 0, None
    d.directors(
        "intervention",
        {
            "op": "restore",
            "character": character,
            "hp": w.hp,
            "mp": w.mp,
            "place": place,
        },
    )
    where = f"你在【{place}】。" if place else "请重新选择出生地点。"
    d.to(
        character,
        "director_restored",
        {
            "hp": w.hp,
            "mp": w.mp,
            "place": place,
            "text": f"测试赛：导演让你复活，生命 {w.hp}，体力 {w.mp}。{where}",
        },
    )
    return d.finish(), d.events


def supply(state: GameState, character: int, selector: str, rng: random.Random) -> Result:
    """测试赛中体力不够: the director puts a new supply item of the ruleset (a ``supply:…``
    kind key) into a living character's backpack, past 6 items if need be."""
    d = _test_match(state, rng)
    c = living(d, character)
    if c.npc:
        raise InvalidTarget(character=character, reason="not a player")
    kinds = d.rs.selector_kinds(selector)
    if not kinds or any(k.category != "supply" for k in kinds):
        raise NotASupply(selector=selector)
    iid = grant(d, character, selector, WHY_SUPPLY)
    d.directors(
        "intervention",
        {
            "op": "supply",
            "character": character,
            "selector": selector,
            "item": iid,
            "kind": d.items[iid].kind,
        },
    )
    return d.finish(), d.events
