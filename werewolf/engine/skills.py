"""Skill submissions and the action dispatcher.

``apply_action(state, action, rng, now)`` → ``(state, events)``, or a RuleError with the state
untouched. A skill names its handler in the ruleset: ``pick`` records tonight's target of a
night step (the pipeline in ``night`` decides what it does), ``elect`` is the wolves' vote for
the 主刀狼, ``shoot`` is 最后一枪, ``appoint`` names the 警长 (遗志, 殉职).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from games.engine.errors import InvalidInput
from games.engine.events import GameEvent

from . import victory
from .actions import Action, Forgo, Surrender, SurrenderAnswer, UseSkill
from .draft import Draft, open_draft
from .errors import (
    ActorOut,
    Charmed,
    ForcedSkill,
    GameOver,
    InvalidTarget,
    NoSurrender,
    NotYourSkill,
    PotionTonight,
    RepeatTarget,
    SkillUsedUp,
    StepClosed,
    StepNotOpen,
    UnknownPlayer,
    WindowClosed,
)
from .hooks import hooks
from .outcomes import out_by
from .ruleset import CHECKS, Ruleset, RulesetError, Skill
from .state import CAUSE_SHOT, NIGHT, OVER, GameState, Player
from .steps import available, charmed, progress, put_sub, subs, team_of

Now = datetime | float | int
SkillHandler = Callable[[Draft, Player, Skill, int, float], None]
HANDLERS: dict[str, SkillHandler] = {}
# Handlers of skills naming another count of targets than one (``Skill.targets``), or an
# ``option``: they get the whole action and check its targets themselves.
WideHandler = Callable[[Draft, Player, Skill, UseSkill, float], None]
WIDE: dict[str, WideHandler] = {}


def seconds(now: Now) -> float:
    return now.timestamp() if isinstance(now, datetime) else float(now)


def register_handler(name: str) -> Callable[[SkillHandler], SkillHandler]:
    def add(fn: SkillHandler) -> SkillHandler:
        HANDLERS[name] = fn
        return fn

    return add


def _check_names(rs: Ruleset) -> None:
    for sk in rs.skills.values():
        if sk.handler is not None and sk.handler not in HANDLERS and sk.handler not in WIDE:
            raise RulesetError(f"skills.{sk.key}.handler", f"unknown handler {sk.handler}")


CHECKS.append(_check_names)


def player(d: Draft, pid: int) -> Player:
    if pid not in d.players:
        raise UnknownPlayer(id=pid)
    return d.p(pid)


def target_of(d: Draft, p: Player, sk: Skill, targets: tuple[int, ...]) -> int:
    """One living target (已经出局的角色不允许被选为技能的目标), per the skill's rule."""
    if len(targets) != 1:
        raise InvalidInput(reason="one target")
    t = player(d, targets[0])
    if not t.alive:
        raise InvalidTarget(reason="out")
    if sk.target == "other" and t.id == p.id:
        raise InvalidTarget(reason="self")
    if sk.target == "teammate" and t.faction != p.faction:
        raise InvalidTarget(reason="not a teammate")
    return t.id


def _step_open(d: Draft, sk: Skill, now: float) -> None:
    if d.phase != NIGHT or sk.step is None:
        raise StepNotOpen(step=sk.step)
    st = d.night["steps"][sk.step]
    if st["state"] == "waiting":
        raise StepNotOpen(step=sk.step)
    if st["state"] == "closed" or now > st["deadline"]:
        raise StepClosed(step=sk.step)


def _window(d: Draft, pid: int, skill: str, now: float) -> dict[str, Any]:
    for w in d.windows:
        if w["actor"] == pid and w["skill"] == skill and now <= w["until"]:
            return w
    raise WindowClosed(skill=skill)


def _announce_team(d: Draft, p: Player, kind: str, payload: dict[str, Any]) -> None:
    """A team skill's submission is seen by the whole team (狼人共同选举/指杀)."""
    for pid in team_of(d, p.faction):
        d.to(pid, kind, payload, p.id)


@register_handler("pick")
def pick(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    if sk.exclusive:
        step = d.rs.step(sk.step or "")
        for other in step.skills:
            osk = d.rs.skills[other]
            taken = subs(d, other).get(str(p.id)) is not None
            if other != sk.key and osk.exclusive == sk.exclusive and taken:
                raise PotionTonight()
    last = p.flags.get(f"last_{sk.key}")
    if sk.no_repeat and last == [target, d.day - 1]:
        raise RepeatTarget()
    put_sub(d, sk.key, p.id, target)
    payload = {"skill": sk.key, "name": sk.name, "target": target, "target_name": d.name(target)}
    if "团队" in sk.tags:
        _announce_team(d, p, "team_pick", {**payload, "by": p.id, "by_name": p.name})
    else:
        d.to(p.id, "submitted", payload, p.id)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)


@register_handler("elect")
def elect(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    if d.night.get("leader") is not None:
        raise StepClosed(reason="主刀狼已选出")
    if not available(d, d.p(target), sk.key):
        raise InvalidTarget(reason="cannot lead tonight")
    put_sub(d, sk.key, p.id, target)
    payload = {"by": p.id, "by_name": p.name, "target": target, "target_name": d.name(target)}
    _announce_team(d, p, "team_vote", payload)
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)


@register_handler("shoot")
def shoot(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """最后一枪. Fired during a night (a 猎人 voted out at the close still has its 30 minutes),
    it is announced at once and settled first at the night's end (枪-毒-刀); by day the target
    is out at once, with its role."""
    w = _window(d, p.id, sk.key, now)
    d.windows = tuple(x for x in d.windows if x is not w)
    text = d.rs.text("shot", hunter=p.name, target=d.name(target))
    d.public("shot", {"text": text, "hunter": p.id, "target": target})
    d.directors("submitted", {"actor": p.id, "skill": sk.key, "target": target}, p.id)
    if d.phase == NIGHT:
        d.set_night(shots=[*d.night.get("shots", []), [p.id, target]])
    else:
        out_by(d, target, CAUSE_SHOT, night=False)


@register_handler("appoint")
def appoint(d: Draft, p: Player, sk: Skill, target: int, now: float) -> None:
    """遗志 (高僧 out by 献身) and 殉职 (the 警长 out, or a 白痴 handing over after 装傻): the new
    警长. A 白痴 who used 装傻 cannot be it (不能继任警长)."""
    w = _window(d, p.id, sk.key, now)
    if d.p(target).flags.get("feigned") or target == p.id:
        raise InvalidTarget(reason="cannot be the sheriff")
    d.windows = tuple(x for x in d.windows if x is not w)
    d.sheriff = target
    text = d.rs.text(sk.announce or sk.key, monk=p.name, old=p.name, new=d.name(target))
    d.public("sheriff", {"text": text, "sheriff": target, "name": d.name(target), "by": sk.key})


def use_skill(d: Draft, a: UseSkill, now: float) -> None:
    sk = d.rs.skills.get(a.skill)
    if sk is None or sk.handler is None:
        raise InvalidInput(reason="unknown skill")
    p = player(d, a.actor)
    if sk.window is None:
        if not p.alive:
            raise ActorOut()
        if a.skill not in p.skills or p.idle:
            raise NotYourSkill(skill=a.skill)
    if charmed(d, p):
        raise Charmed()
    # A wide handler reads the whole action (several targets, an option); the others get the
    # one target, checked before anything else is.
    wide = WIDE.get(sk.handler)
    if wide is None and a.option is not None:  # only a wide handler reads an option
        raise InvalidInput(
            "这个技能没有可选项。", message_en="This skill has no options.", reason="no option"
        )
    target = None if wide is not None else target_of(d, p, sk, a.targets)
    if sk.limited and p.used.get(sk.key, 0) >= 1:
        raise SkillUsedUp(skill=sk.key)
    for refuse in hooks(d.rs, "refuse"):  # the ruleset's own reason first (096: 冷却中)
        refuse(d, p, sk)
    if sk.step is not None:
        _step_open(d, sk, now)
    if wide is not None:
        wide(d, p, sk, a, now)
    else:
        assert target is not None  # noqa: S101  (target_of names one or raises)
        HANDLERS[sk.handler](d, p, sk, target, now)
    if sk.step is not None:
        progress(d)


def forgo(d: Draft, a: Forgo, now: float) -> None:
    sk = d.rs.skills.get(a.skill)
    if sk is None:
        raise InvalidInput(reason="unknown skill")
    p = player(d, a.actor)
    if sk.window is not None:
        w = _window(d, p.id, sk.key, now)
        d.windows = tuple(x for x in d.windows if x is not w)
        d.to(p.id, "forgone", {"skill": sk.key, "name": sk.name}, p.id)
        if sk.forfeit_announce is not None:
            text = d.rs.text(sk.forfeit_announce, old=p.name)
            d.public(sk.forfeit_announce, {"text": text})
        for hook in hooks(d.rs, "window_closed"):
            hook(d, w, False)
        return
    if not available(d, p, sk.key):
        raise NotYourSkill(skill=sk.key)
    if sk.forced:
        raise ForcedSkill(skill=sk.key)
    _step_open(d, sk, now)
    put_sub(d, sk.key, p.id, None)
    d.to(p.id, "forgone", {"skill": sk.key, "name": sk.name}, p.id)
    d.directors("forgone", {"actor": p.id, "skill": sk.key}, p.id)
    progress(d)


def _surrender_members(d: Draft, faction: str) -> list[int]:
    return [p.id for p in d.players.values() if p.faction == faction and p.alive]


def surrender(d: Draft, a: Surrender, now: float) -> None:
    """投降: asked of every living member; it holds when all agree (狼人阵营判负)."""
    p = player(d, a.actor)
    if not p.alive or p.faction not in d.rs.surrender or d.surrender is not None:
        raise NoSurrender()
    d.surrender = {"faction": p.faction, "yes": [p.id]}
    for pid in _surrender_members(d, p.faction):
        d.to(pid, "surrender_asked", {"by": p.id, "by_name": p.name}, p.id)
    d.directors("surrender_asked", {"by": p.id, "faction": p.faction}, p.id)
    _surrender_done(d)


def surrender_answer(d: Draft, a: SurrenderAnswer, now: float) -> None:
    p = player(d, a.actor)
    pending = d.surrender
    if pending is None or not p.alive or p.faction != pending["faction"]:
        raise NoSurrender()
    members = _surrender_members(d, pending["faction"])
    if not a.accept:
        d.surrender = None
        for pid in members:
            d.to(pid, "surrender_refused", {"by": p.id, "by_name": p.name}, p.id)
        d.directors("surrender_refused", {"by": p.id}, p.id)
        return
    d.surrender = {**pending, "yes": sorted({*pending["yes"], p.id})}
    _surrender_done(d)


def _surrender_done(d: Draft) -> None:
    pending = d.surrender
    if pending is not None and set(_surrender_members(d, pending["faction"])) <= set(
        pending["yes"]
    ):
        d.surrender = None
        d.public("surrender", {"faction": pending["faction"], "text": d.rs.text("surrender")})
        victory.lose(d, pending["faction"], "投降")
        victory.check(d)


Handler = Callable[[Draft, Any, float], None]
ACTIONS: dict[type[Action], Handler] = {
    UseSkill: use_skill,
    Forgo: forgo,
    Surrender: surrender,
    SurrenderAnswer: surrender_answer,
}


def register_action(cls: type[Action], handler: Handler) -> None:
    ACTIONS[cls] = handler


def apply_action(
    state: GameState, action: Action, rng: random.Random, now: Now
) -> tuple[GameState, list[GameEvent]]:
    handler = ACTIONS.get(type(action))
    if handler is None:
        raise InvalidInput(action=type(action).__name__)
    if state.phase == OVER:
        raise GameOver()
    t = seconds(now)
    d = open_draft(state, rng, t)
    handler(d, action, t)
    return d.finish(), d.events
