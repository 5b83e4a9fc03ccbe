"""[096]'s statuses and votes: 束缚 (缠绕) and its penalty, 变羊 (变羊术), 石化 (魔眼, 蛇发诅咒),
咒术's chain, 龙鳞, the vote weights (龙威, 咆哮, 神恩's 1.5 unaffected by statuses, 石化's void
votes, 变羊's void votes against the 巫师) and the day vote from day 2 ('first to the top').

Statuses are ``Player.statuses[key] = the last day it holds`` (keys and names: the ruleset's
``statuses``): 束缚 until that night's end (the night's day), 石化 until the next day's end,
变羊 and 蛇发诅咒's 石化 for the rest of the game (``FOREVER``).

Tonight's statuses are applied as soon as they are submitted, since 束缚 binds the night's
later submissions (``conan._check_bound``): every submission of 缠绕, 变羊术, 魔眼 or 咒术
re-derives them (``_sync``) from the night's picks — the values each touched player had before
the night (``night["cn_status"]["before"]``) are put back, then every pick is applied again in
step order, each copied to its 咒术 partner (RULINGS 8: whatever is aimed at a partner that
night, whenever the chain was submitted; a copy is not copied back). A pick of a 变羊 player
aimed at the 巫师 does nothing (``void_against_wizard``); 龙鳞 takes the first status or damage
of the night aimed at the 黑龙 while it is not cooling (``scales_ready``).

Damages: ``conan.DAMAGE_EXPANDERS`` gets ``_expand`` (a damage of a 变羊 player on the 巫师 is
dropped; each damage aimed at a 咒术 partner is copied to the other, right after it); the damage
flow's step ``scales`` is 龙鳞. What 龙鳞 took in the flow outlasts the draft as the effect
``cn_scales`` (applied at publication); its cooldown starts at the night's end, after the
night's recovery (RULINGS 7: a skill triggered that night does not recover).

Only 石化 is announced (RULINGS 16), at the next day's open; the 变羊 and 束缚 players are told
privately, so that they can keep the rules of speech and of targets.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from fractions import Fraction
from typing import Any

from games.engine.ballots import Adjust, Reason, VoteModifiers
from games.engine.errors import InvalidInput
from games.engine.events import GameEvent

from . import victory
from .actions import UseSkill
from .conan import (
    DAMAGE_EXPANDERS,
    cooldown,
    cooldown_add,
    in_force,
    members,
    register_damage_step,
    register_on_flip,
    toggled,
    wide_targets,
)
from .day import vote_modifiers
from .draft import Draft, open_draft
from .errors import GameOver, InvalidTarget, UnknownPlayer, WindowClosed
from .hooks import register_hook
from .night import APPLIERS
from .outcomes import open_window
from .ruleset import Skill
from .skills import HANDLERS, WIDE, Now, register_handler, seconds
from .state import CAUSE_RED_CARD, DAY, OVER, GameState, Player
from .steps import subs

FOREVER = 1_000_000  # 变羊 (直到游戏结束) and 蛇发诅咒's 永久 石化: a day no game reaches
# 第二天及以后的白天，获得投票最多的的角色将即刻公示出局 (day 1 elects the 神眷者).
FIRST_VOTE_OUT_DAY = 2
WIZARD = "wizard"
DRYAD = "dryad"
SCALES = "scales"
PACK = "pack"

STONE_VOID = Reason("stone", "石化状态的角色投票无效。")
SHEEP_VOID = Reason("sheep", "变羊状态的角色对巫师的投票无效。", public=False)

NOTICES = {
    "bound": (
        "你进入束缚状态，持续至当晚结束：主动技能的目标必须包含“树妖”，不发动则进入至少为1的冷却。"
    ),
    "sheep": "你进入变羊状态：投票和技能均对巫师无效，且每次发言必须有“咩”字。",
}
RELEASED = {"bound": "你的束缚状态已解除。", "sheep": "你的变羊状态已解除。"}


class EntangledBefore(InvalidTarget):
    message = "缠绕对每名角色只能发动一次。"
    message_en = "Entangle can name each character only once."


# --- reading the statuses -----------------------------------------------------------------------


def holds(p: Player, status: str, day: int) -> bool:
    return p.statuses.get(status, -1) >= day


def _lasts(d: Draft, sk: Skill) -> int:
    """The last day a status of this skill holds: 当晚结束 (night n is day n), 下一日白天结束,
    or the rest of the game."""
    return {"night": d.day, "next_day": d.day + 1}.get(str(sk.params.get("lasts")), FOREVER)


def _wizards(d: Draft) -> set[int]:
    return {p.id for p in d.players.values() if p.role == WIZARD}


def void_against_wizard(d: Draft, actor: int, target: int) -> bool:
    """变羊: 投票和技能均对巫师无效 — a skill of a 变羊 player aimed at the 巫师 does nothing
    (for every module that settles a skill on a target)."""
    return target in _wizards(d) and holds(d.p(actor), "sheep", d.day)


def _spent_tonight(d: Draft) -> list[int]:
    rec = d.night.get("cn_status") or {}
    return [int(x) for x in [*d.night.get("cn_scales", []), *rec.get("scales", [])]]


def scales_ready(d: Draft, pid: int) -> bool:
    """龙鳞 <被动><冷却：1>: it takes the next curse, damage, vote-out or status while its holder
    is in the game and it is not cooling (nor already spent tonight)."""
    p = d.p(pid)
    return (
        p.alive and SCALES in p.skills and cooldown(p, SCALES) == 0 and pid not in _spent_tonight(d)
    )


def scales_spend(d: Draft, pid: int, why: str) -> None:
    """龙鳞 took ``why`` (诅咒, 投票出局 …): by day it cools at once (1 day: day n and night
    n); by night from the night's end, after the night's recovery (RULINGS 7)."""
    text = f"{d.name(pid)}的【龙鳞】免疫此次{why}。"
    d.note("龙鳞", text, target=pid)
    d.directors("scales", {"id": pid, "why": why, "text": text})
    if d.phase == DAY:
        cooldown_add(d, pid, SCALES, d.rs.skills[SCALES].cooldown, "触发")
    else:
        d.set_night(cn_scales=[*d.night.get("cn_scales", []), pid])


# --- tonight's statuses -------------------------------------------------------------------------


def _acting(d: Draft, pid: int) -> bool:
    """In the game when tonight's skills were used: alive, or out at this night's settlement
    (its statuses stand; a red card in the night voids them, 出局后不能行使特权)."""
    return d.p(pid).alive or any(o.id == pid and o.night and o.day == d.day for o in d.outs)


def _partners(d: Draft) -> dict[int, int]:
    """咒术: 选择连锁两名角色 — each partner of tonight's chains with the other."""
    found: dict[int, int] = {}
    for actor, target in subs(d, "hex").items():
        a = int(actor)
        if target is None or not _acting(d, a) or "hex" not in d.p(a).skills:
            continue
        chain = wide_targets(d, "hex", a)
        if len(chain) == 2:
            found[chain[0]], found[chain[1]] = chain[1], chain[0]
    return found


def _status_picks(d: Draft) -> list[tuple[Skill, int, int]]:
    """Tonight's 缠绕/变羊术/魔眼 in step order: (skill, actor, target), of actors still in the
    game who still hold the skill (a flip takes its effects away)."""
    found = []
    for step in d.rs.night_steps:
        for s in step.skills:
            sk = d.rs.skills[s]
            if "status" not in sk.params:
                continue
            for actor, target in subs(d, s).items():
                a = int(actor)
                if target is not None and _acting(d, a) and s in d.p(a).skills:
                    found.append((sk, a, int(target)))
    return found


def _sync(d: Draft) -> None:
    """Put back what tonight's statuses changed, then apply tonight's picks again."""
    rec = dict(d.night.get("cn_status") or {})
    before: dict[str, dict[str, int | None]] = {
        k: dict(v) for k, v in (rec.get("before") or {}).items()
    }
    was_bound = {int(a[0]) for a in rec.get("applied", []) if a[1] == "bound"}
    for key, values in before.items():
        w = d.wp(int(key))
        for status, value in values.items():
            if value is None:
                w.statuses.pop(status, None)
            else:
                w.statuses[status] = value
    d.set_night(cn_status={**rec, "scales": []})  # what 龙鳞 took is taken again below
    partners = _partners(d)
    applied: list[list[Any]] = []
    scales: list[int] = []
    for sk, actor, target in _status_picks(d):
        status = str(sk.params["status"])
        aimed = [(target, False)] + ([(partners[target], True)] if target in partners else [])
        for t, copy in aimed:
            if not d.p(t).alive:
                continue
            if void_against_wizard(d, actor, t):
                continue
            if status == "stone" and d.p(t).flags.get("cn_stone_night") == d.day - 1:
                continue  # 此技能对同一角色不会连续两天生效 (a copy; the pick itself is refused)
            if scales_ready(d, t) and t not in scales:
                scales.append(t)
                continue
            key = str(t)
            values = before.setdefault(key, {})
            if status not in values:
                values[status] = d.p(t).statuses.get(status)
            w = d.wp(t)
            w.statuses[status] = max(w.statuses.get(status, -1), _lasts(d, sk))
            applied.append([t, status, sk.key, actor, copy])
    d.set_night(cn_status={"before": before, "applied": applied, "scales": scales})
    now_bound = {int(a[0]) for a in applied if a[1] == "bound"}
    for pid in sorted(now_bound - was_bound):
        _tell(d, pid, "bound", True)
    for pid in sorted(was_bound - now_bound):
        _tell(d, pid, "bound", False)


def _tell(d: Draft, pid: int, status: str, on: bool) -> None:
    text = NOTICES[status] if on else RELEASED[status]
    name = d.rs.status_names.get(status, status)
    d.to(pid, "status", {"id": pid, "status": status, "name": name, "on": on, "text": text})


def _set_outside(d: Draft, pid: int, status: str, value: int | None) -> None:
    """A status set or lifted outside tonight's picks (蛇发诅咒, 巫师's flip): also what a later
    ``_sync`` puts back."""
    w = d.wp(pid)
    if value is None:
        w.statuses.pop(status, None)
    else:
        w.statuses[status] = value
    rec = d.night.get("cn_status") or {}
    before = rec.get("before") or {}
    if status in before.get(str(pid), {}):
        changed = {k: dict(v) for k, v in before.items()}
        changed[str(pid)][status] = value
        d.set_night(cn_status={**rec, "before": changed})


def new_sheep(d: Draft, wizard: int) -> list[int]:
    """无限魔力's check: the characters this 巫师's 变羊术 turned into 变羊 tonight (a 咒术 copy
    included) that were not already."""
    rec = d.night.get("cn_status") or {}
    before = rec.get("before") or {}
    found = []
    for t, status, _skill, actor, _copy in rec.get("applied", []):
        prior = before.get(str(t), {}).get("sheep")
        if status == "sheep" and actor == wizard and (prior is None or prior < d.day):
            found.append(int(t))
    return sorted(set(found))


@register_handler("cn_status_pick")
def _status_pick(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """缠绕 (<角色>: each target once a game), 变羊术, 魔眼: the pick, applied at once."""
    if "角色" in sk.tags and target in p.flags.get(f"cn_once_{sk.key}", []):
        raise EntangledBefore()
    HANDLERS["cn_pick"](d, p, sk, target, now)
    _sync(d)


def _hex(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """咒术: the two targets as ``cn_wide`` takes them, then tonight's statuses again."""
    WIDE["cn_wide"](d, p, sk, a, now)
    _sync(d)


WIDE["cn_hex"] = _hex


# --- damages: 咒术's copies, 变羊's void, 龙鳞 ---------------------------------------------------


def _expand(d: Draft, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    partners = _partners(d)
    out: list[dict[str, Any]] = []
    for dmg in found:
        aimed = [dmg]
        if dmg["target"] in partners:
            copy = {**dmg, "target": partners[dmg["target"]], "copy_of": dmg["target"]}
            aimed.append(copy)
        for one in aimed:
            t, actor = one["target"], one["actor"]
            skill = d.rs.skills[one["skill"]].name
            if void_against_wizard(d, actor, t):
                d.note("变羊", f"{d.name(actor)}处于变羊状态，【{skill}】对巫师{d.name(t)}无效。")
                continue
            if "copy_of" in one:
                d.note(
                    "咒术",
                    f"【{skill}】对{d.name(one['copy_of'])}的伤害经咒术额外传递给{d.name(t)}。",
                    target=t,
                )
            out.append(one)
    return out


DAMAGE_EXPANDERS.append(_expand)


@register_damage_step(SCALES)
def _step_scales(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """龙鳞: 免疫一次伤害 — the night's first damage on the 黑龙 while it is ready."""
    t = dmg["target"]
    if not scales_ready(d, t) or t in spent.get(SCALES, ()):
        return False
    spent.setdefault(SCALES, []).append(t)
    effects = spent.get("effects")
    if effects is not None:
        effects["cn_scales"] = [*effects.get("cn_scales", []), t]
    d.note(dmg["line"], f"{d.name(t)}的【龙鳞】免疫此次伤害。", target=t)
    return True


def _apply_scales(d: Draft, pids: Any) -> None:
    d.set_night(cn_scales=[*d.night.get("cn_scales", []), *(int(x) for x in pids)])


APPLIERS["cn_scales"] = _apply_scales


# --- the flip, outs, 蛇发诅咒 -------------------------------------------------------------------


@register_on_flip("wizard_flip")
def _flip_wizard_flip(d: Draft, pid: int, old: str, why: str) -> None:
    """变羊 lasts until the game ends, unless the 巫师 flips: then every sheep is freed
    (RULINGS 9)."""
    if old != WIZARD:
        return
    for p in list(d.players.values()):
        if "sheep" in p.statuses:
            _set_outside(d, p.id, "sheep", None)
            d.note("变羊", f"巫师翻转身份，{p.name}的变羊状态解除。", target=p.id)
            if p.alive:
                _tell(d, p.id, "sheep", False)


@register_hook("cn_status_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    """蛇发诅咒：美杜莎出局时 — her window to choose the one stoned for good (a red card fires
    nothing: no skill is used by one carded out)."""
    if "snake_curse" in d.p(pid).skills and cause != CAUSE_RED_CARD:
        open_window(d, pid, "snake_curse", night=night)


def _stone_forever(d: Draft, medusa: int, target: int, how: str) -> None:
    if scales_ready(d, target):
        scales_spend(d, target, "石化")
        return
    _set_outside(d, target, "stone", FOREVER)
    d.note("蛇发诅咒", f"{d.name(medusa)}的【蛇发诅咒】令{d.name(target)}永久石化（{how}）。")
    text = d.rs.text("stone_forever", name=d.name(target))
    d.directors("status", {"id": target, "status": "stone", "by": medusa, "text": text})
    if d.phase == DAY:
        d.public("stone", {"text": text, "id": target, "forever": True})
    else:  # 夜晚期间需要公示的内容全部在下一个白天开始时公布
        d.set_flag("cn_stone_news", [*d.flags.get("cn_stone_news", []), [target, text]])


@register_handler("cn_snake_curse")
def _snake_curse(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    w = next(
        (x for x in d.windows if x["actor"] == p.id and x["skill"] == sk.key and now <= x["until"]),
        None,
    )
    if w is None:
        raise WindowClosed(skill=sk.key)
    d.windows = tuple(x for x in d.windows if x is not w)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)
    _stone_forever(d, p.id, target, "选择")


@register_hook("cn_status_window_closed")
def _window_closed(d: Draft, w: dict[str, Any], used: bool) -> None:
    """蛇发诅咒 is <被动>: not chosen in time, the seed chooses (as RULINGS 096-15 for 馈赠)."""
    if w["skill"] != "snake_curse" or used:
        return
    pool = sorted(
        p.id for p in d.living() if p.statuses.get("stone", -1) < FOREVER and p.id != w["actor"]
    )
    if pool:
        _stone_forever(d, int(w["actor"]), d.rng.choice(pool), "未选择，由种子抽取")


# --- night and day ------------------------------------------------------------------------------


@register_hook("cn_status_night_open")
def _night_open(d: Draft) -> None:
    return None


def _penalty(d: Draft, pid: int) -> None:
    """束缚: 不发动则进入至少为1的冷却 — each active skill the bound player did not use tonight
    gets cooldown max(c, 1) (RULINGS 7)."""
    p = d.p(pid)
    for s in p.skills:
        sk = d.rs.skills[s]
        if sk.step is None or sk.window is not None or "被动" in sk.tags or "开关" in sk.tags:
            continue
        if (sk.limited and p.used.get(s, 0) >= 1) or not in_force(d, p, sk):
            continue
        if subs(d, s).get(str(pid)) is not None:
            continue
        now = cooldown(d.p(pid), s)
        if now < 1:
            cooldown_add(d, pid, s, 1 - now, "束缚")


@register_hook("cn_status_night_end")
def _night_end(d: Draft) -> None:
    """夜晚结束: tonight's statuses as finally submitted, 缠绕's penalty and marks, 魔眼's
    last target, 龙鳞's cooldown, the news for the day's open, and the win check (高塔: every
    other character a sheep)."""
    if d.night.get("prelude"):
        return
    _sync(d)
    rec = d.night.get("cn_status") or {}
    applied = rec.get("applied", [])
    for pid in sorted({int(a[0]) for a in applied if a[1] == "bound"}):
        if d.p(pid).alive:
            _penalty(d, pid)
        d.wp(pid).statuses.pop("bound", None)
    for sk, actor, target in _status_picks(d):
        w = d.wp(actor)
        if "角色" in sk.tags:
            w.flags[f"cn_once_{sk.key}"] = [*w.flags.get(f"cn_once_{sk.key}", []), target]
        if sk.no_repeat:
            w.flags[f"last_{sk.key}"] = [target, d.day]
    news: list[list[Any]] = list(d.flags.get("cn_stone_news", []))
    sheep: list[int] = []
    before = rec.get("before") or {}
    for t, status, skill, actor, copy in applied:
        prior = before.get(str(t), {}).get(status)
        fresh = prior is None or prior < d.day
        if status == "stone":
            d.wp(int(t)).flags["cn_stone_night"] = d.day
            if fresh and all(n[0] != t for n in news):
                news.append([t, d.rs.text("stone", name=d.name(int(t)))])
        if status == "sheep" and fresh and t not in sheep:
            sheep.append(int(t))
        how = f"{d.name(int(actor))}的【{d.rs.skills[skill].name}】{'，咒术传递' if copy else ''}"
        name = d.rs.status_names.get(status, status)
        d.note("异常状态", f"{d.name(int(t))}进入{name}状态（{how}）。", target=t)
    d.set_flag("cn_stone_news", news)
    d.set_flag("cn_sheep_news", [*d.flags.get("cn_sheep_news", []), *sheep])
    for pid in dict.fromkeys(_spent_tonight(d)):
        cooldown_add(d, pid, SCALES, d.rs.skills[SCALES].cooldown, "触发")
    victory.check(d)


@register_hook("cn_status_day_open")
def _day_open(d: Draft) -> None:
    """The day's open: 石化 announced (RULINGS 16), the new 变羊 told privately, statuses past
    their last day removed."""
    for pid, text in d.flags.get("cn_stone_news", []):
        d.public("stone", {"text": text, "id": int(pid)})
    for pid in d.flags.get("cn_sheep_news", []):
        if d.p(int(pid)).alive and holds(d.p(int(pid)), "sheep", d.day):
            _tell(d, int(pid), "sheep", True)
    d.set_flag("cn_stone_news", [])
    d.set_flag("cn_sheep_news", [])
    for p in list(d.players.values()):
        if any(last < d.day for last in p.statuses.values()):
            w = d.wp(p.id)
            w.statuses = {k: v for k, v in w.statuses.items() if v >= d.day}


# --- the day's vote -----------------------------------------------------------------------------


def _weight(d: Draft, p: Player, base: Adjust | None) -> Adjust | None:
    """龙威: 3 whoever holds it, 神眷者 included; 咆哮: +1 per pack member out, on 1 or on the
    神眷者's 1.5 (RULINGS 14)."""
    for s in ("majesty", "majesty_undead"):
        if s in p.skills and toggled(p, s):
            return Adjust(Fraction(d.rs.skills[s].params["votes"]), f"【{d.rs.skills[s].name}】")
    if "roar" in p.skills and toggled(p, "roar"):
        out = sum(1 for m in members(d, PACK) if not d.p(m).alive)
        per = Fraction(d.rs.skills["roar"].params.get("per_out", 1))
        start = base.value if base is not None else Fraction(1)
        return Adjust(start + per * out, f"【咆哮】+{per * out}")
    return base


@register_hook("cn_status_vote_modifiers")
def _vote_modifiers(d: Draft, mods: VoteModifiers) -> VoteModifiers:
    """神恩 (the 神眷者 1.5, its vote unaffected by statuses), 龙威, 咆哮, 石化 (投票无效),
    变羊 (投票对巫师无效)."""
    chosen = d.sheriff if d.sheriff is not None and d.p(d.sheriff).alive else None
    weights = dict(mods.weights)
    if chosen is not None:
        weights[chosen] = Adjust(d.rs.sheriff_weight, f"{d.rs.sheriff_name}【神恩】")
    void = dict(mods.void_voters)
    pairs = dict(mods.void_pairs)
    wizards = sorted(_wizards(d))
    for p in d.living():
        weight = _weight(d, p, weights.get(p.id))
        if weight is not None:
            weights[p.id] = weight
        if p.id == chosen:
            continue  # 投票效力不受异常状态影响
        if holds(p, "stone", d.day):
            void[p.id] = STONE_VOID
        if holds(p, "sheep", d.day):
            for w in wizards:
                pairs[(p.id, w)] = SHEEP_VOID
    return replace(mods, weights=weights, void_voters=void, void_pairs=pairs)


@register_hook("cn_status_voted_out")
def _voted_out(d: Draft, pid: int) -> bool:
    """Day 1's top is elected, not out (the 神眷者's election is the relic's); from day 2 the
    top goes out at once unless 龙鳞 takes it: the tally stands with 无人出局, no skill named
    (RULINGS 14)."""
    if d.day < FIRST_VOTE_OUT_DAY:
        return True
    if scales_ready(d, pid):
        scales_spend(d, pid, "投票出局")
        d.public("no_one_out", {"text": d.rs.text("no_one_scales")})
        return True
    return False


def _ballots(d: Draft) -> list[tuple[int, int]]:
    kept = d.flags.get("day_ballots") or {}
    if kept.get("day") != d.day:
        return []
    return [(int(v), int(t)) for v, t in kept["ballots"]]


@register_hook("cn_status_tie_break")
def _tie_break(d: Draft, leaders: list[int]) -> int | None:
    """最先高票者 (RULINGS 14, every day): of the tied, the one whose last counted ballot —
    final ballots, earliest naming post first — came first reached the top first. Without the
    ballots (a director's totals) the tie stands: nobody is out."""
    mods = vote_modifiers(d.finish(), d.day)
    last: dict[int, int] = {}
    for i, (v, t) in enumerate(_ballots(d)):
        if t not in leaders or v not in d.players or v in mods.void_voters:
            continue
        if (v, t) in mods.void_pairs or not d.p(v).alive:
            continue
        last[t] = i
    if set(last) != set(leaders):
        return None
    first = min(leaders, key=lambda t: last[t])
    d.note("投票", f"平票，{d.name(first)}最先达到最高票。", target=first)
    return first


@register_hook("cn_status_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    """The player's own statuses as it was told them (束缚 and 变羊 are told to no one else):
    束缚 at once (it binds the night's later submissions); 变羊 and 石化 taken tonight only from
    the day's open, when the 变羊 is told and the 石化 announced — until then the view keeps
    what held before the night (a pick may still change)."""
    rec = (d.night.get("cn_status") or {}) if d.phase != DAY else {}
    before = (rec.get("before") or {}).get(str(p.id), {})
    held: dict[str, str] = {}
    for k in p.statuses:
        last = before.get(k, p.statuses[k]) if k != "bound" and k in before else p.statuses[k]
        if last is not None and last >= d.day:
            held[k] = d.rs.status_names.get(k, k)
    view["conan_status"] = {"statuses": held}
    return view


__all__ = [
    "FOREVER",
    "holds",
    "new_sheep",
    "scales_ready",
    "scales_spend",
    "void_against_wizard",
]


# --- speech (如果发言违反变羊、石化状态的限制，则所有非被动技能冷却+1) ----------------------------

# What a post under each status must be: a 变羊's has 咩 (每次发言必须有“咩”字); a 石化's is
# emoji only (发言只能使用表情).
SPEECH_RULES = {"sheep": "每次发言必须有“咩”字", "stone": "发言只能使用表情"}
_EMOJI = re.compile(
    r"\{:[0-9a-z_]+:\}"  # Discuz! smilies {:1_23:}
    r"|\[(?:em|s):?[0-9a-z_]*\]"  # [em]xx / [s:12]
    r"|:[a-z_]+:"  # :smile:
    r"|[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D\u20E3]"
    r"|\s"
)


def speech_breaks(status: str, text: str) -> bool:
    """Whether a post breaks the speech rule of ``status`` (sheep: no 咩; stone: anything but
    emoji and smilies)."""
    if status == "sheep":
        return "咩" not in text
    return bool(_EMOJI.sub("", text))


def speech_status(p: Player, day: int) -> str | None:
    """The speech-limiting status ``p`` is under on ``day`` (石化 first: the stricter)."""
    for status in ("stone", "sheep"):
        if holds(p, status, day):
            return status
    return None


def speech_penalty(
    state: GameState, pid: int, rng: random.Random, now: Now, *, day: int, post: str
) -> tuple[GameState, list[GameEvent]]:
    """A post the director confirmed breaks 变羊/石化's speech rule (RULINGS 096-16): every
    non-passive skill of its author gains 1 cooldown, for that one post."""
    if state.phase == OVER:
        raise GameOver()
    d = open_draft(state, rng, seconds(now))
    if pid not in d.players:
        raise UnknownPlayer(id=pid)
    p = d.p(pid)
    status = speech_status(p, day)
    if status is None:
        raise InvalidInput(
            "该角色当天不处于变羊或石化状态。",
            message_en="That player was neither a sheep nor stone that day.",
            reason="no speech status",
        )
    name = d.rs.status_names.get(status, status)
    for s in p.skills:
        sk = d.rs.skills[s]
        if sk.active and "被动" not in sk.tags and "开关" not in sk.tags:
            cooldown_add(d, pid, s, 1, f"发言违反{name}状态的限制")
    text = f"你的发言违反了{name}状态的限制（{SPEECH_RULES[status]}）：所有非被动技能冷却+1。"
    d.to(pid, "speech_penalty", {"text": text, "status": status})
    d.directors("speech_penalty", {"id": pid, "status": status, "day": day, "post": post})
    return d.finish(), d.events
