"""[096]'s damage flow steps and the undead: 五龙分威术 (step and joining a faction), 祝福/四叶草,
许愿 (the wished one's choice, effect 1 as step 2), 聚灵术, 招魂术 with 通灵术's list, 尸爆,
光明之魂, 净化洗礼, 腐化, 灵能, 虚体, 援护, 森林先知, 九星金光咒's undead count.

The night's changes are ops in ``effects["cn_undead"]`` (stage ``cn_undead``, after the damage
flow), applied at the publication (``night.APPLIERS``) before the eliminations: the 祝福 given
(不会连续两天生效), the 招魂术 and 净化洗礼 flips, 四叶草's first elf, and which damage put each
character out (``night["cn_outs_by"]``, read by the ``out`` hook for 光明之魂 and 九星金光咒).
The damage steps find who went out as the damages no step took: ``summon`` is the flow's last
step before ``out`` and records them in ``spent["outs"]``.

Choices made outside a night step are windows (``d.windows``): the wished one's 许愿 effect
(until the damages are final: the 招魂术 step's opening, at most ``choose_minutes_after_close``),
腐化 and 虚体 after a vote-out. A window missed is forfeited and the directors are told
(``steps.expire_window``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.engine.errors import InvalidInput

from .actions import UseSkill
from .conan import (
    AIM,
    CAUSE_DAMAGE,
    _check_bound,
    _check_use,
    aimed,
    flip,
    in_force,
    is_undead,
    register_damage_step,
    register_on_flip,
    relic_holder,
)
from .conan_relic import known, move
from .draft import Draft, open_draft
from .errors import InvalidTarget, SkillUsedUp, WindowClosed
from .hooks import register_hook
from .night import APPLIERS, STAGES, Hits, register_stage
from .outcomes import eliminate, open_window
from .ruleset import NightStep, Skill
from .skills import HANDLERS, WIDE, player, register_handler
from .state import CAUSE_VOTE, NIGHT, Player
from .steps import expire_window, put_sub, subs

KEY = "cn_undead"  # the night's ops, in ``effects``
CAUSE_LIGHT_SOUL = "光明之魂"
Op = list[Any]


def _settling(d: Draft) -> bool:
    """A night is being played or settled (its draft, or its publication)."""
    return bool(d.night) or d.phase == NIGHT


def _sp(d: Draft, skill: str) -> dict[str, Any]:
    return dict(d.rs.skills[skill].params)


def _fname(d: Draft, faction: str) -> str:
    return d.rs.factions[faction].name


def _tell(d: Draft, pid: int, kind: str, text: str, **facts: Any) -> None:
    """Private feedback given at once (not through the night's draft), kept in the view."""
    entry = {"kind": kind, "text": text, **facts}
    d.to(pid, "feedback", entry)
    w = d.wp(pid)
    w.flags["feedback"] = [*w.flags.get("feedback", []), {**entry, "day": d.day}]


def _feedback(ctx: dict[str, Any], pid: int, kind: str, text: str, **facts: Any) -> None:
    """Feedback of the night's draft (told at the day's open)."""
    ctx["feedback"].setdefault(str(pid), []).append({"kind": kind, "text": text, **facts})


def _subs_alive(d: Draft, skill: str) -> list[tuple[int, int]]:
    """Tonight's (actor, target) of ``skill``, of actors still in the game."""
    return [
        (int(a), int(t))
        for a, t in subs(d, skill).items()
        if t is not None and d.p(int(a)).alive and skill in d.p(int(a)).skills
    ]


def _submitted(d: Draft, p: Player, sk: Skill, text: str, **facts: Any) -> None:
    d.to(p.id, "submitted", {"skill": sk.key, "name": sk.name, "text": text, **facts}, p.id)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, **facts}, p.id)


def curses_add(d: Draft, why: str) -> None:
    """圣物诅咒次数+1 (光明之魂, 灵能); nobody is told (RULINGS 096-15/16)."""
    relic = dict(d.flags.get("relic") or {})
    start = int(_sp(d, "relic_curse").get("count", 0))
    relic["curses"] = int(relic.get("curses", start)) + 1
    d.set_flag("relic", relic)
    d.note(why, f"【{why}】：圣物诅咒次数+1（现为{relic['curses']}）。")
    d.directors("relic_curses", {"curses": relic["curses"], "why": why})


# --- 援护: skills aimed at a role count as aimed at the 魔像 ---------------------------------


def _role_key(d: Draft, option: str | None) -> str | None:
    if option is None:
        return None
    if option in d.rs.roles:
        return option
    return next((k for k, r in d.rs.roles.items() if r.name == option), None)


def _cover(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """援护：<限定> 选择一种身份 (the option: a role's key or name), 即刻起当晚所有指向此身份的
    技能均视为指向魔像 — what was submitted before it stands as it was."""
    role = _role_key(d, a.option)
    if a.targets or role is None:
        raise InvalidInput(
            "援护须选择一种身份。",
            message_en="援护 names a role, not a player.",
            reason="a role, no target",
        )
    _check_use(d, p, sk)
    if role not in _sp(d, "entangle").get("roles", ["dryad"]):
        _check_bound(d, p, ())
    put_sub(d, sk.key, p.id, p.id)
    before = {"subs": d.night.get("subs", {}), "wide": d.night.get("cn_wide", {})}
    d.set_night(cn_cover={"golem": p.id, "role": role, "before": before})
    d.wp(p.id).used[sk.key] = 1
    name = d.rs.roles[role].name
    _submitted(d, p, sk, f"已发动【援护】：{name}。", option=role)


WIDE["cn_cover"] = _cover


def _cover_aim(d: Draft, skill: str, actor: int, target: int) -> int:
    cover = d.night.get("cn_cover")
    if not cover or skill == "cover":
        return target
    golem = int(cover["golem"])
    if target == golem or d.p(target).role != cover["role"] or not d.p(golem).alive:
        return target
    before = cover["before"]
    same = before["subs"].get(skill, {}).get(str(actor), -1) == subs(d, skill).get(str(actor))
    same = same and before["wide"].get(f"{skill}:{actor}") == d.night.get("cn_wide", {}).get(
        f"{skill}:{actor}"
    )
    return target if same else golem


AIM.append(_cover_aim)


# --- 祝福, 四叶草 -------------------------------------------------------------------------------


@register_handler("cn_bless")
def _bless(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """祝福; 四叶草 keeps the order in which elves named the 独角兽 (the first is the earliest
    submission, RULINGS 096-6)."""
    HANDLERS["cn_pick"](d, p, sk, target, now)
    order = [int(x) for x in d.night.get("cn_clover", []) if int(x) != p.id]
    if d.p(target).role == _sp(d, "clover")["role"]:
        order.append(p.id)
    d.set_night(cn_clover=order)


def blessed(d: Draft) -> tuple[int | None, str]:
    """获得唯一最多祝福的角色 tonight, or None (a tie, no blessing, or the same one as last
    night: 此效果对同一角色不会连续两天生效 — then nobody, RULINGS 096-6); and the trace line."""
    counts: dict[int, int] = {}
    for actor, target in _subs_alive(d, "bless"):
        t = aimed(d, "bless", actor, target)
        counts[t] = counts.get(t, 0) + 1
    if not counts:
        return None, "今晚无人被祝福。"
    top = max(counts.values())
    tops = [t for t, n in counts.items() if n == top]
    if len(tops) > 1:
        names = "、".join(d.name(t) for t in tops)
        return None, f"{names}同为最多祝福（{top}），没有唯一最多祝福的角色，【祝福】不生效。"
    t = tops[0]
    if d.flags.get("cn_blessed") == [t, d.day - 1]:
        return None, f"{d.name(t)}获得唯一最多祝福（{top}），但昨晚已生效，今晚不生效。"
    return t, f"{d.name(t)}获得唯一最多祝福（{top}），当晚免疫一次伤害。"


def _clover(d: Draft, ctx: dict[str, Any], ops: list[Op]) -> None:
    """四叶草：选择独角兽为祝福对象时，得到反馈【独角兽】。全场第一个触发此效果的精灵身份会被
    独角兽得知."""
    unicorn_role = _sp(d, "clover")["role"]
    triggered = [
        (a, t)
        for a, t in _subs_alive(d, "bless")
        if "clover" in d.p(a).skills and d.p(t).role == unicorn_role
    ]
    role_name = d.rs.roles[unicorn_role].name
    for actor, target in triggered:
        text = f"【四叶草】：{d.name(target)}是【{role_name}】。"
        _feedback(ctx, actor, "clover", text, target=target, target_name=d.name(target))
    if not triggered or d.flags.get("cn_clover_first") is not None:
        return
    order = [int(x) for x in d.night.get("cn_clover", [])]
    mine = {a for a, _ in triggered}
    first = next((a for a in order if a in mine), triggered[0][0])
    ops.append(["clover_first", first])
    elf = d.rs.roles[d.p(first).role].name
    for unicorn in sorted({t for _, t in triggered}):
        text = f"【四叶草】：全场第一个祝福你的是{d.name(first)}，其身份是【{elf}】。"
        _feedback(ctx, unicorn, "clover", text, target=first, target_name=d.name(first))
    d.note("四叶草", f"{d.name(first)}是全场第一个触发四叶草的精灵，独角兽得知。", actor=first)


# --- 许愿 and the wished one's choice ---------------------------------------------------------


@register_handler("cn_wish")
def _wish(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """许愿：<角色> (once per character); not on the 灯神 itself unless 契约解除 (觉醒: 许愿始终可以
    对灯神自己发动). The wished one is asked at once to choose one of the three effects."""
    done = [int(t) for t in p.flags.get("wished", [])]
    if target in done:
        raise InvalidTarget(
            "许愿对每名角色只能发动一次。",
            message_en="许愿 is used once on each player.",
            reason="once per character",
        )
    release = d.rs.skills["contract_release"]
    if target == p.id and not (release.key in p.skills and in_force(d, p, release)):
        raise InvalidTarget(
            "许愿不能对自己发动。", message_en="许愿 cannot name the 灯神 itself.", reason="self"
        )
    HANDLERS["cn_pick"](d, p, sk, target, now)
    d.wp(p.id).flags["wished"] = [*done, target]
    until = (d.closed_at or now) + int(sk.params.get("choose_minutes_after_close", 60)) * 60
    entry = {"skill": "wish_effect", "actor": target, "until": until, "by": p.id}
    kept = [w for w in d.windows if (w["skill"], w["actor"]) != ("wish_effect", target)]
    d.windows = (*kept, entry)
    text = (
        "你被【许愿】选中，请从如下效果中选择一项执行：1：当晚免疫一次伤害。"
        "2：选择获知一名角色的当前所属阵营。3：选择一名角色，若其持有亡灵圣物，获得之。"
    )
    payload = {"skill": "wish_effect", "name": sk.name, "until": until, "text": text}
    d.to(target, "window_open", payload)


def _take_window(d: Draft, pid: int, skill: str, now: float) -> dict[str, Any]:
    for w in d.windows:
        if w["actor"] == pid and w["skill"] == skill and now <= w["until"]:
            return w
    raise WindowClosed(skill=skill)


def _drop(d: Draft, w: dict[str, Any]) -> None:
    d.windows = tuple(x for x in d.windows if x is not w)


def _one_target(d: Draft, a: UseSkill) -> int:
    if len(a.targets) != 1:
        raise InvalidInput("请选择一名角色。", message_en="Choose one player.", reason="one target")
    t = player(d, a.targets[0])
    if not t.alive:
        raise InvalidTarget(reason="out")
    return t.id


def _wish_effect(d: Draft, p: Player, sk: Skill, w: dict[str, Any], a: UseSkill) -> None:
    """1：当晚免疫一次伤害 (damage flow step 2, RULINGS 096-5). 2：选择获知一名角色的当前所属
    阵营. 3：选择一名角色，若其持有亡灵圣物，获得之 (the holder moves; the chooser is told)."""
    if a.option not in ("1", "2", "3"):
        raise InvalidInput(
            "请选择许愿的效果：1、2或3。",
            message_en="Choose the wish's effect: 1, 2 or 3.",
            reason="option 1, 2 or 3",
        )
    effect = int(a.option)
    if effect == 1 and a.targets:
        raise InvalidInput(
            "效果1不选择角色。", message_en="Effect 1 names no player.", reason="no target"
        )
    target = None if effect == 1 else _one_target(d, a)
    _drop(d, w)
    wishes = dict(d.night.get("cn_wish", {}))
    wishes[str(p.id)] = {"effect": effect, "by": w.get("by"), "target": target}
    d.set_night(cn_wish=wishes)
    facts = {"option": a.option} | ({} if target is None else {"target": target})
    if target is None:
        _submitted(d, p, sk, "你选择了许愿效果1：当晚免疫一次伤害。", **facts)
        return
    name = d.name(target)
    _submitted(d, p, sk, f"你选择了许愿效果{effect}：{name}。", **facts)
    if effect == 2:
        faction = _fname(d, d.p(target).faction)
        _tell(d, p.id, "wish", f"【许愿】：{name}当前属于【{faction}】。", target=target)
        return
    if relic_holder(d) == target:
        # The relic's own move: 认主's count restarts, and from the 灯神 (全知) it curses.
        move(d, p.id, "许愿")
        d.note("许愿", f"{p.name}以许愿效果3从{name}处获得亡灵圣物。")
        d.directors("relic_moved", {"from": target, "to": p.id, "why": "许愿"})
        _tell(d, p.id, "wish", f"【许愿】：你从{name}处获得了亡灵圣物。", target=target)
        known(d, p.id, True, sk.name)
    else:
        _tell(d, p.id, "wish", f"【许愿】：{name}没有持有亡灵圣物。", target=target)


def _corrupt(d: Draft, p: Player, sk: Skill, w: dict[str, Any], a: UseSkill) -> None:
    """腐化：当腐尸因投票出局时，选择一名角色，若该角色属于生灵，翻转其身份."""
    if a.option is not None:
        raise InvalidInput(
            "这个技能没有可选项。", message_en="This skill takes no option.", reason="no option"
        )
    target = _one_target(d, a)
    _drop(d, w)
    _submitted(d, p, sk, f"已选择【腐化】的目标：{d.name(target)}。", target=target)
    if not is_undead(d, target):
        flip(d, target, sk.name)
    else:
        d.note(sk.name, f"{d.name(target)}属于亡灵，【腐化】无效。")


def _ethereal(d: Draft, p: Player, sk: Skill, w: dict[str, Any], a: UseSkill) -> None:
    """虚体：恶灵因投票出局时，可明示身份。若如此做，其视为出局，但仍保留发言权和投票权
    (``flags["ethereal"]``, for the shell's speech and vote)."""
    if a.targets or a.option is not None:
        raise InvalidInput(
            "明示身份不选择角色。",
            message_en="Showing the role names no player.",
            reason="no target",
        )
    _drop(d, w)
    d.wp(p.id).flags["ethereal"] = True
    shown = [int(i) for i in d.flags.get("shown_roles", [])]
    d.set_flag("shown_roles", [*shown, p.id])
    text = d.rs.text("ethereal", name=p.name, role=d.role_name(p.id))
    d.public("ethereal", {"text": text, "id": p.id})
    d.directors("submitted", {"actor": p.id, "skill": sk.key}, p.id)


Choice = Callable[[Draft, Player, Skill, dict[str, Any], UseSkill], None]
CHOICES: dict[str, Choice] = {
    "wish_effect": _wish_effect,
    "corrupt": _corrupt,
    "ethereal": _ethereal,
}


def _choice(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    CHOICES[sk.key](d, p, sk, _take_window(d, p.id, sk.key, now), a)


WIDE["cn_undead_choice"] = _choice


# --- 净化洗礼 -------------------------------------------------------------------------------


def _baptism(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """净化洗礼：<限定> 得知场上亡灵数量，然后选择一名角色. With no target the 独角兽 only
    learns the count (the skill is then spent, chosen or not, at the night's end); the target
    may follow the same night. 如果是亡灵，此角色翻转身份，然后失去所有技能 (at the night's
    settlement)."""
    if a.option is not None or len(a.targets) > 1:
        raise InvalidInput(
            "净化洗礼至多选择一名角色。",
            message_en="净化洗礼 names one player at most.",
            reason="0-1 targets",
        )
    _check_use(d, p, sk)
    asked = p.flags.get("cn_baptism_asked")
    if asked is not None and asked != d.day:
        raise SkillUsedUp(skill=sk.key)
    target = _one_target(d, a) if a.targets else None
    if target is not None:
        _check_bound(d, p, (target,))
    if asked is None:
        n = sum(1 for q in d.living() if is_undead(d, q.id))
        d.wp(p.id).flags["cn_baptism_asked"] = d.day
        _tell(d, p.id, "baptism", f"【净化洗礼】：场上亡灵数量为{n}。", count=n)
    if target is None:
        d.directors("submitted", {"actor": p.id, "skill": sk.key, "asked": True}, p.id)
        return
    put_sub(d, sk.key, p.id, target)
    d.wp(p.id).used[sk.key] = 1
    _submitted(d, p, sk, f"已选择【净化洗礼】的目标：{d.name(target)}。", target=target)


WIDE["cn_baptism"] = _baptism


# --- 招魂术 and 通灵术 ----------------------------------------------------------------------


def provisional_outs(d: Draft) -> list[int]:
    """Who would go out tonight as things stand: the settlement run on a scratch copy (its
    randomness a copy of the seed's state, which stays untouched)."""
    rng = random.Random()  # a copy of d.rng's state: the game's own draws stay as they were
    rng.setstate(d.rng.getstate())
    scratch = open_draft(d.finish(), rng)
    effects: dict[str, Any] = {"used": [], "love": [], "protect": [], "longevity": []}
    ctx: dict[str, Any] = {"protected": set(), "effects": effects, "feedback": {}}
    hits: Hits = []
    for stage in scratch.rs.settlement:
        STAGES[stage](scratch, ctx, hits)
    return list(dict.fromkeys(int(h[0]) for h in hits))


@register_hook("cn_undead_step_open")
def _step_open(d: Draft, step: NightStep) -> None:
    """The 招魂术 step opens once the damages are final: the wished ones' choices close, and
    通灵术 (每晚获得当晚即将出局角色的名单) tells the 死灵法师 who is about to go out."""
    if "summon" not in step.skills:
        return
    for w in [w for w in d.windows if w["skill"] == "wish_effect"]:
        expire_window(d, w)
    outs = provisional_outs(d)
    d.set_night(cn_commune=outs)
    names = "、".join(d.name(t) for t in outs) or "无人"
    name = d.rs.skills["commune"].name
    for p in d.living():
        if "commune" in p.skills and not p.idle:
            targets = [{"id": t, "name": d.name(t)} for t in outs]
            text = f"【{name}】：今晚即将出局的角色：{names}。"
            d.to(p.id, "sense", {"skill": name, "targets": targets, "text": text})
            d.note(name, f"{p.name}得知今晚即将出局的角色：{names}。", actor=p.id)


@register_handler("cn_summon")
def _summon(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """招魂术：<限定> 选择一名当晚即将出局的角色 (one of 通灵术's list)."""
    if target not in [int(t) for t in d.night.get("cn_commune", [])]:
        raise InvalidTarget(
            "招魂术须选择一名当晚即将出局的角色。",
            message_en="招魂术 names a player about to go out tonight.",
            reason="not going out",
        )
    HANDLERS["cn_pick"](d, p, sk, target, now)
    d.wp(p.id).used[sk.key] = 1


# --- the damage flow's steps ------------------------------------------------------------------


@register_damage_step("five_dragons")
def _step_five_dragons(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """五龙分威术：<被动> 第一天夜晚免疫所有伤害."""
    t = dmg["target"]
    nights = _sp(d, "five_dragons").get("immune_nights", [1])
    if "five_dragons" in d.p(t).skills and d.day in nights:
        d.note(dmg["line"], f"{d.name(t)}【五龙分威术】：第一天夜晚免疫所有伤害。", target=t)
        return True
    return False


@register_damage_step("bless")
def _step_bless(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """(1) 如果该角色当夜受到【祝福】作用，此次伤害无效，【祝福】效应终止."""
    t = dmg["target"]
    if "bless" not in spent:
        spent["bless"] = blessed(d)[0]
    if spent["bless"] == t and not spent.get("bless_spent"):
        spent["bless_spent"] = True
        d.note(dmg["line"], f"{d.name(t)}受到【祝福】作用，此次伤害无效，【祝福】效应终止。")
        return True
    return False


@register_damage_step("wish_immune")
def _step_wish_immune(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """(2) 如果该角色当夜受到【许愿】效果作用 (效果1, RULINGS 096-5)，此次伤害无效，【许愿】效应
    终止."""
    t = dmg["target"]
    wish = d.night.get("cn_wish", {}).get(str(t))
    done: set[int] = spent.setdefault("wish_spent", set())
    if wish and wish["effect"] == 1 and t not in done:
        done.add(t)
        d.note(dmg["line"], f"{d.name(t)}受到【许愿】作用，此次伤害无效，【许愿】效应终止。")
        return True
    return False


@register_damage_step("gather_spirit")
def _step_gather_spirit(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """(3) 如果该角色是死灵法师，此伤害为当晚受到的首次伤害，此次伤害无效 (the first whatever
    voided it, RULINGS 096-10: the core's ``first``)."""
    t = dmg["target"]
    if "gather_spirit" in d.p(t).skills and dmg["first"]:
        d.note(dmg["line"], f"{d.name(t)}【聚灵术】：当晚受到的首次伤害，此次伤害无效。")
        return True
    return False


def _summoned(d: Draft) -> set[int]:
    return {t for _, t in _subs_alive(d, "summon")}


@register_damage_step("summon")
def _step_summon(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """(6) 如果该角色属于生灵，且当夜成为【招魂术】目标，该角色不出局且翻转身份. A damage that
    passes this step is an out: it is kept for the ``cn_undead`` stage."""
    t = dmg["target"]
    if t in _summoned(d) and not is_undead(d, t):
        spent.setdefault("summoned", [])
        if t not in spent["summoned"]:
            spent["summoned"].append(t)
        d.note(dmg["line"], f"{d.name(t)}是【招魂术】的目标且属于生灵，不出局，翻转身份。")
        return True
    spent.setdefault("outs", []).append(
        {**dmg, "actor_undead": is_undead(d, dmg["actor"]), "target_undead": is_undead(d, t)}
    )
    return False


# --- the night's ops --------------------------------------------------------------------------


@register_stage("cn_undead")
def _stage(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    """After the damage flow: 祝福's record, 四叶草, 森林先知, 净化洗礼, 招魂术's flips, and who
    went out by which damage."""
    spent = ctx.get("cn", {})
    ops: list[Op] = ctx["effects"].setdefault(KEY, [])
    target, line = blessed(d)
    d.note("祝福", line)
    if target is not None:
        ops.append(["blessed", target])
    _clover(d, ctx, ops)
    seer = _sp(d, "forest_seer")
    for actor, chosen in _subs_alive(d, "forest_seer"):
        t = aimed(d, "forest_seer", actor, chosen)
        word = seer["answers"].get(d.p(t).faction, seer["other"])
        text = f"【森林先知】：{d.name(chosen)}——【{word}】。"
        _feedback(ctx, actor, "forest_seer", text, target=chosen, target_name=d.name(chosen))
        d.note("森林先知", f"{d.name(actor)}查验{d.name(chosen)}：【{word}】。", actor=actor)
    for actor, chosen in _subs_alive(d, "baptism"):
        t = aimed(d, "baptism", actor, chosen)
        if is_undead(d, t):
            ops.append(["baptism", t])
            d.note("净化洗礼", f"{d.name(t)}是亡灵：翻转身份，然后失去所有技能。", target=t)
        else:
            d.note("净化洗礼", f"{d.name(t)}不是亡灵，【净化洗礼】无效。", target=t)
    for t in spent.get("summoned", []):
        ops.append(["summon", t])
    outs = {
        str(x["target"]): {
            "skill": x["skill"],
            "actor": x["actor"],
            "actor_undead": x["actor_undead"],
            "target_undead": x["target_undead"],
        }
        for x in spent.get("outs", [])
    }
    ops.append(["outs_by", outs])


def _apply(d: Draft, ops: list[Op]) -> None:
    for op in ops:
        kind = op[0]
        if kind == "blessed":
            d.set_flag("cn_blessed", [int(op[1]), d.day])
        elif kind == "clover_first":
            d.set_flag("cn_clover_first", int(op[1]))
        elif kind == "outs_by":
            d.set_night(cn_outs_by=op[1])
        elif kind == "summon":
            flip(d, int(op[1]), "招魂术")
        elif kind == "baptism":
            t = int(op[1])
            if flip(d, t, "净化洗礼"):
                d.wp(t).skills = ()
                d.to(t, "skills_lost", {})


APPLIERS[KEY] = _apply


@register_hook("cn_undead_night_end")
def _night_end(d: Draft) -> None:
    """净化洗礼 asked (the count learned) but no target chosen: the <限定> skill is spent."""
    for p in d.players.values():
        if p.flags.get("cn_baptism_asked") == d.day and not p.used.get("baptism"):
            d.wp(p.id).used["baptism"] = 1


@register_hook("cn_undead_night_open")
def _night_open(d: Draft) -> None:
    return None


@register_hook("cn_undead_day_open")
def _day_open(d: Draft) -> None:
    return None


# --- on an out ---------------------------------------------------------------------------------


def neighbours(d: Draft, pid: int) -> list[int]:
    """电梯楼临近两名角色: the day's order as a circle (``flags["elevator"]``, else by id),
    skipping those out (RULINGS 096-13); 正向 (down the list) first."""
    order = [int(i) for i in d.flags.get("elevator") or []] or sorted(d.players)
    if pid not in order:
        return []
    i = order.index(pid)
    found: list[int] = []
    for way in (1, -1):
        for k in range(1, len(order)):
            q = order[(i + way * k) % len(order)]
            if q != pid and d.p(q).alive:
                if q not in found:
                    found.append(q)
                break
    return found


@register_hook("cn_undead_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    """九星金光咒 putting an 亡灵 out; 光明之魂 (the 独角兽 killed by an 亡灵); 尸爆 (a 瘟疫尸
    out at night); 腐化 and 虚体's windows after a vote-out; 五龙分威术's joining."""
    p = d.p(pid)
    by = (d.night.get("cn_outs_by") or {}).get(str(pid)) if cause == CAUSE_DAMAGE else None
    if by and by["skill"] == "nine_stars" and by["target_undead"]:
        n = int(d.flags.get("cn_nine_star_undead", 0)) + 1
        d.set_flag("cn_nine_star_undead", n)
        d.note("九星金光咒", f"【九星金光咒】造成亡灵{p.name}出局（共{n}名）。", target=pid)
    if by and by["actor_undead"] and "light_soul" in p.skills:
        curses_add(d, d.rs.skills["light_soul"].name)
    if night and "burst" in p.skills:
        for q in neighbours(d, pid):
            if d.winner is None and not is_undead(d, q):
                d.note("尸爆", f"{p.name}的【尸爆】：{d.name(q)}翻转为瘟疫尸。", target=q)
                flip(d, q, d.rs.skills["burst"].name, to=str(_sp(d, "burst")["to"]))
    if cause == CAUSE_VOTE and not night:
        for skill in ("corrupt", "ethereal"):
            if skill in p.skills:
                open_window(d, pid, skill, night=False)
    _join(d)


def _join(d: Draft) -> None:
    """五龙分威术：首次有非亡灵阵营全部出局后 (no living character belongs to it), 驱魔人加入该
    阵营 — at once, before that moment's win check; the first such faction only (RULINGS
    096-12)."""
    if d.flags.get("cn_wiped") is not None:
        return
    factions = _sp(d, "five_dragons")["factions"]
    living = {p.faction for p in d.living()}
    wiped = next((f for f in factions if f not in living), None)
    if wiped is None:
        return
    d.set_flag("cn_wiped", wiped)
    for p in list(d.players.values()):
        if "five_dragons" in p.skills:
            d.wp(p.id).faction = wiped
            name = _fname(d, wiped)
            d.note("五龙分威术", f"{name}全部出局，{p.name}加入{name}。")
            _tell(d, p.id, "five_dragons", f"【五龙分威术】：{name}已全部出局，你加入{name}。")


# --- on a flip ---------------------------------------------------------------------------------


@register_on_flip("light_soul", before=True)
def _flip_light_soul(d: Draft, pid: int, old: str, why: str) -> None:
    """光明之魂：独角兽在翻转身份前立刻出局。独角兽因为此效果出局…时，圣物诅咒次数+1."""
    if "light_soul" not in d.p(pid).skills:
        return
    name = d.rs.skills["light_soul"].name
    d.note(name, f"{d.name(pid)}即将翻转身份（{why}），【{name}】：立刻出局。", target=pid)
    eliminate(d, pid, CAUSE_LIGHT_SOUL, night=_settling(d))
    curses_add(d, name)


@register_on_flip("spirit")
def _flip_spirit(d: Draft, pid: int, old: str, why: str) -> None:
    """灵能：恶灵诞生时，亡灵圣物的诅咒次数+1."""
    if "spirit" in d.p(pid).skills and "spirit" not in d.rs.roles[old].skills:
        curses_add(d, d.rs.skills["spirit"].name)


@register_on_flip("five_dragons_join")
def _flip_join(d: Draft, pid: int, old: str, why: str) -> None:
    """A flip can leave a faction without a living member too (RULINGS 096-12)."""
    _join(d)


@register_hook("cn_undead_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    """The player's own: 虚体 shown (still speaks and votes), 通灵术's list of tonight."""
    mine: dict[str, Any] = {"ethereal": bool(p.flags.get("ethereal"))}
    if "commune" in p.skills and "cn_commune" in d.night:
        mine["commune"] = [{"id": t, "name": d.name(t)} for t in d.night["cn_commune"]]
    view["conan_undead"] = mine
    return view
