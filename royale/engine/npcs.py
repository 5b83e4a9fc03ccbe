"""阿呆 and 阿笨, the NPCs of [256] ([252] has none): their data is the ruleset's ``npcs`` section.

They come with the event 阿呆和阿笨 (day 1, and the test day) and leave on the day of 狂风暴雨.
While they are in the game, every day open (once tonight's vanishing places are drawn):

- 阿呆 (血量无限: hits do nothing to it) stands at a place drawn among those not vanishing
  tonight; the director writes the day's riddle hinting at it (:func:`riddle_set`, announced).
  Every whisper a player sends 阿呆 is a guess (5 MP each, as any whisper); at the night's close
  the first three players who named the place, in the order of their right whispers, whatever
  wrong ones they sent before, and still alive get 2$ each (RULINGS 27).
- A new 阿笨 (50 HP; 500 in a test match) appears holding one random item of its pool, at a
  random place vanishing tonight (day 1: 金色狂欢剧团); yesterday's, if still standing, leaves
  with its item. Whoever kills it loots the item as after any attack.

NPCs have fixed negative ids (the shell's characters are positive); they are found by searches
and attacked like anyone, but never vote, rank, drown or take part in the events' effects. In a
test match (``flags["test_match"]``) the first to kill 阿笨 and the first to answer 阿呆 right
are recorded in ``flags["test_prizes"]`` for the real game's prize.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.engine.errors import InvalidInput
from games.engine.text import is_blank

from .common import director_draft
from .draft import Draft
from .errors import NpcsAbsent, TierExhausted
from .events import EventSpec, event_type, on
from .hooks import register_hook
from .items import grant, new_unused
from .ruleset import (
    Ruleset,
    RulesetError,
    _int,
    _place,
    _selector,
    _selectors,
    _str,
    get_ruleset,
    register_section,
)
from .state import Character, GameState, known_alive

Result = tuple[GameState, list[Any]]

RIDDLE_MAX = 500
# Left out when comparing a whisper with 阿呆's place: "【教堂】", "教堂！", " 教堂" all say 教堂.
_NOISE = frozenset(" \t\r\n\u3000【】[]「」『』“”\"'‘’《》<>()（）。.,，、!！?？:：;；~～")


@dataclass(frozen=True, slots=True)
class Adai:
    id: int
    name: str
    prize: str  # selector of the riddle prize (2$)
    winners: int  # the first N right answers are paid


@dataclass(frozen=True, slots=True)
class Aben:
    id: int
    name: str
    hp: int
    test_hp: int
    first_place: str  # day 1
    pool: tuple[str, ...]  # selectors: one is drawn each day


@dataclass(frozen=True, slots=True)
class NpcRules:
    adai: Adai
    aben: Aben


def _npc_id(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesetError(path, "must be an integer")
    if value >= 0:
        raise RulesetError(path, "must be negative (the shell's character ids are positive)")
    return value


@register_section("npcs")
def _parse(value: Any, rs: Ruleset) -> NpcRules:
    if not isinstance(value, Mapping):
        raise RulesetError("npcs", "must be an object")
    a = value.get("adai")
    b = value.get("aben")
    if not isinstance(a, Mapping) or not isinstance(b, Mapping):
        raise RulesetError("npcs", "needs the objects adai and aben")
    adai = Adai(
        id=_npc_id(a.get("id"), "npcs.adai.id"),
        name=_str(a.get("name"), "npcs.adai.name"),
        prize=_selector(a.get("riddle_prize"), "npcs.adai.riddle_prize", rs),
        winners=_int(a.get("riddle_winners"), "npcs.adai.riddle_winners", minimum=1),
    )
    aben = Aben(
        id=_npc_id(b.get("id"), "npcs.aben.id"),
        name=_str(b.get("name"), "npcs.aben.name"),
        hp=_int(b.get("hp"), "npcs.aben.hp", minimum=1),
        test_hp=_int(b.get("test_hp"), "npcs.aben.test_hp", minimum=1),
        first_place=_place(b.get("first_place"), "npcs.aben.first_place", rs.places),
        pool=_selectors(b.get("pool"), "npcs.aben.pool", rs),
    )
    if adai.id == aben.id:
        raise RulesetError("npcs.aben.id", "must differ from adai's")
    return NpcRules(adai, aben)


def rules_of(rs: Ruleset) -> NpcRules | None:
    found = rs.sections.get("npcs")
    return found if isinstance(found, NpcRules) else None


def present(flags: Mapping[str, Any]) -> bool:
    """Whether the NPCs have come and not left."""
    npcs = flags.get("npcs")
    return npcs is not None and npcs["left"] is None


# --- arrival and departure (the events 阿呆和阿笨 and 狂风暴雨) ----------------------------------

event_type("npcs")


@on("npcs", "pre_night")
def _arrive(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    if rules_of(d.rs) is not None and not d.flags.get("npcs"):
        d.wflags()["npcs"] = {"since": d.day, "left": None}  # placed once the shrink is drawn


@on("storm", "pre_night")
def _leave(d: Draft, spec: EventSpec, context: Mapping[str, Any]) -> None:
    rules = rules_of(d.rs)
    if rules is None or not present(d.flags):
        return
    d.wflags()["npcs"] = {**d.flags["npcs"], "left": d.day}
    for npc in (rules.adai, rules.aben):
        c = d.chars.get(npc.id)
        if c is not None and c.alive:
            _remove(d, c, "leaves")
    names = f"{rules.adai.name}和{rules.aben.name}"
    d.public("npcs_left", {"day": d.day, "text": f"{names}离开了。"})


def _remove(d: Draft, c: Character, why: str) -> None:
    """An NPC leaves the map (no death: it is not killed); what it held vanishes."""
    d.vanish(c.held, f"{c.name} {why}")
    w = d.wc(c.id)
    w.hands, w.pack, w.alive, w.hp, w.place, w.found = [], [], False, 0, None, None
    d.directors("npc_left", {"npc": c.id, "why": why})


# --- the daily round -----------------------------------------------------------------------------


def _open_places(d: Draft) -> list[str]:
    return [p.name for p in d.places.values() if not p.gone and p.open]


def _put(d: Draft, npc_id: int, name: str, hp: int, place: str, immortal: bool) -> Character:
    if npc_id not in d.chars:
        flags = {"immortal": True} if immortal else {}
        d.add_character(Character(npc_id, name, hp, d.rs.mp_max, npc=True, flags=flags))
    w = d.wc(npc_id)
    w.alive, w.hp, w.mp, w.place, w.bleeding, w.found = True, hp, d.rs.mp_max, place, 0, None
    return w


@register_hook("npcs.shrink_drawn")
def _new_day(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    rules = rules_of(d.rs)
    if rules is None or not present(d.flags):
        return
    f = d.wflags()
    f.pop("riddle", None)  # yesterday's riddle pointed at yesterday's place
    open_places = _open_places(d)
    vanishing = set(d.shrink_tonight)
    # 阿呆 never stands where the night's shrink would take it (it cannot die).
    spot = d.rng.choice([p for p in open_places if p not in vanishing] or open_places)
    _put(d, rules.adai.id, rules.adai.name, d.rs.hp_max, spot, immortal=True)
    d.directors("npc_placed", {"npc": rules.adai.id, "place": spot})

    aben = rules.aben
    old = d.chars.get(aben.id)
    if old is not None and old.alive:
        _remove(d, old, "makes way for a new one")
    if d.day == 1 and aben.first_place in open_places:
        place = aben.first_place
    else:
        # 随机缩圈地点; the safe zone is left out (it could not be attacked there). A day without
        # vanishing places (凛冬已至 has none announced) falls back to any place on the map.
        doomed = [p for p in d.shrink_tonight if p in open_places and p != d.rs.safe_zone]
        place = d.rng.choice(doomed or [p for p in open_places if p != d.rs.safe_zone])
    hp = aben.test_hp if d.flags.get("test_match") else aben.hp
    w = _put(d, aben.id, aben.name, hp, place, immortal=False)
    w.hands = []
    selector = d.rng.choice(aben.pool)
    iid = new_unused(d, selector)
    if iid is None:  # never for the posts' pools (untiered kinds), possible for a tier
        raise TierExhausted(selector=selector)
    w.pack = [iid]
    kind = d.items[iid].kind
    d.directors("item_created", {"item": iid, "kind": kind, "character": aben.id, "why": "npc"})
    d.directors("npc_placed", {"npc": aben.id, "place": place, "hp": hp, "item": iid})


# --- 阿呆's riddle -------------------------------------------------------------------------------


def _answer(text: str) -> str:
    return "".join(ch for ch in text if ch not in _NOISE)


def _answers(flags: Mapping[str, Any], day: int) -> dict[str, list[int]]:
    found = flags.get("riddle_answers")
    if found and found["day"] == day:
        return {"tried": list(found["tried"]), "right": list(found["right"])}
    return {"tried": [], "right": []}


@register_hook("npcs.whisper")
def _whispered(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    """每日最先传音正确的前三名存活玩家 (RULINGS 27): every whisper of a living player to 阿呆 is a
    guess, and a wrong one does not bar a later right one (each costs its 5 MP, as any whisper).
    ``right`` lists the players in the order of their first right whisper, each once; ``tried``
    everyone who guessed tonight, each once. Whispers after a right one change nothing."""
    rules = rules_of(d.rs)
    actor = context["actor"]
    if rules is None or context["target"] != rules.adai.id or not present(d.flags):
        return
    adai = d.chars[rules.adai.id]
    answers = _answers(d.flags, d.day)
    sender = d.chars[actor]
    if actor in answers["right"] or not adai.alive or sender.npc or not sender.alive:
        return
    right = _answer(context["text"]) == adai.place
    tried = answers["tried"]
    d.wflags()["riddle_answers"] = {
        "day": d.day,
        "tried": tried if actor in tried else [*tried, actor],
        "right": answers["right"] + ([actor] if right else []),
    }
    d.directors(
        "riddle_answer",
        {"character": actor, "text": context["text"], "place": adai.place, "right": right},
    )
    if right:
        _test_feat(d, "adai", actor)


@register_hook("npcs.post_night")
def _pay_riddle(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    """The first three right answers (``npcs.adai.riddle_winners``) of players still alive at the
    night's end get 2$ each: a right answerer who died tonight leaves its place to the next."""
    rules = rules_of(d.rs)
    if rules is None:
        return
    right = _answers(d.flags, d.day)["right"]
    paid = [cid for cid in right if d.chars[cid].alive][: rules.adai.winners]
    for cid in paid:
        grant(d, cid, rules.adai.prize, "riddle")
    if right:
        d.directors("riddle_paid", {"day": d.day, "right": right, "paid": paid})


@register_hook("npcs.death")
def _died(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    rules = rules_of(d.rs)
    killer = context["killer"]
    if rules is not None and context["character"] == rules.aben.id and killer is not None:
        _test_feat(d, "aben", killer)


def _test_feat(d: Draft, feat: str, cid: int) -> None:
    """测试日: the first to kill 阿笨 and the first to answer 阿呆 each win a prize in the real
    game (one entry per feat: the same player first at both is listed twice)."""
    if not d.flags.get("test_match") or d.chars[cid].npc:
        return
    feats = dict(d.flags.get("test_feats") or {})
    if feat in feats:
        return
    feats[feat] = cid
    f = d.wflags()
    f["test_feats"] = feats
    f["test_prizes"] = [*f.get("test_prizes", ()), cid]
    d.directors("test_prize_earned", {"feat": feat, "character": cid})


def riddle_set(state: GameState, text: str, rng: random.Random) -> Result:
    """The director's riddle of the day for 阿呆's place, announced publicly (a second one the
    same day replaces the first)."""
    d = director_draft(state, rng)
    rules = rules_of(d.rs)
    if rules is None or not present(d.flags) or not d.chars[rules.adai.id].alive:
        raise NpcsAbsent()
    text = text.strip()
    if is_blank(text) or len(text) > RIDDLE_MAX:
        raise InvalidInput(
            f"谜题须为 1 到 {RIDDLE_MAX} 个字。", message_en=f"1 to {RIDDLE_MAX} characters."
        )
    d.wflags()["riddle"] = {"day": d.day, "text": text}
    name = rules.adai.name
    d.public(
        "riddle",
        {"day": d.day, "npc": name, "riddle": text, "text": f"【{name}的每日谜题】{text}"},
    )
    d.directors("intervention", {"op": "riddle", "day": d.day, "text": text})
    return d.finish(), d.events


# --- reads ---------------------------------------------------------------------------------------


def riddle_today(state: GameState) -> str | None:
    riddle = state.flags.get("riddle")
    return str(riddle["text"]) if riddle and riddle["day"] == state.day else None


def npcs_in_game(state: GameState) -> list[Character]:
    """The NPCs on the map now (their presence is public; their places are not)."""
    rules = rules_of(get_ruleset(state.ruleset))
    if rules is None:
        return []
    found = (state.characters.get(n.id) for n in (rules.adai, rules.aben))
    return [c for c in found if c is not None and c.alive]


def npcs_known(state: GameState) -> list[Character]:
    """The NPCs as the players know them: on the map, or killed tonight and not yet announced
    (an NPC's night death stays hidden until the morning report, like anyone's)."""
    rules = rules_of(get_ruleset(state.ruleset))
    if rules is None:
        return []
    found = (state.characters.get(n.id) for n in (rules.adai, rules.aben))
    return [c for c in found if c is not None and known_alive(state, c.id)]
