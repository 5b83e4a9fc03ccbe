"""The handlers [061] 林峰's ruleset names (``werewolf/rulesets/lin_feng_061.json``): conversions
(阵营转换) with 不定 following its host, possession, the night's effects in the post's order,
kills settled one by one (救治 → 警惕 → 天罡护体 → 守护 → out), the triggers on elimination,
the day vote's modifiers (独尊, 诅咒, 票台) and the win conditions.

Everything here is reached by name from the ruleset's data (handlers ``lf_pick``/``lf_window``,
stages ``lf_night``/``lf_kills``, hooks ``lf_*``, triggers ``lf_*``, conditions ``lf_*``); the
roles, skills, texts, step order, deadlines and numbers are the data's. The night's state
changes are recorded as ops (``effects["lf"]``) when the night is resolved and applied when it
is published, so the director's draft shows them and a replay repeats them.

Numbering (RULINGS 061-1): night 0 is the prelude (附身, 遇难, the 铁柱's first 票台/诅咒), then
day 1; night n follows day n.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from games.engine.ballots import Adjust, Reason, VoteModifiers
from games.engine.errors import InvalidInput
from games.engine.rooms import RoomSpec

from . import victory
from .actions import UseSkill
from .draft import Draft
from .errors import InvalidTarget, RepeatTarget, SkillUsedUp, WindowClosed
from .hooks import register_hook
from .night import APPLIERS, Hits, register_stage
from .outcomes import Fired, open_window, out_by, register_trigger
from .ruleset import Condition, Skill, Trigger
from .skills import WIDE, register_handler
from .state import CAUSE_KILL, CAUSE_RED_CARD, CAUSE_VOTE, DAY, NIGHT, GameState, Player
from .steps import subs
from .views import option_words, submission

CAUSE_EMPTY_SAVE = "空救"
CAUSE_EARLY = "早夭"
CAUSE_HOSTAGE = "遇难"
CAUSE_TOGETHER = "共死"
CAUSE_GRUDGE = "怨恨"
CAUSE_FAVOR = "偏爱"
CAUSE_BACKLASH = "反噬"
CAUSE_SACRIFICE = "牺牲"

Op = list[Any]


class StageRepeat(RepeatTarget):
    message = "<票台>不能连续两天对同一名玩家发动。"
    message_en = "The stage cannot name the same player two days running."


class CunningRepeat(RepeatTarget):
    message = "<狡黠>不可连续两日对同一个角色使用。"
    message_en = "The cunning guess cannot name the same character two days running."


def _params(d: Draft) -> dict[str, Any]:
    return dict(d.rs.params)


def _key(d: Draft, name: str) -> str:
    """A faction or role key the handlers act on, named by the ruleset's ``params``."""
    return str(d.rs.params[name])


def _holders(d: Draft, skill: str, *, alive: bool = True) -> list[Player]:
    return [p for p in d.players.values() if skill in p.skills and (p.alive or not alive)]


def _role_holders(d: Draft, role: str) -> list[Player]:
    return [p for p in d.players.values() if p.role == role]


def _fname(d: Draft, faction: str) -> str:
    return d.rs.factions[faction].name


def _tell(d: Draft, pid: int, skill: str, text: str, **facts: Any) -> None:
    """Private feedback outside the night's draft (a trigger's notice), kept in the view."""
    entry = {"kind": skill, "text": text, **facts}
    d.to(pid, "feedback", entry)
    w = d.wp(pid)
    kept = {**entry, "day": d.day} | ({} if _settling(d) else {"by_day": True})
    w.flags["feedback"] = [*w.flags.get("feedback", []), kept]


def _shown(d: Draft, pid: int) -> None:
    """A role made public by a rule (宝藏阵营's out, 遗志): the players' view shows it."""
    shown = [int(i) for i in d.flags.get("shown_roles", [])]
    if pid not in shown:
        d.set_flag("shown_roles", [*shown, pid])


def _settling(d: Draft) -> bool:
    """A night's eliminations are being settled (the draft or its publication)."""
    return bool(d.night) or d.phase == NIGHT


# --- conversions --------------------------------------------------------------------------------


def rocked(d: Draft, p: Player) -> bool:
    """磐石: the faction holds from the day after the 游侠 chose it, until the 游侠 is out."""
    rock = p.flags.get("rock")
    if not rock:
        return False
    ranger = d.players.get(int(rock["by"]))
    return ranger is not None and ranger.alive and d.day >= int(rock["from"])


def followers(d: Draft, pid: int) -> list[int]:
    """The 不定 whose host is ``pid`` (附身/遇难), as ids."""
    return sorted(
        q.id
        for q in d.players.values()
        if q.id != pid and pid in (q.links.get("possess"), q.links.get("hostage"))
    )


def convert(
    d: Draft, pid: int, faction: str, why: str, *, strip: bool = False, silent: bool = False
) -> bool:
    """``pid`` joins ``faction`` (losing every skill with ``strip``); its 不定 follow silently.
    Only the converted character is told (RULINGS 061-3). False when 磐石 holds it."""
    p = d.p(pid)
    if rocked(d, p):
        d.note("磐石", f"{p.name}受<磐石>保护，阵营不变。", target=pid)
        return False
    w = d.wp(pid)
    before = w.faction
    w.faction = faction
    if strip:
        w.skills = ()
        # A 幽灵/人质 converted loses 附身/遇难 (RULINGS 061-10).
        w.links.pop("possess", None)
        w.links.pop("hostage", None)
    d.note("阵营", f"{p.name}因{why}加入{_fname(d, faction)}。", target=pid, faction=faction)
    d.directors("converted", {"id": pid, "from": before, "to": faction, "why": why})
    if w.alive and not silent:
        d.to(pid, "converted", {"faction": faction, "faction_name": _fname(d, faction), "why": why})
    _follow(d, pid, set())
    return True


def _follow(d: Draft, pid: int, seen: set[int]) -> None:
    seen.add(pid)
    faction = d.p(pid).faction
    for q in followers(d, pid):
        if q in seen or d.p(q).faction == faction or rocked(d, d.p(q)):
            continue
        d.wp(q).faction = faction
        d.directors("converted", {"id": q, "to": faction, "why": "不定"})
        _follow(d, q, seen)


def _out(d: Draft, pid: int, cause: str, *, night: bool, by: Iterable[int] = ()) -> None:
    """An elimination whose causers (造成出局的玩家: 共死, 明察) are remembered."""
    if not d.p(pid).alive:
        return
    causers = d.flags.get("lf_by", {})
    d.set_flag("lf_by", {**causers, str(pid): sorted({*causers.get(str(pid), []), *by})})
    out_by(d, pid, cause, night=night)


# --- submissions --------------------------------------------------------------------------------


def count_chars(text: str) -> tuple[int, int]:
    """传音 (RULINGS 061-11): (characters, punctuation marks). A Han character counts 1, a run
    of Latin letters or digits counts 1, spaces nothing, punctuation is free (at most 10)."""
    words = len(re.findall(r"[A-Za-z0-9]+", text))
    han = sum(1 for ch in text if unicodedata.category(ch) == "Lo")
    marks = sum(1 for ch in text if unicodedata.category(ch).startswith("P"))
    return words + han, marks


def _want(d: Draft, p: Player, sk: Skill) -> int | tuple[int, int]:
    """How many targets a submission names: an exact count or a (min, max) span."""
    spec = sk.targets
    if spec == "third":
        return len(d.living()) // 3
    if spec == "0-1":
        return (0, 1)
    if spec == "any":
        return (1, len(d.players))
    return int(spec)


def _borrowable(d: Draft, q: Player) -> list[str]:
    """狡黠 (RULINGS 061-9): night skills used by choice only — not <强制>/<限定>/<锁定>,
    not trigger-only, not 勾魂 (or the ruleset's ``borrow_never``)."""
    never = set(_params(d).get("borrow_never", ()))
    out = []
    for s in q.skills:
        sk = d.rs.skills[s]
        if sk.step is None or sk.forced or sk.limited or "锁定" in sk.tags or s in never:
            continue
        out.append(s)
    return out


def _marks_owner(d: Draft, p: Player) -> Player:
    """Whose <炼> marks a 鸩毒 spends: a borrowed 鸩毒 spends the 毒士's (RULINGS 061-9)."""
    borrow = p.flags.get("borrow") or {}
    if "zhen" not in p.skills and borrow.get("from") is not None:
        return d.p(int(borrow["from"]))
    return p


def _check_option(d: Draft, p: Player, sk: Skill, targets: list[int], option: str | None) -> None:
    effect = sk.effect
    if effect == "cunning":
        if option not in d.rs.roles:
            raise InvalidInput(
                "请猜测一个本局的身份。",
                message_en="Guess a role of this game.",
                reason="cunning needs a role key",
            )
        last = p.flags.get("last_cunning")
        if last == [targets[0], d.day - 1]:
            raise CunningRepeat()
    elif effect == "borrowed":
        # option "<skill>" or "<skill>:<its own option>" (a borrowed 鸩毒: "zhen:2")
        key, _, inner = (option or "").partition(":")
        borrow = p.flags.get("borrow") or {}
        skill = d.rs.skills.get(key)
        if key not in borrow.get("skills", []) or skill is None:
            raise InvalidInput(
                "只能使用猜测成功后所选的技能。",
                message_en="Only the skill chosen after a right guess can be used.",
                reason="not a borrowed skill",
            )
        _check_option(d, p, skill, targets, inner or None)
    elif effect == "zhen":
        if option not in ("1", "2", "3"):
            raise InvalidInput(
                "请选择失去1、2或3个<炼>标记。",
                message_en="Choose to lose 1, 2 or 3 marks.",
                reason="zhen needs 1, 2 or 3",
            )
        if _marks_owner(d, p).counters.get("marks", 0) < int(option):
            raise InvalidInput(
                "<炼>标记不足。", message_en="Not enough marks.", reason="not enough marks"
            )
    elif effect == "whisper":
        chars, marks = count_chars(option or "")
        limit = int(_params(d).get("whisper_max", 10))
        if not chars or chars > limit or marks > limit:
            raise InvalidInput(
                f"传音须为1至{limit}个字。",
                message_en=f"A whisper is 1 to {limit} characters.",
                reason="whisper length",
            )
    elif effect == "stage":
        before = set(d.flags.get("lf_stage_last", []))
        if before & set(targets):
            raise StageRepeat()
    elif effect == "curse":
        if targets[0] in d.flags.get("lf_cursed", []):
            raise InvalidTarget(
                "<诅咒>每名玩家仅可以被选择一次。",
                message_en="The curse can name each player only once.",
                reason="cursed before",
            )
    elif effect == "insight":
        if targets[0] in p.flags.get("insight_done", []):
            raise InvalidTarget(
                "<明察>对每名玩家只能使用一次。",
                message_en="The insight can be used on each player only once.",
                reason="insight before",
            )
    elif effect == "verify" and option not in (None, "publish"):
        raise InvalidInput(reason="verify's option is publish or nothing")


def _lf_pick(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """A night submission naming 0, 1, 2, 3, a third or any number of living targets, with an
    option; it replaces the actor's earlier one until the step closes."""
    targets = list(dict.fromkeys(a.targets))
    if len(targets) != len(a.targets):
        raise InvalidInput(
            "同一名角色不能重复选择。",
            message_en="The same character cannot be chosen twice.",
            reason="a target named twice",
        )
    want = _want(d, p, sk)
    inner = d.rs.skills.get((a.option or "").split(":")[0])
    if sk.effect == "borrowed" and inner is not None:
        want = _want(d, p, inner)
    if sk.effect == "stage":
        eligible = [q.id for q in d.living() if q.id not in d.flags.get("lf_stage_last", [])]
        want = min(int(want) if isinstance(want, int) else 0, len(eligible))
    low, high = want if isinstance(want, tuple) else (want, want)
    if not low <= len(targets) <= high:
        raise InvalidInput(
            f"须选择{low}至{high}名角色。" if low != high else f"须选择{low}名角色。",
            message_en=(
                f"Choose {low} to {high} characters."
                if low != high
                else f"Choose {low} character{'' if low == 1 else 's'}."
            ),
            reason=f"{low}-{high} targets",
        )
    for t in targets:
        if t not in d.players or not d.p(t).alive:
            raise InvalidTarget(
                "已经出局的角色不能被选为技能的目标。",
                message_en="A character who is out cannot be a skill's target.",
                reason="out",
            )
        if sk.target == "other" and t == p.id:
            raise InvalidTarget(
                "不能选择自己。", message_en="You cannot choose yourself.", reason="self"
            )
    option = a.option
    _check_option(d, p, sk, targets, option)
    all_subs = dict(d.night.get("subs", {}))
    all_subs[sk.key] = {
        **all_subs.get(sk.key, {}),
        str(p.id): {"targets": targets, "option": option},
    }
    d.set_night(subs=all_subs)
    words = option_words(d.rs, sk, option)
    payload = {
        "skill": sk.key,
        "name": sk.name,
        "targets": targets,
        "target_names": [d.name(t) for t in targets],
        "option": option,
        "option_text": words,
    }
    d.to(p.id, "submitted", payload, p.id)
    mine = {"actor": p.id, "skill": sk.key, "targets": targets, "option": option}
    d.directors("submitted", mine | {"option_text": words})


WIDE["lf_pick"] = _lf_pick


# --- day windows: 狩猎, 偏爱, 公敌's pick, 勾魂, 怨恨, 遗志 ------------------------------------


def _take_window(d: Draft, p: Player, skill: str, now: float) -> dict[str, Any]:
    for w in d.windows:
        if w["actor"] == p.id and w["skill"] == skill and now <= w["until"]:
            return w
    raise WindowClosed(skill=skill)


def _drop(d: Draft, w: dict[str, Any]) -> None:
    d.windows = tuple(x for x in d.windows if x is not w)


@register_handler("lf_window")
def _lf_window(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    w = _take_window(d, p, sk.key, now)
    WINDOW_USES[sk.key](d, p, w, target)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)


def _hunt(d: Draft, p: Player, w: dict[str, Any], target: int) -> None:
    """狩猎: the target joins the 猎狼's faction and loses its skills; it fails when the 猎狼
    was the wolves' last, or names its own faction's member (磐石: nothing at all)."""
    _drop(d, w)
    t = d.p(target)
    last = p.faction == _key(d, "wolf_faction") and not any(
        q.alive and q.faction == _key(d, "wolf_faction") for q in d.players.values()
    )
    if last or t.faction == p.faction or rocked(d, t):
        _tell(d, p.id, "hunt", "狩猎发动失败。")
        return
    if convert(d, target, p.faction, "狩猎", strip=True):
        d.public("hunt", {"text": d.rs.text("hunt")})
        victory.check(d)


def _favor(d: Draft, p: Player, w: dict[str, Any], target: int) -> None:
    """偏爱: another player goes out in the place of the one voted out (not a vote-out:
    RULINGS 061-8); not one on the 票台; the 天使 is named."""
    voted = int(w["voted"])
    if target == voted or d.p(target).statuses.get("stage") == d.day:
        raise InvalidTarget(
            "偏爱的代替者不可以是被投票出局者本人或铁柱票台上的角色。",
            message_en=(
                "The favored stand-in cannot be the one voted out, nor a character on the stage."
            ),
            reason="favor target",
        )
    _drop(d, w)
    d.wp(p.id).used["favor"] = 1
    text = d.rs.text("favor", angel=p.name, target=d.name(target), voted=d.name(voted))
    d.public("favor", {"text": text, "angel": p.id, "target": target, "voted": voted})
    _shown(d, p.id)  # 发动此技能后公示天使马甲
    _out(d, target, CAUSE_FAVOR, night=False, by=[p.id])


def _enemy_convert(d: Draft, p: Player, w: dict[str, Any], target: int) -> None:
    _drop(d, w)
    if convert(d, target, p.faction, "公敌", strip=True):
        victory.check(d)


def _soul(d: Draft, p: Player, w: dict[str, Any], target: int) -> None:
    """勾魂: the pick waits for the night's open (在游戏日夜晚开始后加入宝藏阵营)."""
    picks = [*w.get("picks", []), target][-int(w.get("count", 1)) :]
    d.windows = tuple({**x, "picks": picks} if x is w else x for x in d.windows)
    names = [d.name(t) for t in picks]
    d.to(
        p.id,
        "submitted",
        {"skill": "soul", "name": "勾魂", "targets": picks, "target_names": names},
    )


def _grudge(d: Draft, p: Player, w: dict[str, Any], target: int) -> None:
    if target not in w.get("voters", []):
        raise InvalidTarget(
            "只能从投票给洞察者的角色中选择。",
            message_en="Choose one of the characters who voted for you.",
            reason="not a voter",
        )
    _drop(d, w)
    d.wp(p.id).used["grudge"] = 1
    _out(d, target, CAUSE_GRUDGE, night=False, by=[p.id])


def _legacy(d: Draft, p: Player, w: dict[str, Any], target: int) -> None:
    _drop(d, w)
    text = d.rs.text("legacy", hostage=p.name, name=d.name(target), role=d.role_name(target))
    d.public("legacy", {"text": text, "target": target})
    _shown(d, target)


WINDOW_USES = {
    "hunt": _hunt,
    "favor": _favor,
    "enemy_convert": _enemy_convert,
    "soul": _soul,
    "grudge": _grudge,
    "legacy": _legacy,
}


@register_hook("lf_window_closed")
def _window_closed(d: Draft, w: dict[str, Any], used: bool) -> None:
    """偏爱 not used in time: the one voted out goes out after all."""
    if w["skill"] == "favor" and not used:
        _out(d, int(w["voted"]), CAUSE_VOTE, night=False)


# --- the night ----------------------------------------------------------------------------------


class Night:
    """What the night's effects build: ops to apply, kills in 出刀顺序, feedback."""

    def __init__(self, d: Draft, ctx: dict[str, Any]) -> None:
        self.d = d
        self.ops: list[Op] = ctx["effects"].setdefault("lf", [])
        self.feedback: dict[str, list[dict[str, Any]]] = ctx["feedback"]
        self.kills: list[tuple[str, int, int]] = ctx.setdefault("lf_kills", [])
        self.cures: dict[int, int] = ctx.setdefault("lf_cures", {})
        self.factions: dict[int, str] = {p.id: p.faction for p in d.players.values()}

    def tell(self, pid: int, kind: str, text: str, **facts: Any) -> None:
        self.feedback.setdefault(str(pid), []).append({"kind": kind, "text": text, **facts})

    def op(self, *op: Any) -> None:
        self.ops.append(list(op))


Effect = Any
EFFECTS: dict[str, Effect] = {}


def effect(name: str) -> Any:
    def add(fn: Any) -> Any:
        EFFECTS[name] = fn
        return fn

    return add


@effect("kill")
def _e_kill(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.kills.append((sk.key, actor, targets[0]))  # (the trace notes it with the night's kills)


@effect("possess")
def _e_possess(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    t = targets[0]
    n.op("link", actor, "possess", t)
    n.op("convert", actor, n.factions[t], "附身", "silent")
    n.factions[actor] = n.factions[t]


@effect("hostage")
def _e_hostage(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    t = targets[0]
    drifter = _params(n.d)["drifter"]
    if n.factions[t] == drifter:
        # The 幽灵 possessed the 人质 and the 人质 chose the 幽灵: neither would have a faction;
        # the seed chooses the 人质's host among the others (a decision; the post is silent).
        pool = sorted(q for q, f in n.factions.items() if f != drifter)
        t = n.d.rng.choice(pool)
        n.d.note("遇难", "人质与幽灵互相选择，人质的遇难对象随机决定。", actor=actor, target=t)
    n.op("link", actor, "hostage", t)
    n.op("convert", actor, n.factions[t], "遇难", "silent")
    n.factions[actor] = n.factions[t]


@effect("supreme")
def _e_supreme(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.op("append", actor, "void_voters", targets[0])


@effect("stage")
def _e_stage(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    day = n.d.day + 1
    for t in targets:
        n.op("status", t, "stage", day)
    n.op("gflag", "lf_stage_last", targets)
    names = "、".join(n.d.name(t) for t in targets) or "无"
    n.op("public", "stage", n.d.rs.text("stage", day=day, names=names))


@effect("curse")
def _e_curse(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.op("status", targets[0], "cursed", n.d.day + 1)
    n.op("gappend", "lf_cursed", targets[0])


@effect("cunning")
def _e_cunning(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    d, t = n.d, targets[0]
    q = d.p(t)
    n.op("flag", actor, "last_cunning", [t, d.day])
    if q.role != option:
        n.tell(actor, "cunning", "猜测失败。", target=t)
        return
    skills = [d.rs.skills[s].name for s in q.skills]
    offer = _borrowable(d, q)
    n.tell(
        actor,
        "cunning",
        f"猜测成功：{q.name}的技能为{'、'.join(skills) or '无'}。",
        target=t,
        skills=list(q.skills),
        offer=offer,
    )
    if offer:
        n.op("flag", actor, "borrow", {"night": d.day + 1, "from": t, "skills": offer})
        n.op("gain", actor, "borrowed")


@effect("borrowed")
def _e_borrowed(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    """The borrowed skill acts at the 妖狐's step (RULINGS 061-7): its kill comes first."""
    key, _, arg = (option or "").partition(":")
    inner = n.d.rs.skills[key]
    names = "、".join(n.d.name(t) for t in targets)
    n.d.note("狡黠", f"妖狐{n.d.name(actor)}使用借来的<{inner.name}>：{names}。", actor=actor)
    EFFECTS[inner.effect or ""](n, actor, inner, targets, arg or None)


@effect("insight")
def _e_insight(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.op("append", actor, "insight_done", targets[0])
    n.op("nappend", "lf_insight", [actor, targets[0]])


@effect("zhen")
def _e_zhen(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    d = n.d
    spend = option or "1"
    owner = _marks_owner(d, d.p(actor))
    n.op("counter", owner.id, "marks", -int(spend))
    what = _params(d)["zhen"][spend]
    if what == "count":
        counts = {}
        for f in d.rs.factions:
            alive = sum(1 for p in d.living() if p.faction == f)
            if alive:
                counts[_fname(d, f)] = alive
        text = "，".join(f"{k}{v}人" for k, v in counts.items())
        n.tell(actor, "zhen", f"场上存活：{text}。", counts=counts)
    else:
        n.op("gain", actor, what)
        n.tell(actor, "zhen", f"下一个游戏日夜晚获得<{d.rs.skills[what].name}>。")


@effect("cure")
def _e_cure(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.cures[targets[0]] = actor


@effect("pipe")
def _e_pipe(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    for t in targets:
        n.op("status", t, "piped", 1)
        n.op("public", "pipe", n.d.rs.text("pipe", name=n.d.name(t)))


@effect("command")
def _e_command(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    for t in targets:
        if n.factions[t] == _key(n.d, "wolf_faction"):
            n.op("pack", t)


@effect("judge")
def _e_judge(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    role = _params(n.d)["judge_role"]
    found = any(n.d.p(t).role == role for t in targets)
    text = "其中存在宝藏。" if found else "其中不存在宝藏。"
    n.tell(actor, "judge", text, found=found, targets=targets)  # it knows whom it named
    if found:
        n.op("lose", actor, sk.key)


@effect("advise")
def _e_advise(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    names = "、".join(n.d.name(t) for t in targets)
    for q in _role_holders(n.d, _params(n.d)["queen_role"]):
        if q.alive:
            n.tell(q.id, "advise", f"狼判官献策：{names}。", targets=targets)


@effect("verify")
def _e_verify(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    d, t = n.d, targets[0]
    groups = _params(d)["verify_groups"]
    group = groups.get(n.factions[t], _params(d)["verify_other"])
    n.tell(actor, "verify", f"{d.name(t)}属于{group}。", target=t, group=group)
    if option == "publish":
        n.op("public", "verify", d.rs.text("verify", name=d.name(t), group=group))


@effect("guard")
def _e_guard(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.op("status", targets[0], "guard", n.d.day)
    n.op("used", actor, sk.key)


@effect("rock")
def _e_rock(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.op("flag", targets[0], "rock", {"by": actor, "from": n.d.day + 1})


@effect("prophecy")
def _e_prophecy(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    t = targets[0]
    faction = _fname(n.d, n.factions[t])
    n.tell(actor, "prophecy", f"{n.d.name(t)}属于{faction}。", target=t, faction=faction)
    if sk.key == "prophecy_once":
        n.op("lose", actor, sk.key)


@effect("whisper")
def _e_whisper(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    n.op("used", actor, sk.key)
    for q in _role_holders(n.d, _key(n.d, "whisper_role")):
        if q.alive:
            n.tell(q.id, "whisper", f"宝藏传音：{option}", words=option)


@effect("perceive")
def _e_perceive(n: Night, actor: int, sk: Skill, targets: list[int], option: str | None) -> None:
    d = n.d
    voted = [o for o in d.outs if o.day == d.day and not o.night and o.cause == CAUSE_VOTE]
    for o in voted:
        q = d.p(o.id)
        text = f"{q.name}的身份为{d.role_name(q.id)}，属于{_fname(d, q.faction)}。"
        n.tell(actor, "perceive", text, target=q.id, role=d.role_name(q.id), faction=q.faction)
    if not voted:
        n.tell(actor, "perceive", "白天没有角色被投票出局。")


def _drawn(d: Draft, skill: str, pid: int) -> list[int]:
    """A forced or prelude choice not made in time is drawn from the seed (RULINGS 5, 13)."""
    pool = [q.id for q in d.living() if q.id != pid]
    if skill == "stage":
        pool = [q for q in [*pool, pid] if q not in d.flags.get("lf_stage_last", [])]
        pool = sorted(pool)
        k = min(len(d.living()) // 3, len(pool))
        return sorted(d.rng.sample(pool, k))
    return [d.rng.choice(sorted(pool))] if pool else []


DRAWN = ("possess", "hostage", "stage")


@register_stage("lf_night")
def _lf_night(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    """Each step in the post's order, each submission's effect; a missing 附身/遇难/票台 is
    drawn from the seed."""
    n = Night(d, ctx)
    for step in d.rs.night_steps:
        if d.night["steps"][step.key]["state"] != "closed" or not _ran(d, step.key):
            continue
        for s in step.skills:
            sk = d.rs.skills[s]
            given = subs(d, s)
            actors = sorted(int(a) for a in given)
            if s in DRAWN:
                for p in d.living():
                    if s in p.skills and given.get(str(p.id)) is None:
                        actors.append(p.id)
                        given = {**given, str(p.id): {"targets": _drawn(d, s, p.id)}}
                        d.note(sk.name, f"{p.name}未在时限内选择，随机决定。", actor=p.id)
            for actor in sorted(set(actors)):
                value = given.get(str(actor))
                if value is None or not d.p(actor).alive or sk.effect is None:
                    continue
                targets, option = submission(value)
                if not targets and sk.targets in ("1", "2", "3", "any"):
                    continue
                if sk.effect != "borrowed":  # (the borrowed skill's line names the inner one)
                    d.note(step.name, _use_line(d, actor, sk, targets, option), actor=actor)
                EFFECTS[sk.effect](n, actor, sk, targets, option)
                if sk.limited and sk.effect not in ("guard", "whisper"):
                    n.op("used", actor, s)


def _use_line(d: Draft, actor: int, sk: Skill, targets: list[int], option: str | None) -> str:
    """The trace's line for one submission: who, which skill, on whom, with which choice."""
    p = d.p(actor)
    names = "、".join(d.name(t) for t in targets) or "无目标"
    extra = option_words(d.rs, sk, option)
    return f"{d.rs.roles[p.role].name}{p.name}发动<{sk.name}>：{names}{extra}。"


def _ran(d: Draft, step: str) -> bool:
    """The step was part of tonight (not skipped as a prelude or a game night's)."""
    st = d.night["steps"][step]
    return st.get("deadline") is not None


@register_stage("lf_kills")
def _lf_kills(d: Draft, ctx: dict[str, Any], hits: Hits) -> None:
    """每次指杀依次结算: 救治 (void), 警惕 (the 妖狐's first effective kill), 天罡护体 (the
    游侠, nights 1–2), 守护; otherwise the target is out. A 救治 on a target no kill named is
    空救; two make an out."""
    n = Night(d, ctx)
    checks = _params(d)["kill_checks"]
    spent: set[int] = set()
    sources: dict[str, list[int]] = {}
    for number, (_, actor, target) in enumerate(n.kills, start=1):
        t = d.p(target)
        name = t.name
        head = f"第{number}次指杀"
        d.note(head, f"{d.name(actor)}指杀{name}。", target=target, actor=actor)
        blocked = False
        for step, check in enumerate(checks, start=1):
            blocked = _kill_blocked(d, n, t, check, spent)
            said = KILL_CHECK_TEXTS[check][0 if blocked else 1]
            d.note(head, f"{step}. {name}{said}。", target=target, actor=actor)
            if blocked:
                break
        if blocked:
            continue
        d.note(head, f"{len(checks) + 1}. 指杀生效，{name}出局。", target=target, actor=actor)
        hits.append([target, CAUSE_KILL, actor])
        sources.setdefault(str(target), []).append(actor)
    killed = {t for _, _, t in n.kills}
    for target, poisoner in sorted(n.cures.items()):
        out = False
        if target not in killed:
            empty = d.p(target).counters.get("empty_saves", 0) + 1
            n.op("counter", target, "empty_saves", 1)
            d.note("救治", f"{d.name(target)}未被指杀，为第{empty}次空救。", target=target)
            if empty >= 2:
                out = True
                hits.append([target, CAUSE_EMPTY_SAVE, poisoner])
                sources.setdefault(str(target), []).append(poisoner)
        n.tell(poisoner, "cure", f"{d.name(target)}{_told(out)}。", target=target, out=out)
    n.op("nflag", "lf_sources", sources)


# 每次指杀依次结算: each check's line when it stops the kill, and when it does not.
KILL_CHECK_TEXTS = {
    "cure": ("是<救治>的目标，指杀无效", "不是<救治>的目标"),
    "vigilant": ("发动<警惕>，不出局", "没有可发动的<警惕>"),
    "tiangang": ("受<天罡护体>，不出局", "不受<天罡护体>"),
    "guard": ("受<守护>，不出局", "不受<守护>"),
}


def _kill_blocked(d: Draft, n: Night, t: Player, check: str, spent: set[int]) -> bool:
    """Whether ``check`` stops this kill on ``t``; 警惕 is spent by the first kill it stops."""
    if check == "cure":
        return t.id in n.cures
    if check == "vigilant":
        if "vigilant" not in t.skills or t.used.get("vigilant") or t.id in spent:
            return False
        spent.add(t.id)
        n.op("used", t.id, "vigilant")
        return True
    if check == "tiangang":
        return "tiangang" in t.skills and d.day <= _tiangang(d)
    return check == "guard" and _guarded(d, t)


def _told(out: bool) -> str:
    return "因<救治>出局" if out else "没有因<救治>出局"


def _tiangang(d: Draft) -> int:
    return int(_params(d).get("tiangang_days", 2))


def _guarded(d: Draft, p: Player) -> bool:
    """守护: that night and the next day (当晚及下一个讨论日白天)."""
    night = p.statuses.get("guard")
    if night is None:
        return False
    return (d.day == night and _settling(d)) or (d.day == night + 1 and not _settling(d))


def _apply(d: Draft, ops: list[Op]) -> None:
    for op in ops:
        kind, *rest = op
        if kind == "convert":
            convert(d, int(rest[0]), str(rest[1]), str(rest[2]), silent=len(rest) > 3)
        elif kind == "link":
            d.wp(int(rest[0])).links[str(rest[1])] = int(rest[2])
        elif kind == "status":
            d.wp(int(rest[0])).statuses[str(rest[1])] = int(rest[2])
        elif kind == "flag":
            d.wp(int(rest[0])).flags[str(rest[1])] = rest[2]
        elif kind == "append":
            w = d.wp(int(rest[0]))
            w.flags[str(rest[1])] = [*w.flags.get(str(rest[1]), []), rest[2]]
        elif kind == "counter":
            w = d.wp(int(rest[0]))
            w.counters[str(rest[1])] = w.counters.get(str(rest[1]), 0) + int(rest[2])
        elif kind == "used":
            w = d.wp(int(rest[0]))
            w.used[str(rest[1])] = w.used.get(str(rest[1]), 0) + 1
        elif kind == "gain":
            w = d.wp(int(rest[0]))
            if rest[1] not in w.skills:
                w.skills = (*w.skills, str(rest[1]))
        elif kind == "lose":
            w = d.wp(int(rest[0]))
            w.skills = tuple(s for s in w.skills if s != rest[1])
        elif kind == "gflag":
            d.set_flag(str(rest[0]), rest[1])
        elif kind == "gappend":
            d.set_flag(str(rest[0]), [*d.flags.get(str(rest[0]), []), rest[1]])
        elif kind == "nflag":
            d.set_night(**{str(rest[0]): rest[1]})
        elif kind == "nappend":
            d.set_night(**{str(rest[0]): [*d.night.get(str(rest[0]), []), rest[1]]})
        elif kind == "pack":
            _join_pack(d, int(rest[0]))
        elif kind == "public":
            _announce(d, str(rest[0]), str(rest[1]))


APPLIERS["lf"] = _apply


def _announce(d: Draft, what: str, text: str) -> None:
    """The night's announcements at the day's open, each its own kind."""
    if what == "stage":
        d.public("stage", {"text": text})
    elif what == "pipe":
        d.public("pipe", {"text": text})
    elif what == "verify":
        d.public("verify", {"text": text})


@register_hook("lf_rooms")
def _rooms(state: GameState) -> list[RoomSpec]:
    """The 狼群 统领 builds is the [061] wolves' only 共群; like [099]'s, its out members stay
    in it (RULINGS are silent; the post's 狼群 is one group all game)."""
    pack = frozenset(int(q) for q in state.flags.get("lf_pack", []))
    return [RoomSpec("team:pack", "team", "狼群", pack)] if pack else []


def _join_pack(d: Draft, pid: int) -> None:
    """统领: a wolf joins the 狼群 (the 狼王's group); the group is told who is in it."""
    pack = list(d.flags.get("lf_pack", []))
    if pid in pack:
        return
    pack.append(pid)
    d.set_flag("lf_pack", pack)
    members = [{"id": q, "name": d.name(q)} for q in pack]
    for q in pack:
        d.to(q, "team", {"faction": _key(d, "wolf_faction"), "pack": True, "members": members})


# --- hooks --------------------------------------------------------------------------------------


@register_hook("lf_night_open")
def _night_open(d: Draft) -> None:
    """The night's start: 勾魂's picks take effect (反噬, 牺牲) and its windows close; the
    one-night skills of the day before (公敌's 预言) are given."""
    if d.night.get("prelude"):
        return
    _unpipe(d)
    d.set_night(lf_outs_at_open=len(d.outs))
    params = _params(d)
    immune = set(params["soul_immune_roles"])
    for w in [x for x in d.windows if x["skill"] == "soul"]:
        _drop(d, w)
        keeper = d.p(w["actor"])
        later = int(w.get("at_close", 0))
        due = int(w.get("count", 1)) - later
        if later:
            # The counts added at this 关门 wait for the next night's open, picks and all
            # when the whole window is theirs.
            kept = w.get("picks", []) if due <= 0 else []
            d.windows = (*d.windows, {**w, "count": later, "at_close": 0, "picks": kept})
        if due <= 0:
            continue
        for target in w.get("picks", [])[:due]:
            if not keeper.alive or d.winner is not None:
                break
            t = d.p(target)
            if t.role in immune or not t.alive:
                _tell(d, keeper.id, "soul", "勾魂失败。")  # void on 幽灵/人质 even in 宝藏阵营
                continue
            if t.faction == _key(d, "soul_faction"):
                d.note("反噬", f"勾魂对象{t.name}属于宝藏阵营，勾魂失败，守宝人出局。")
                _tell(d, keeper.id, "soul", "勾魂失败。")
                _out(d, keeper.id, CAUSE_BACKLASH, night=False)
                break
            if not convert(d, target, _key(d, "soul_faction"), "勾魂"):
                _tell(d, keeper.id, "soul", "勾魂失败。")
                continue
            _tell(d, keeper.id, "soul", "勾魂成功。")
            w_ = d.wp(keeper.id)
            w_.counters["souls"] = w_.counters.get("souls", 0) + 1
            victory.check(d)
            if w_.counters["souls"] >= int(params["soul_limit"]) and "sacrifice" in w_.skills:
                _out(d, keeper.id, CAUSE_SACRIFICE, night=False)
                break


@register_hook("lf_night_end")
def _night_end(d: Draft) -> None:
    """After the night's outs: 明察's list, 平安夜's count, one-night skills dropped, the
    borrowed skill returned, the win check."""
    if d.winner is not None:
        return
    if d.night.get("prelude"):
        return
    # 平安夜: no out from any cause since the night opened (勾魂's 反噬 included), the day's
    # vote-out that waited for 偏爱 aside.
    since = d.outs[int(d.night.get("lf_outs_at_open", len(d.outs))) :]
    tonight = [o for o in since if o.night or o.cause != CAUSE_VOTE]
    sources = dict(d.night.get("lf_sources") or {})
    causers = d.flags.get("lf_by", {})
    for actor, target in d.night.get("lf_insight", []):
        if any(o.id == target for o in tonight):
            who = sorted({*sources.get(str(target), []), *causers.get(str(target), [])})
            names = "、".join(d.name(q) for q in who) or "无"
            _tell(d, int(actor), "insight", f"导致{d.name(target)}出局的角色：{names}。", ids=who)
    streak = 0 if tonight else int(d.flags.get("lf_peaceful", 0)) + 1
    d.set_flag("lf_peaceful", streak)
    for p in list(d.players.values()):
        borrow = p.flags.get("borrow")
        if "prophecy_once" in p.skills:
            d.wp(p.id).skills = tuple(s for s in p.skills if s != "prophecy_once")
        if borrow and int(borrow["night"]) <= d.day:
            w = d.wp(p.id)
            w.skills = tuple(s for s in w.skills if s != "borrowed")
            w.flags.pop("borrow", None)
    _unpipe(d)
    victory.check(d)


@register_hook("lf_day_open")
def _day_open(d: Draft) -> None:
    """Day 1: the factions are settled, the 狼王 learns the wolves, the 互知 factions their
    rosters (without roles). Every day: the win check ("第六天白天开始时")."""
    if d.winner is not None:
        return
    if d.day == 1:
        _rosters(d)
    _unpipe(d)
    d.set_flag("lf_day_open", d.day)
    victory.check(d)
    d.set_flag("lf_day_open", None)


def _rosters(d: Draft) -> None:
    params = _params(d)
    wolf = _key(d, "wolf_faction")
    wolves = [{"id": p.id, "name": p.name} for p in d.players.values() if p.faction == wolf]
    for king in _role_holders(d, params["king_role"]):
        d.to(king.id, "roster", {"faction": wolf, "members": wolves})
        d.wp(king.id).flags["roster"] = wolves
        d.set_flag("lf_pack", [king.id])
    drifter = params["drifter"]
    for f in d.rs.factions.values():
        if not f.roster:
            continue
        members = [{"id": p.id, "name": p.name} for p in d.players.values() if p.faction == f.key]
        for p in d.players.values():
            if p.faction == f.key and d.rs.roles[p.role].faction != drifter:
                d.to(p.id, "roster", {"faction": f.key, "members": members})
                d.wp(p.id).flags["roster"] = members


def _unpipe(d: Draft) -> None:
    """吹笛状态…当且仅当吹笛者阵营判负时才会解除，此事件发生时会进行公示."""
    if _key(d, "piper_faction") in d.lost and not d.flags.get("lf_unpiped"):
        d.set_flag("lf_unpiped", True)
        for p in d.players.values():
            if "piped" in p.statuses:
                d.wp(p.id).statuses.pop("piped")
        d.public("unpipe", {"text": d.rs.text("unpipe")})


@register_hook("lf_available")
def _available(d: Draft, p: Player, skill: str) -> bool:
    if skill == "borrowed":
        return int((p.flags.get("borrow") or {}).get("night", -1)) == d.day
    if skill == "zhen":
        return p.counters.get("marks", 0) >= 1
    return True


@register_hook("lf_spare")
def _spare(d: Draft, pid: int, cause: str, night: bool) -> bool:
    """守护: not out for any reason that night and the next day (a red card excepted:
    RULINGS 061-6); 天罡护体: not out by a kill or the vote on days and nights 1–2."""
    p = d.p(pid)
    if cause == CAUSE_RED_CARD:
        return False
    if _guarded(d, p):
        d.note("守护", f"{p.name}受<守护>，不出局。", target=pid)
        return True
    return cause in (CAUSE_KILL, CAUSE_VOTE) and "tiangang" in p.skills and d.day <= _tiangang(d)


@register_hook("lf_out")
def _out_hook(d: Draft, pid: int, cause: str, night: bool) -> None:
    """Every elimination: 宝藏阵营's role announced, 炼狱's mark, 勾魂's window, 早夭, 遇难,
    附身, 献策 lost, 继承 — in that order."""
    p = d.p(pid)
    params = _params(d)
    if p.faction in params["announce_roles_of"]:
        text = d.rs.text("treasure_out", name=p.name, role=d.role_name(pid))
        d.public("role_shown", {"text": text, "id": pid, "role": d.role_name(pid)})
        _shown(d, pid)
    if p.faction == _key(d, "wolf_faction"):
        for q in _holders(d, "purgatory"):
            d.wp(q.id).counters["marks"] = q.counters.get("marks", 0) + 1
            _tell(d, q.id, "purgatory", "一名狼人阵营的角色出局，你获得一个<炼>标记。")
        # An out settled by the day's vote happens at 关门, the very night's start: its pick
        # can only come before the *following* night's start (RULINGS 061-10), so the count
        # it adds is kept apart and survives this night's open.
        at_close = int(d.phase == DAY and d.flags.get("voted") == d.day)
        for q in _holders(d, "soul"):
            current = next(
                (w for w in d.windows if w["actor"] == q.id and w["skill"] == "soul"), None
            )
            if current is None:
                open_window(d, q.id, "soul", night=night)
                d.windows = tuple(
                    {**w, "at_close": at_close}
                    if w["actor"] == q.id and w["skill"] == "soul"
                    else w
                    for w in d.windows
                )
            else:
                d.windows = tuple(
                    {
                        **w,
                        "count": int(w.get("count", 1)) + 1,
                        "at_close": int(w.get("at_close", 0)) + at_close,
                    }
                    if w is current
                    else w
                    for w in d.windows
                )
    if p.role == _key(d, "early_death_role"):
        for q in _holders(d, "early_death"):
            _out(d, q.id, CAUSE_EARLY, night=night)
    ghost = next((q for q in d.players.values() if q.links.get("possess") == pid and q.alive), None)
    for f in followers(d, pid):
        if d.p(f).links.get("hostage") == pid and d.p(f).alive and "hostage" in d.p(f).skills:
            _out(d, f, CAUSE_HOSTAGE, night=night)
    if ghost is not None and "possess" in ghost.skills:
        held = p.skills or d.base.players[pid].skills
        w = d.wp(ghost.id)
        w.skills = (*w.skills, *[s for s in held if s not in w.skills])
        if p.flags.get("void_voters"):
            w.flags["void_voters"] = list(p.flags["void_voters"])
        d.public("possessed", {"text": d.rs.text("possessed", name=ghost.name), "id": ghost.id})
        _shown(d, ghost.id)
        _tell(d, ghost.id, "possess", f"你获得了{p.name}的全部技能。", skills=list(held))
    if p.role == params["queen_role"]:
        for q in _holders(d, "advise"):
            d.wp(q.id).skills = tuple(s for s in q.skills if s != "advise")
            _tell(d, q.id, "advise", "狼后出局，你失去<献策>。")
    if p.role == _key(d, "inherit_role") and ghost is None:
        for q in _holders(d, "inherit"):
            held = p.skills or d.base.players[pid].skills
            w = d.wp(q.id)
            w.skills = (*w.skills, *[s for s in held if s not in w.skills])
            if p.faction == _key(d, "inherit_faction"):
                w.flags["void_voters"] = list(p.flags.get("void_voters", []))
            used = {d.rs.skills[s].name: n for s, n in p.used.items()}
            _tell(d, q.id, "inherit", "你继承了野心家的全部技能。", used=used)


# --- triggers on the holder's out ---------------------------------------------------------------


@register_trigger("lf_pass_on")
def _pass_on(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """传位: unless a 幽灵 possesses the 狼后, a random wolf gets <传位><杀人>."""
    if any(q.links.get("possess") == pid and q.alive for q in d.players.values()):
        return False
    pool = sorted(q.id for q in d.living() if q.faction == _key(d, "wolf_faction"))
    if not pool:
        return False
    heir = d.rng.choice(pool)
    w = d.wp(heir)
    w.skills = (*w.skills, *[s for s in t.params["skills"] if s not in w.skills])
    d.note("传位", f"{w.name}获得<传位><杀人>。", target=heir)
    _tell(d, heir, "pass_on", "狼后出局，你获得技能<传位><杀人>。")
    return False


@register_trigger("lf_barrier")
def _barrier(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    d.public("barrier", {"text": d.rs.text("barrier", name=d.name(pid)), "id": pid})
    return False


def _day_ballots(d: Draft) -> list[tuple[int, int]]:
    kept = d.flags.get("day_ballots") or {}
    if kept.get("day") != d.day:
        return []
    return [(int(v), int(t)) for v, t in kept["ballots"]]


@register_trigger("lf_enemy")
def _enemy(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """公敌: out by an effective kill at night, the first killer (出刀顺序) may bring one into its
    faction; voted out, every voter gets one 预言 tonight and one drawn among them may."""
    if f.night and f.cause == CAUSE_KILL:
        killers = [k for k in (d.night.get("lf_sources") or {}).get(str(pid), []) if d.p(k).alive]
        if killers:
            open_window(d, killers[0], "enemy_convert", night=True)
        return False
    if f.cause == CAUSE_VOTE:
        voters = sorted({v for v, tgt in _day_ballots(d) if tgt == pid and d.p(v).alive})
        for v in voters:
            w = d.wp(v)
            if "prophecy_once" not in w.skills:
                w.skills = (*w.skills, "prophecy_once")
        if voters:
            open_window(d, d.rng.choice(voters), "enemy_convert", night=False)
    return False


@register_trigger("lf_together")
def _together(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """共死: whoever put the 地雷 out goes too; by the vote, its first voter (RULINGS 061-12)."""
    if f.cause == CAUSE_VOTE:
        first = [v for v, tgt in _day_ballots(d) if tgt == pid]
        who = first[:1]
    else:
        # the kill that landed (出刀顺序: the first), not a later one that found it out already
        by = (d.night.get("lf_sources") or {}).get(str(pid), [])[:1] if f.night else []
        who = [*by, *d.flags.get("lf_by", {}).get(str(pid), [])]
    for q in dict.fromkeys(who):
        if d.p(q).alive:
            _out(d, q, CAUSE_TOGETHER, night=f.night, by=[pid])
    return False


@register_trigger("lf_grudge")
def _grudge_open(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    if d.p(pid).used.get("grudge"):
        return False
    voters = sorted({v for v, tgt in _day_ballots(d) if tgt == pid})
    open_window(d, pid, "grudge", night=False)
    d.windows = tuple(
        {**w, "voters": voters} if w["actor"] == pid and w["skill"] == "grudge" else w
        for w in d.windows
    )
    return False


# --- the day's vote -----------------------------------------------------------------------------

SUPREME = Reason("supreme", "<独尊>：对该角色的投票无效。", public=False)
STAGE = Reason("stage", "铁柱<票台>：今日不可被投票出局。")


def void_voters_of(d: Draft, p: Player) -> list[int]:
    """Whose votes on ``p`` count for nothing (独尊, and what 继承/附身 carried over)."""
    return [int(v) for v in p.flags.get("void_voters", [])] if p.alive else []


@register_hook("lf_vote_modifiers")
def _vote_modifiers(d: Draft, mods: VoteModifiers) -> VoteModifiers:
    pairs = dict(mods.void_pairs)
    for p in d.living():
        for v in void_voters_of(d, p):
            pairs[(v, p.id)] = SUPREME
    multipliers = dict(mods.multipliers)
    immune = dict(mods.immune)
    for p in d.living():
        if p.statuses.get("cursed") == d.day:
            multipliers[p.id] = Adjust(Fraction(2), "<诅咒>")
        if p.statuses.get("stage") == d.day:
            immune[p.id] = STAGE
    return VoteModifiers(
        weights=mods.weights,
        multipliers=multipliers,
        void_voters=mods.void_voters,
        void_pairs=pairs,
        immune=immune,
        still_voting=mods.still_voting,
        role_holders=mods.role_holders,
    )


@register_hook("lf_voted_out")
def _voted_out(d: Draft, pid: int) -> bool:
    """The top-voted player: 天罡护体 (days 1–2) or 守护 puts nobody out (RULINGS 061-2); a
    天使 with 偏爱 unused is asked first (RULINGS 061-8): the out waits for her window."""
    p = d.p(pid)
    if ("tiangang" in p.skills and d.day <= _tiangang(d)) or _guarded(d, p):
        d.public("no_one_out", {"text": d.rs.text("no_one_blocked", name=p.name)})
        return True
    angels = [q for q in _holders(d, "favor") if not q.used.get("favor")]
    if angels:
        angel = angels[0]
        open_window(d, angel.id, "favor", night=False)
        d.windows = tuple(
            {**w, "voted": pid} if w["actor"] == angel.id and w["skill"] == "favor" else w
            for w in d.windows
        )
        return True
    return False


# --- win conditions -----------------------------------------------------------------------------


def _living(d: Draft, faction: str) -> list[Player]:
    return [p for p in d.living() if p.faction == faction]


def _piped(d: Draft, p: Player) -> bool:
    return "piped" in p.statuses and _key(d, "piper_faction") not in d.lost


@victory.register_condition("lf_all_piped")
def _all_piped(d: Draft, faction: str, c: Condition) -> bool:
    members = _living(d, faction)
    return bool(members) and all(_piped(d, p) for p in members)


@victory.register_condition("lf_all_piped_but")
def _all_piped_but(d: Draft, faction: str, c: Condition) -> bool:
    others = [p for p in d.living() if p.faction not in c.params["factions"]]
    return bool(others) and all(_piped(d, p) for p in others)


@victory.register_condition("lf_none_alive")
def _none_alive(d: Draft, faction: str, c: Condition) -> bool:
    return not any(p.faction in c.params["factions"] for p in d.living())


@victory.register_condition("lf_votes_void")
def _votes_void(d: Draft, faction: str, c: Condition) -> bool:
    for p in _living(d, faction):
        others = [q.id for q in d.living() if q.faction != faction]
        if others and set(others) <= set(void_voters_of(d, p)):
            return True
    return False


@victory.register_condition("lf_peaceful_nights")
def _peaceful(d: Draft, faction: str, c: Condition) -> bool:
    return int(d.flags.get("lf_peaceful", 0)) >= int(c.params["count"])


@victory.register_condition("lf_day_reached")
def _day_reached(d: Draft, faction: str, c: Condition) -> bool:
    if d.flags.get("lf_day_open") != c.params["day"]:
        return False
    return any(p.role in c.params["roles"] for p in _living(d, faction))


__all__ = ["convert", "count_chars", "followers", "rocked"]


def _ask(d: Draft, p: Player, sk: Skill, a: UseSkill, now: float) -> None:
    """不定阵营的角色有且仅有一次机会询问导演，得知当前所属的阵营 (any time, once)."""
    if a.targets:
        raise InvalidInput(reason="no target")
    if p.used.get(sk.key):
        raise SkillUsedUp(skill=sk.key)
    d.wp(p.id).used[sk.key] = 1
    _tell(d, p.id, sk.key, f"你当前属于{_fname(d, p.faction)}。", faction=p.faction)
    d.directors("submitted", {"actor": p.id, "skill": sk.key}, p.id)


WIDE["lf_ask"] = _ask


@register_hook("lf_view")
def _view(d: Draft, p: Player, view: dict[str, Any]) -> dict[str, Any]:
    """A player's own [061] facts: its roster (互知), the 狼群 it is in, its <炼> marks, the
    skills a 狡黠 offers, and the public ones: who is piped, who is on today's 票台."""
    extra: dict[str, Any] = {}
    if p.flags.get("roster") is not None:
        extra["roster"] = p.flags["roster"]
    pack = [int(q) for q in d.flags.get("lf_pack", [])]
    if p.id in pack:
        extra["pack"] = [{"id": q, "name": d.name(q), "alive": d.p(q).alive} for q in pack]
    if "purgatory" in p.skills or p.counters.get("marks"):
        extra["marks"] = p.counters.get("marks", 0)
    if p.flags.get("borrow"):
        extra["borrow"] = p.flags["borrow"]
    extra["piped"] = sorted(q.id for q in d.players.values() if "piped" in q.statuses)
    extra["stage"] = sorted(q.id for q in d.living() if q.statuses.get("stage") == d.day)
    card = view["card"]
    if p.links.get("possess") is not None or p.links.get("hostage") is not None:
        # A 不定 following its host is never told the faction it is in (不会收到阵营转变的通知;
        # RULINGS 061-5): its card names its own, and only its one question tells it.
        drifter = _params(d)["drifter"]
        card = {**card, "faction": drifter, "faction_name": _fname(d, drifter)}
    return {**view, "card": card, "lin_feng": extra}
