"""[096] 名侦探柯南's own handlers: the 共群 groups, cooldowns, the flip 生灵 ↔ 亡灵, the damage
flow (伤害结算流程) and the wins checked in real time. The numbers, names and orders are the
ruleset's data (``werewolf/rulesets/conan_096.json``); what a step of the damage flow or a flip
does is a small handler registered here by the name the data gives.

State kept per player: ``counters["hp"]`` (树妖/魔像), ``counters["cd:<skill>"]`` (days of
cooldown left), ``flags["groups"]`` (the groups it is in), ``flags["living"]`` ({role,
faction} of its 生灵 identity once flipped). Per night: ``night["cn_damage"]`` is not kept —
the damages are read from the submissions at settlement, in step order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.engine.errors import InvalidInput
from games.engine.rooms import RoomSpec

from . import victory
from .actions import UseSkill
from .draft import Draft
from .errors import InvalidTarget, NotYourSkill, StepClosed, StepNotOpen, WindowClosed
from .hooks import register_hook
from .night import APPLIERS, Hits, register_stage
from .ruleset import CHECKS, Condition, Ruleset, RulesetError, Skill, get_ruleset
from .skills import HANDLERS, WIDE, player, register_handler
from .state import DAY, NIGHT, GameState, Player
from .steps import put_sub, subs

CAUSE_DAMAGE = "伤害"
CD = "cd:"


class SkillCooling(StepClosed):
    code = "skill_cooling"
    message = "这个技能正在冷却中。"
    message_en = "This skill is cooling down."


class SkillLocked(NotYourSkill):
    code = "skill_locked"
    message = "这个技能尚未生效（需要持有亡灵圣物，或尚未觉醒）。"
    message_en = "This skill is not in force (it needs the relic, or awakening)."


def _params(d: Draft) -> dict[str, Any]:
    return dict(d.rs.params)


def undead_faction(rs: Ruleset) -> str:
    return str(rs.params["undead_faction"])


def is_undead(d: Draft, pid: int) -> bool:
    return d.p(pid).faction == undead_faction(d.rs)


# --- groups (共群) ------------------------------------------------------------------------------


def groups_of(p: Player) -> list[str]:
    return [str(g) for g in p.flags.get("groups", [])]


def members(d: Draft, group: str, *, acting: bool = False) -> list[int]:
    """A group's members, the dead included (the portal shows them); ``acting``: those who may
    still act for it (alive, not 挂机: 有群的角色从自已所在的群中立即移除)."""
    return [
        p.id
        for p in d.players.values()
        if group in groups_of(p) and (not acting or (p.alive and not p.idle))
    ]


@register_hook("cn_rooms")
def _rooms(state: GameState) -> list[RoomSpec]:
    """Each 共群 group (游侠群, 狼群, 活尸群) as its members stand: a flip, an out or 挂机 has
    already taken the player out of the group (``_leave_groups``), so the room follows."""
    rs = get_ruleset(state.ruleset)
    specs = []
    for key, group in rs.groups.items():
        members = frozenset(p.id for p in state.players.values() if key in groups_of(p))
        if members:
            specs.append(RoomSpec(f"group:{key}", "team", str(group["name"]), members))
    return specs


def group_of_skill(d: Draft, p: Player, skill: str) -> str | None:
    return next((g for g in groups_of(p) if skill in d.rs.groups[g].get("skills", [])), None)


@register_hook("cn_deal")
def _deal(d: Draft) -> None:
    """Each dealt role's group and starting HP (树妖 1, 魔像 1)."""
    hp = dict(_params(d).get("hp_roles", {}))
    for p in d.players.values():
        role = d.rs.roles[p.role]
        w = d.wp(p.id)
        w.flags["groups"] = [role.group] if role.group else []
        if p.role in hp:
            w.counters["hp"] = int(hp[p.role])


def _leave_groups(d: Draft, pid: int) -> list[str]:
    left = groups_of(d.p(pid))
    d.wp(pid).flags["groups"] = []
    for g in left:
        d.directors("left_group", {"id": pid, "group": g})
    return left


@register_hook("cn_idle")
def _idle(d: Draft, pid: int) -> None:
    """挂机: 有群的角色从自已所在的群中立即移除 (it stays in the game and targetable)."""
    _leave_groups(d, pid)
    awaken(d)


@register_hook("cn_out")
def _out(d: Draft, pid: int, cause: str, night: bool) -> None:
    """出局: 已经出局的有群的角色从自已所在的群中立即移除; a group skill that frees itself when
    one of its members goes out does (撕咬：每当狼人群内有角色出局时，该技能解除冷却); 觉醒."""
    for g in _leave_groups(d, pid):
        for s in d.rs.groups[g].get("skills", []):
            if not d.rs.skills[s].params.get("free_on_member_out"):
                continue
            for m in members(d, g):
                if cooldown(d.p(m), s) > 0:
                    cooldown_clear(d, m, s, "狼人群内有角色出局")
            if d.night:  # settled at the night's end, after tonight's use: free it after that
                d.set_night(cn_freed=[*d.night.get("cn_freed", []), s])
    awaken(d)


def awaken(d: Draft) -> None:
    """<觉醒>技能在成为高塔阵营最后一人时解锁 (RULINGS 096-4: the only one still in 高塔 and not
    out, 挂机 counting; notified once; it stays unlocked), and 暴走 raises the 魔像's HP to 3."""
    faction = _params(d).get("awaken_faction")
    if faction is None:
        return
    left = [p for p in d.players.values() if p.alive and p.faction == faction]
    if len(left) != 1 or left[0].flags.get("awakened"):
        return
    p = d.wp(left[0].id)
    p.flags["awakened"] = True
    names = [d.rs.skills[s].name for s in p.skills if "觉醒" in d.rs.skills[s].tags]
    text = f"你成为{d.rs.factions[faction].name}最后一人，<觉醒>技能解锁：" + "、".join(
        f"【{n}】" for n in names
    ) + "。" if names else f"你成为{d.rs.factions[faction].name}最后一人。"  # fmt: skip
    d.to(p.id, "awakened", {"text": text, "skills": names})
    d.note("觉醒", f"{p.name}成为{d.rs.factions[faction].name}最后一人，觉醒。", target=p.id)
    for s in p.skills:
        hp = d.rs.skills[s].params.get("hp")
        if "觉醒" in d.rs.skills[s].tags and hp is not None:
            p.counters["hp"] = max(int(hp), p.counters.get("hp", 0))


# --- cooldowns (<冷却：X>) ------------------------------------------------------------------------


def cooldown(p: Player, skill: str) -> int:
    return p.counters.get(CD + skill, 0)


def mark_triggered(d: Draft, pid: int, skill: str) -> None:
    """A passive with a cooldown fired tonight (龙鳞): it does not recover at this night's end
    (夜晚结束时，处于冷却且没有发动/触发的技能恢复1冷却)."""
    d.set_night(cn_triggered=[*d.night.get("cn_triggered", []), [pid, skill]])


def cooldown_add(d: Draft, pid: int, skill: str, days: int, why: str) -> None:
    """The skill enters (or stays longer in) cooldown; entering is notified (技能进入冷却与解除
    冷却都会有通知)."""
    if days <= 0 or skill not in d.p(pid).skills:
        return
    before = cooldown(d.p(pid), skill)
    d.wp(pid).counters[CD + skill] = before + days
    name = d.rs.skills[skill].name
    if before == 0:
        text = f"【{name}】进入冷却（{before + days}天）。"
        d.to(pid, "cooldown", {"skill": skill, "days": before + days, "on": True, "text": text})
    d.note("冷却", f"{d.name(pid)}的【{name}】冷却+{days}（{why}）。", target=pid, skill=skill)


def cooldown_clear(d: Draft, pid: int, skill: str, why: str) -> None:
    """The skill leaves cooldown at once (解除冷却), notified."""
    if cooldown(d.p(pid), skill) <= 0:
        return
    w = d.wp(pid)
    del w.counters[CD + skill]
    name = d.rs.skills[skill].name
    text = f"【{name}】解除冷却。"
    d.to(pid, "cooldown", {"skill": skill, "days": 0, "on": False, "text": text})
    d.note("冷却", f"{d.name(pid)}的【{name}】解除冷却（{why}）。", target=pid, skill=skill)


def _cooldown_set(d: Draft, pid: int, skill: str, days: int, why: str) -> None:
    """At least ``days`` of cooldown (缠绕's penalty: 至少为1)."""
    now = cooldown(d.p(pid), skill)
    if days > now:
        cooldown_add(d, pid, skill, days - now, why)


def _cooldowns_recover(d: Draft, used: set[tuple[int, str]]) -> None:
    """夜晚结束时，处于冷却且没有发动/触发的技能恢复1冷却."""
    for p in list(d.players.values()):
        for key, left in list(p.counters.items()):
            if not key.startswith(CD) or left <= 0:
                continue
            skill = key[len(CD) :]
            if (p.id, skill) in used:
                continue
            w = d.wp(p.id)
            w.counters[key] = left - 1
            if left - 1 == 0:
                del w.counters[key]
                name = d.rs.skills[skill].name
                text = f"【{name}】解除冷却。"
                d.to(p.id, "cooldown", {"skill": skill, "days": 0, "on": False, "text": text})


# --- availability -------------------------------------------------------------------------------


def relic_holder(d: Draft) -> int | None:
    relic = d.flags.get("relic") or {}
    holder = relic.get("holder")
    return None if holder is None else int(holder)


def in_force(d: Draft, p: Player, sk: Skill) -> bool:
    """<圣物> skills hold only with the relic; <觉醒> ones once awakened (or, for 变羊术, with
    无限魔力's relic)."""
    if "圣物" in sk.tags and relic_holder(d) != p.id:
        return False
    if "觉醒" in sk.tags and not p.flags.get("awakened"):
        unlocked = sk.params.get("unlocked_by")
        holder = relic_holder(d) == p.id
        return bool(unlocked) and holder and unlocked in p.skills
    return True


@register_hook("cn_available")
def _available(d: Draft, p: Player, skill: str) -> bool:
    sk = d.rs.skills[skill]
    if cooldown(p, skill) > 0 or not in_force(d, p, sk):
        return False
    return not sk.by_day or d.phase == DAY


@register_hook("cn_refuse")
def _refuse(d: Draft, p: Player, sk: Skill) -> None:
    _check_use(d, p, sk)


def _check_use(d: Draft, p: Player, sk: Skill) -> None:
    if cooldown(p, sk.key) > 0:
        raise SkillCooling(skill=sk.key)
    if not in_force(d, p, sk):
        raise SkillLocked(skill=sk.key)


def _check_bound(d: Draft, p: Player, targets: tuple[int, ...]) -> None:
    """束缚: 主动技能目标必须包含“树妖”."""
    if p.statuses.get("bound", -1) < d.day:
        return
    dryads = {q.id for q in d.players.values() if q.role == "dryad"}
    if not dryads & set(targets):
        raise InvalidTarget(
            "你处于束缚状态：主动技能的目标必须包含树妖。",
            message_en="You are bound: an active skill's targets must include the 树妖.",
            reason="bound",
        )


# --- submissions --------------------------------------------------------------------------------


@register_handler("cn_pick")
def _pick(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """A night step's one target, after 096's own checks (cooldown, relic, awakening, 束缚,
    <角色>: 对每个角色只能发动一次)."""
    _check_use(d, p, sk)
    _check_bound(d, p, (target,))
    if "角色" in sk.tags and target in p.flags.get("targeted", {}).get(sk.key, []):
        raise InvalidTarget(
            f"【{sk.name}】对每个角色只能发动一次。",
            message_en=f"【{sk.name}】 is used once on each player.",
            reason="once per player",
        )
    HANDLERS["pick"](d, p, sk, target, now)


@register_handler("cn_team")
def _team(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """<团队>: any living, non-挂机 member submits for the group; the latest submission before
    the deadline stands and every member sees it (RULINGS 096-3). 藏匿 and 毒素箭 are submitted
    by day, before the close (21:00前)."""
    group = group_of_skill(d, p, sk.key)
    if group is None or p.idle:
        raise NotYourSkill(skill=sk.key)
    _check_use(d, p, sk)
    _check_bound(d, p, (target,))
    if sk.by_day:
        if d.phase != DAY or not _day_pick_open(d, p, sk):
            raise WindowClosed(skill=sk.key)
        if sk.key == "hide" and target in members(d, group):
            raise InvalidTarget(
                "藏匿须选择一名群外角色。",
                message_en="藏匿 names a player outside the pack.",
                reason="inside the pack",
            )
        picks = dict(d.flags.get("cn_day_picks") or {})
        picks[sk.key] = {"by": p.id, "target": target, "day": d.day, "group": group}
        d.set_flag("cn_day_picks", picks)
    else:
        for m in members(d, group, acting=True):
            if sk.key in d.p(m).skills:
                put_sub(d, sk.key, m, target)
    payload = {
        "skill": sk.key,
        "name": sk.name,
        "target": target,
        "target_name": d.name(target),
        "by": p.id,
        "by_name": p.name,
        # Every member reads who submitted (the submitter too): 代表 of the group.
        "text": f"{p.name}为{d.rs.groups[group]['name']}提交【{sk.name}】：{d.name(target)}。",
    }
    for m in members(d, group):
        d.to(m, "team_pick", payload, p.id)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)


def _day_pick_open(d: Draft, p: Player, sk: Skill) -> bool:
    """A by-day skill may be submitted today: 藏匿 only before the first night (第一日游戏夜晚
    之前), 毒素箭 any day."""
    before = sk.params.get("before_night")
    return before is None or d.day < int(before) + 1


def _team_wide(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """A <团队> pick that may name one more target while a group's rule holds (啃咬 with
    集群：当场上存活的活尸人数≥3时，啃咬可额外选择一名角色); the latest pick stands, as for
    ``cn_team``."""
    if a.option is not None:
        raise InvalidInput(
            "这个技能没有可选项。", message_en="This skill takes no option.", reason="no option"
        )
    extra = _extra_targets(d, p)
    targets = _targets(d, p, sk, a, 1, 1 + extra)
    if len(set(targets)) != len(targets):
        raise InvalidTarget(
            "不能重复选择同一名角色。", message_en="Name each player once.", reason="twice"
        )
    if d.phase != NIGHT or sk.step is None:
        raise StepNotOpen(step=sk.step)
    _team(d, p, sk, targets[0], now)
    d.set_night(cn_extra={**d.night.get("cn_extra", {}), sk.key: [p.id, *targets[1:]]})


def _extra_targets(d: Draft, p: Player) -> int:
    """How many more targets the player's passives allow tonight (集群's one)."""
    extra = 0
    for s in p.skills:
        need = d.rs.skills[s].params.get("ghouls")
        role = d.rs.skills[s].params.get("role", "ghoul")
        if need is not None and sum(1 for q in d.living() if q.role == role) >= int(need):
            extra += 1
    return extra


WIDE["cn_team_wide"] = _team_wide


def _targets(d: Draft, p: Player, sk: Skill, a: UseSkill, low: int, high: int) -> list[int]:
    if not low <= len(a.targets) <= high:
        raise InvalidInput(reason=f"{low}-{high} targets")
    found = []
    for t in a.targets:
        q = player(d, t)
        if not q.alive:
            raise InvalidTarget(reason="out")
        found.append(q.id)
    return found


def _wide_counts(sk: Skill) -> tuple[int, int]:
    return {"2": (2, 2), "1-2": (1, 2), "any": (1, 99)}.get(sk.targets, (1, 1))


def _wide(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """咒术 (two to chain), 龙息 (two once each, or one twice), 冥炎吐息 (any number)."""
    if a.option is not None:
        raise InvalidInput(
            "这个技能没有可选项。", message_en="This skill takes no option.", reason="no option"
        )
    _check_use(d, p, sk)
    low, high = _wide_counts(sk)
    targets = _targets(d, p, sk, a, low, high)
    if sk.key == "hex" and len(set(targets)) != 2:
        raise InvalidTarget(
            "咒术须选择两名不同的角色。",
            message_en="咒术 chains two different players.",
            reason="two players",
        )
    _check_bound(d, p, tuple(targets))
    if d.phase != NIGHT or sk.step is None:
        raise StepNotOpen(step=sk.step)
    put_sub(d, sk.key, p.id, targets[0])
    d.set_night(cn_wide={**d.night.get("cn_wide", {}), f"{sk.key}:{p.id}": targets})
    names = [d.name(t) for t in targets]
    d.to(p.id, "submitted", {"skill": sk.key, "name": sk.name, "targets": targets,
                             "target_names": names}, p.id)  # fmt: skip
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "targets": targets}, p.id)


WIDE["cn_wide"] = _wide


def wide_targets(d: Draft, skill: str, actor: int) -> list[int]:
    return [int(t) for t in d.night.get("cn_wide", {}).get(f"{skill}:{actor}", [])]


def _toggle(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """<开关>: switched on (option ``on``) or off (``off``) at any time, day or night; off by
    default. It names no target."""
    if a.targets or a.option not in ("on", "off"):
        raise InvalidInput(
            "开关技能只能选择开启或关闭。",
            message_en="A switch skill is turned on or off, nothing else.",
            reason="on or off",
        )
    toggle_set(d, p.id, sk.key, a.option == "on")


WIDE["cn_toggle"] = _toggle


def toggled(p: Player, skill: str) -> bool:
    return bool((p.flags.get("on") or {}).get(skill))


def toggle_set(d: Draft, pid: int, skill: str, on: bool) -> None:
    p = d.p(pid)
    if skill not in p.skills or "开关" not in d.rs.skills[skill].tags or not p.alive:
        raise NotYourSkill(skill=skill)
    w = d.wp(pid)
    w.flags["on"] = {**(p.flags.get("on") or {}), skill: on}
    name = d.rs.skills[skill].name
    text = f"已{'开启' if on else '关闭'}【{name}】。"
    d.to(pid, "toggled", {"skill": skill, "name": name, "on": on, "text": text}, pid)
    d.directors("toggled", {"actor": pid, "skill": skill, "on": on}, pid)


# --- the flip (翻转身份) --------------------------------------------------------------------------

FlipHandler = Callable[[Draft, int, str, str], None]
# What a flip sets off, by the names the ruleset lists in ``params.on_flip`` (光明之魂, 灵能 …):
# (d, pid, old role, why).
ON_FLIP: dict[str, FlipHandler] = {}
# Handlers run right before the flip instead of after it, with the role still unchanged
# (光明之魂: 独角兽在翻转身份前立刻出局); a character out by then does not flip.
BEFORE_FLIP: set[str] = set()


def register_on_flip(name: str, *, before: bool = False) -> Callable[[FlipHandler], FlipHandler]:
    def add(fn: FlipHandler) -> FlipHandler:
        ON_FLIP[name] = fn
        if before:
            BEFORE_FLIP.add(name)
        return fn

    return add


def flip(d: Draft, pid: int, why: str, *, to: str | None = None) -> bool:
    """翻转身份: 生灵 → its [亡灵身份] (亡灵阵营), or back. The character is told, loses every
    skill of its identity (their effects end: cooldowns, toggles), gains the other's; a 活尸
    keeps the team skills of its 生灵 identity (伪装). ``to``: a 生灵 flips to this undead role
    instead (尸爆: 翻转为[瘟疫尸]). False when the role has no 亡灵身份."""
    p = d.p(pid)
    if not p.alive:
        return False
    for name in _params(d).get("on_flip", []):
        if name in BEFORE_FLIP:
            ON_FLIP[name](d, pid, p.role, why)
    p = d.p(pid)
    if not p.alive:
        return False
    old = d.rs.roles[p.role]
    living = p.flags.get("living")
    if living is None:
        if old.undead is None and to is None:
            return False
        new = d.rs.roles[to or str(old.undead)]
        faction = new.faction
        back: dict[str, Any] | None = {"role": old.key, "faction": p.faction}
    else:
        new = d.rs.roles[str(living["role"])]
        faction = str(living["faction"])
        back = None
    kept = [s for s in p.skills if "团队" in d.rs.skills[s].tags and "disguise" in new.skills]
    w = d.wp(pid)
    w.role = new.key
    w.faction = faction
    w.skills = tuple(dict.fromkeys([*new.skills, *kept]))
    w.counters = {k: v for k, v in w.counters.items() if not k.startswith(CD) or k[3:] in kept}
    w.flags = {k: v for k, v in w.flags.items() if k not in ("on", "awakened")}
    groups = [g for g in groups_of(p) if any(s in kept for s in d.rs.groups[g].get("skills", []))]
    if new.group and new.group not in groups:
        groups.append(new.group)
    w.flags["groups"] = groups
    if back is None:
        w.flags.pop("living", None)
    else:
        w.flags["living"] = back
    d.to(pid, "flipped", {"role": new.key, "name": new.name, "skills": list(w.skills)})
    d.directors("flipped", {"id": pid, "from": old.key, "to": new.key, "why": why})
    d.note("翻转", f"{p.name}翻转身份：{old.name}→{new.name}（{why}）。", target=pid)
    for name in _params(d).get("on_flip", []):
        if name not in BEFORE_FLIP:
            ON_FLIP[name](d, pid, old.key, why)
    awaken(d)  # a 高塔 member flipped away may leave one last
    victory.check(d)
    return True


# --- the damage flow (伤害结算流程) ------------------------------------------------------------

# One step of the flow: True when it takes the damage (it is void, or it flips instead of an
# out); ``ctx`` holds the night's facts (blessed, wished, summoned…) and what was spent.
DamageStep = Callable[[Draft, dict[str, Any], dict[str, Any]], bool]
DAMAGE_STEPS: dict[str, DamageStep] = {}


def register_damage_step(name: str) -> Callable[[DamageStep], DamageStep]:
    def add(fn: DamageStep) -> DamageStep:
        DAMAGE_STEPS[name] = fn
        return fn

    return add


def _check_names(rs: Ruleset) -> None:
    if rs.key != "conan_096" and "damage_flow" not in rs.params:
        return
    for name in rs.params.get("damage_flow", []):
        if name != "out" and name not in DAMAGE_STEPS:
            raise RulesetError("params.damage_flow", f"unknown step {name}")
    for name in rs.params.get("on_flip", []):
        if name not in ON_FLIP:
            raise RulesetError("params.on_flip", f"unknown handler {name}")


CHECKS.append(_check_names)


# Who a skill aimed at a character really aims at (援护: 当晚所有指向此身份的技能均视为指向
# 魔像): (d, skill, actor, target) → target, added by the module that redirects.
Aim = Callable[[Draft, str, int, int], int]
AIM: list[Aim] = []


def aimed(d: Draft, skill: str, actor: int, target: int) -> int:
    for fn in AIM:
        target = fn(d, skill, actor, target)
    return target


# What changes the night's list of damages once it is read (咒术's copies, 变羊's void
# skills against the 巫师): each takes the list in step order and returns it, registered by
# the modules beside this one and run in their order of registration.
DamageExpander = Callable[[Draft, list[dict[str, Any]]], list[dict[str, Any]]]
DAMAGE_EXPANDERS: list[DamageExpander] = []


def damages(d: Draft) -> list[dict[str, Any]]:
    """Tonight's damages in the post's order of steps: {target, actor, skill}; a team's is
    counted once (its latest pick), 龙息 on one target twice, 九星金光咒 once more on an
    亡灵 or the relic's holder; then each of ``DAMAGE_EXPANDERS``."""
    found: list[dict[str, Any]] = []
    for step in d.rs.night_steps:
        for s in step.skills:
            sk = d.rs.skills[s]
            if sk.effect not in ("damage", "nine_stars", "breath", "nether_breath"):
                continue
            seen: set[int] = set()
            for actor, target in subs(d, s).items():
                a = int(actor)
                if target is None or not d.p(a).alive:
                    continue
                target = aimed(d, s, a, int(target))
                if "团队" in sk.tags:
                    if int(target) in seen:
                        continue
                    seen.add(int(target))
                found += _damages_of(d, sk, a, int(target))
            by, *more = d.night.get("cn_extra", {}).get(s, [None])
            if by is not None and d.p(int(by)).alive:
                for t in more:
                    found += _damages_of(d, sk, int(by), aimed(d, s, int(by), int(t)))
    for expand in DAMAGE_EXPANDERS:
        found = expand(d, found)
    return found


def _damages_of(d: Draft, sk: Skill, actor: int, target: int) -> list[dict[str, Any]]:
    one = {"actor": actor, "skill": sk.key}
    if sk.effect == "breath":
        targets = [aimed(d, sk.key, actor, t) for t in wide_targets(d, sk.key, actor)]
        if len(targets) == 1:
            targets = targets * 2  # 选择一名角色，对其造成两次伤害
        return [{**one, "target": t} for t in targets]
    if sk.effect == "nether_breath":
        targets = wide_targets(d, sk.key, actor)
        factions = [d.p(t).faction for t in targets]
        if len(set(factions)) != len(factions):
            d.note("冥炎吐息", "冥炎吐息的目标不是各自属于不同阵营，不造成伤害。", actor=actor)
            return []
        return [{**one, "target": aimed(d, sk.key, actor, t)} for t in targets]
    if sk.effect == "nine_stars":
        extra = is_undead(d, target) or relic_holder(d) == target
        return [{**one, "target": target}] * (2 if extra else 1)
    return [{**one, "target": target}]


@register_stage("cn_damage")
def _damage_stage(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    """Each damage through the flow's steps, in the data's order; one that no step takes is
    an out (7. 该角色出局)."""
    flow = list(_params(d).get("damage_flow", []))
    # ``effects``: the night's effects of the draft, for what a step decides that must outlast
    # the draft (a ruleset's own key, applied at publication by ``night.APPLIERS``).
    spent: dict[str, Any] = {"first": set(), "effects": ctx["effects"]}
    ctx["cn"] = spent
    # What became of each damage ([target, actor, skill, the step that took it | "out" |
    # "miss"]), kept in the night's effects so the settlement's hooks can read it (龙息's relic).
    record: list[list[Any]] = ctx["effects"].setdefault("cn_damage", [])
    n = 0
    for dmg in damages(d):
        n += 1
        t = dmg["target"]
        actor_name = d.name(dmg["actor"])
        skill_name = d.rs.skills[dmg["skill"]].name
        line = f"第{n}次伤害"
        d.note(line, f"{actor_name}的【{skill_name}】对{d.name(t)}造成一次伤害。", target=t)
        dmg["first"] = t not in spent["first"]
        spent["first"].add(t)
        if any(h[0] == t for h in hits):
            d.note(line, f"{d.name(t)}已将出局，此次伤害落空。", target=t)
            record.append([t, dmg["actor"], dmg["skill"], "miss"])
            continue
        taken = "out"
        for step in flow:
            if step == "out":
                break
            if DAMAGE_STEPS[step](d, spent, {**dmg, "line": line}):
                taken = step
                break
        record.append([t, dmg["actor"], dmg["skill"], taken])
        if taken == "out":
            d.note(line, f"{d.name(t)}出局。", target=t)
            hits.append([t, CAUSE_DAMAGE, dmg["actor"]])


def _keep_damages(d: Draft, record: Any) -> None:
    """The night's damage record, readable by the settlement's hooks (``night["cn_damage"]``)."""
    d.set_night(cn_damage=[list(r) for r in record])


APPLIERS["cn_damage"] = _keep_damages


def night_damages(d: Draft) -> list[tuple[int, int, str, str]]:
    """Tonight's damages as settled: (target, actor, skill, the step that took it | "out" |
    "miss")."""
    return [(int(t), int(a), str(s), str(w)) for t, a, s, w in d.night.get("cn_damage", [])]


@register_damage_step("hp")
def _hp(d: Draft, spent: dict[str, Any], dmg: dict[str, Any]) -> bool:
    """(4) 如果该角色是生命值大于1的魔像/树妖，此次伤害无效，对应生命值减少1."""
    t = dmg["target"]
    left = spent.setdefault("hp", {}).get(t, d.p(t).counters.get("hp", 0))
    if left > 1:
        spent["hp"][t] = left - 1
        d.note(dmg["line"], f"{d.name(t)}生命值{left}，此次伤害无效，生命值减少1。", target=t)
        return True
    return False


# --- night end, day open ------------------------------------------------------------------------


@register_hook("cn_night_open")
def _night_open(d: Draft) -> None:
    """入夜: 毒素箭 and 藏匿 submitted by day take effect."""
    if d.night.get("prelude"):
        return
    picks = dict(d.flags.get("cn_day_picks") or {})
    toxin = picks.pop("toxin_arrow", None)
    if toxin is not None and d.p(int(toxin["target"])).alive:
        target = int(toxin["target"])
        for s in d.p(target).skills:
            sk = d.rs.skills[s]
            if sk.active and "团队" not in sk.tags and "被动" not in sk.tags:
                cooldown_add(d, target, s, 1, "毒素箭")
        for m in members(d, str(toxin["group"])):
            if "toxin_arrow" in d.p(m).skills:
                cooldown_add(d, m, "toxin_arrow", d.rs.skills["toxin_arrow"].cooldown, "发动")
    d.set_flag("cn_day_picks", picks)


@register_hook("cn_night_end")
def _night_end(d: Draft) -> None:
    """夜晚结束: the night's skills enter cooldown, the others recover 1."""
    if d.night.get("prelude"):
        return
    used: set[tuple[int, str]] = set()
    for s, sk in d.rs.skills.items():
        for actor, target in subs(d, s).items():
            if target is None:
                continue
            a = int(actor)
            _spent(d, a, sk, int(target))
            if not sk.cooldown:
                continue
            used.add((a, s))
            extra = int(sk.params.get("miss_extra", 0)) if _missed(d, sk, int(target)) else 0
            cooldown_add(d, a, s, sk.cooldown + extra, "发动")
    used |= {(int(a), str(s)) for a, s in d.night.get("cn_triggered", [])}
    _cooldowns_recover(d, used)
    # 撕咬 used tonight, and a pack member out tonight: the out came after the use.
    for s in d.night.get("cn_freed", []):
        for p in list(d.players.values()):
            if cooldown(p, s) > 0:
                cooldown_clear(d, p.id, s, "狼人群内有角色出局")


def _spent(d: Draft, actor: int, sk: Skill, target: int) -> None:
    """A use tonight spends a <限定> skill (unless its handler already counted it) and names
    its target for a <角色> one."""
    w = d.wp(actor)
    if sk.limited and not w.used.get(sk.key):
        w.used[sk.key] = 1
    if "角色" in sk.tags:
        named = dict(w.flags.get("targeted", {}))
        named[sk.key] = sorted({*named.get(sk.key, []), target})
        w.flags["targeted"] = named


def _missed(d: Draft, sk: Skill, target: int) -> bool:
    """九星金光咒: 不是（亡灵或圣物持有者）则冷却额外+1."""
    return sk.effect == "nine_stars" and not (is_undead(d, target) or relic_holder(d) == target)


@register_hook("cn_day_open")
def _day_open(d: Draft) -> None:
    """第三/六/九日开始时，树妖的生命值重置为2."""
    for p in d.living():
        for s in p.skills:
            days = d.rs.skills[s].params.get("days")
            if s == "longevity" and days and d.day in days:
                d.wp(p.id).counters["hp"] = int(d.rs.skills[s].params["hp"])


@register_hook("cn_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    """The player's own: HP, cooldowns, toggles, groups with their members; by day, the skills
    submitted before the close (藏匿, 毒素箭) among those usable now."""
    if d.phase == DAY and p.alive and not p.idle:
        for s in p.skills:
            sk = d.rs.skills[s]
            if sk.by_day and _available(d, p, s) and _day_pick_open(d, p, sk):
                view["usable"] = [
                    *view["usable"],
                    {"skill": s, "name": sk.name, "until": 0.0, "forced": False,
                     "limited": sk.limited, "irreversible": sk.irreversible,
                     "closes": "day_close"},
                ]  # fmt: skip
    view["conan"] = {
        "hp": p.counters.get("hp"),
        "cooldowns": {k[len(CD) :]: v for k, v in p.counters.items() if k.startswith(CD)},
        "on": dict(p.flags.get("on") or {}),
        "groups": [
            {
                "key": g,
                "name": d.rs.groups[g]["name"],
                "members": [
                    {"id": m, "name": d.name(m), "alive": d.p(m).alive} for m in members(d, g)
                ],
            }
            for g in groups_of(p)
        ],
    }
    return view


# --- wins (本规则胜利条件实时结算) -----------------------------------------------------------


@victory.register_condition("cn_none_alive")
def _none_alive(d: Draft, faction: str, c: Condition) -> bool:
    return not any(p.alive and p.faction in c.params["factions"] for p in d.players.values())


@victory.register_condition("cn_bonded")
def _bonded(d: Draft, faction: str, c: Condition) -> bool:
    relic = d.flags.get("relic") or {}
    owner = relic.get("bonded")
    return owner is not None and d.p(int(owner)).faction in c.params["factions"]


@victory.register_condition("cn_all_sheep_but")
def _all_sheep(d: Draft, faction: str, c: Condition) -> bool:
    others = [p for p in d.living() if p.faction not in c.params["factions"]]
    return bool(others) and all("sheep" in p.statuses for p in others)


@victory.register_condition("cn_undead_majority")
def _undead_majority(d: Draft, faction: str, c: Condition) -> bool:
    """存活亡灵数量超过存活人数的一半."""
    living = d.living()
    undead = sum(1 for p in living if p.faction == faction)
    return undead * 2 > len(living)


@victory.register_condition("cn_undead_few_left")
def _undead_few_left(d: Draft, faction: str, c: Condition) -> bool:
    """场上存活高塔阵营角色、狼人、精灵的数量均不多于1，且至少有一个存活亡灵."""
    living = d.living()
    if not any(p.faction == faction for p in living):
        return False
    for group in c.params["roles_at_most_one"].values():
        n = sum(
            1
            for p in living
            if p.faction in group.get("factions", ()) or p.role in group.get("roles", ())
        )
        if n > 1:
            return False
    return True


@register_hook("cn_won")
def _won(d: Draft, faction: str) -> list[str]:
    """中立: 不存在存活的亡灵阵营角色，且场上存活人数小于等于5（+2 per 亡灵 put out by 九星
    金光咒），且有其他阵营宣告胜利 — while the 驱魔人 is still 中立, alive or not."""
    co = dict(_params(d).get("co_win", {}))
    found = []
    for neutral, rule in co.items():
        if faction == neutral or not any(p.faction == neutral for p in d.players.values()):
            continue
        if any(p.alive and p.faction == undead_faction(d.rs) for p in d.players.values()):
            continue
        bonus = int(d.flags.get("cn_nine_star_undead", 0)) * int(rule["per_undead"])
        if len(d.living()) <= int(rule["alive_at_most"]) + bonus:
            found.append(neutral)
    return found


__all__ = [
    "AIM",
    "BEFORE_FLIP",
    "CAUSE_DAMAGE",
    "DAMAGE_EXPANDERS",
    "DAMAGE_STEPS",
    "ON_FLIP",
    "aimed",
    "cooldown",
    "cooldown_add",
    "damages",
    "flip",
    "groups_of",
    "mark_triggered",
    "members",
    "night_damages",
    "register_damage_step",
    "register_on_flip",
    "relic_holder",
    "toggle_set",
    "toggled",
]
