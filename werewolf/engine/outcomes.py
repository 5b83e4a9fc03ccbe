"""Eliminations (出局) and the triggers they fire, shared by the night settlement and the day.

What fires is data: each skill of the ruleset lists its ``triggers`` (when, for which causes,
which handler); the behaviour is a handler registered here under a name. ``out_by`` is the door
for an elimination another player may take over (``replace``: 替死 for 投票/指杀); ``eliminate``
records it and runs the ``out`` triggers of what the player held — its skills and, for the
警长, the badge's — then the win check, then the triggers marked ``after_check`` (长生's
stripping). The day's own triggers (``voted_out``: 装傻, ``tie``: 献身) are registered in
``day``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import victory
from .draft import Draft
from .hooks import hooks
from .ruleset import CHECKS, Ruleset, RulesetError, Trigger
from .state import CAUSE_LOST_FEIGN, CAUSE_RED_CARD, CAUSE_SUBSTITUTE, Out


@dataclass(frozen=True, slots=True)
class Fired:
    """What fired a trigger: ``pid`` is going out (or tops the vote) by ``cause``; ``skill`` is
    the holder's skill that carries the trigger; ``void``: holders whose skill is void tonight."""

    pid: int
    cause: str
    night: bool
    skill: str
    void: frozenset[int] = frozenset()


# A handler returns True when it took the event over (替死 went out instead, 装傻 kept the
# player in); for ``out`` triggers the result is ignored.
TriggerHandler = Callable[[Draft, int, Trigger, Fired], bool]
TRIGGERS: dict[str, TriggerHandler] = {}


def register_trigger(name: str) -> Callable[[TriggerHandler], TriggerHandler]:
    def add(fn: TriggerHandler) -> TriggerHandler:
        TRIGGERS[name] = fn
        return fn

    return add


def _check_names(rs: Ruleset) -> None:
    for sk in rs.skills.values():
        for t in sk.triggers:
            if t.handler not in TRIGGERS:
                raise RulesetError(f"skills.{sk.key}.triggers", f"unknown handler {t.handler}")
            if t.handler == "window" and sk.key not in rs.windows:
                raise RulesetError(f"skills.{sk.key}.triggers", "a window trigger needs a window")


CHECKS.append(_check_names)


def triggers_of(d: Draft, pid: int, on: str) -> list[tuple[str, Trigger]]:
    """The ``on`` triggers ``pid`` holds now, in skill order: its own skills, then the badge's."""
    held = list(d.p(pid).skills)
    if d.sheriff == pid:
        held += [s for s in d.rs.sheriff_skills if s not in held]
    return [(s, t) for s in held for t in d.rs.skills[s].triggers if t.on == on]


def answers(t: Trigger, cause: str) -> bool:
    # 红牌罚下出局的角色不能任何技能: a red card fires nothing unless a trigger names it.
    return cause != CAUSE_RED_CARD if t.causes is None else cause in t.causes


def out_by(
    d: Draft, pid: int, cause: str, *, night: bool, void: frozenset[int] = frozenset()
) -> None:
    """Eliminate ``pid`` by ``cause``, unless a ``replace`` trigger of another living player
    takes its place. ``void``: players whose such skill is void tonight (情痴夜晚受到有效出局
    技能则发动的[爱慕]无效)."""
    if d.winner is not None:
        return
    if any(hook(d, pid, cause, night) for hook in hooks(d.rs, "spare")):
        return
    if not replaced(d, pid, cause, night=night, void=void):
        eliminate(d, pid, cause, night=night)


def replaced(
    d: Draft, pid: int, cause: str, *, night: bool, void: frozenset[int] = frozenset()
) -> bool:
    """Whether a ``replace`` trigger of another living player took ``pid``'s elimination by
    ``cause`` (and went out itself)."""
    for q in sorted(d.living(), key=lambda p: p.id):
        if q.id == pid or q.id in void:
            continue
        for skill, t in triggers_of(d, q.id, "replace"):
            fired = Fired(pid, cause, night, skill, void)
            if answers(t, cause) and TRIGGERS[t.handler](d, q.id, t, fired):
                return True
    return False


def eliminate(d: Draft, pid: int, cause: str, *, night: bool) -> None:
    if d.winner is not None or not d.p(pid).alive:
        return
    held = [(s, t) for s, t in triggers_of(d, pid, "out") if answers(t, cause)]
    p = d.wp(pid)
    p.alive = False
    d.add_out(Out(pid, cause, d.day, night))
    d.note("出局", f"{p.name}出局（{cause}）。", target=pid, cause=cause)
    d.directors("out", {"id": pid, "cause": cause, "day": d.day, "night": night})
    if not night:
        # 白天出局的角色将立即公示，并公示身份。
        shown = {"role": d.role_name(pid)} if d.rs.reveal_day_outs else {}
        d.public("out", {"id": pid, "name": p.name, **shown, "cause": cause})
        d.to(pid, "you_are_out", {"cause": cause})
    if cause == CAUSE_RED_CARD:
        p.skills = ()
    if d.sheriff == pid:
        d.sheriff = None  # the badge leaves with its holder; 殉职 (a trigger) may hand it on
    for skill, t in held:
        if not t.after_check:
            TRIGGERS[t.handler](d, pid, t, Fired(pid, cause, night, skill))
    for hook in hooks(d.rs, "out"):
        hook(d, pid, cause, night)
    if victory.check(d):
        return
    for skill, t in held:
        if t.after_check and d.winner is None:
            TRIGGERS[t.handler](d, pid, t, Fired(pid, cause, night, skill))


# --- the handlers of [099] ----------------------------------------------------------------------


@register_trigger("substitute")
def _substitute(d: Draft, lover: int, t: Trigger, f: Fired) -> bool:
    """替死: the 情痴 goes out in the place of the one it loves (因投票、指杀而出局)."""
    if d.p(lover).links.get("love") != f.pid:
        return False
    how = t.params.get("words", {}).get(f.cause, f.cause)
    text = d.rs.text("substitute", target=d.name(f.pid), how=how, lover=d.name(lover))
    d.note("替死", text, target=f.pid, lover=lover)
    d.public("substitute", {"text": text, "target": f.pid, "lover": lover})
    eliminate(d, lover, CAUSE_SUBSTITUTE, night=f.night)
    return True


@register_trigger("window")
def _window(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """最后一枪, 遗志, 殉职: the skill's day window opens for the one out."""
    open_window(d, pid, f.skill, night=f.night)
    return False


@register_trigger("charm")
def _charm(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """魅惑: voted out, the dreamer charms the other gender the following night."""
    p = d.p(pid)
    if not p.gender:
        return False
    d.set_flag("charm", {"night": d.day + 1, "gender": p.gender})
    text = d.rs.text("charm", name=p.name)
    d.note("魅惑", text)
    d.public("charm", {"text": text, "night": d.day + 1})
    return False


@register_trigger("strip_faction")
def _strip(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    strip_faction(d, d.p(pid).faction, but=pid, night=f.night)
    return False


def strip_faction(d: Draft, faction: str, *, but: int, night: bool) -> None:
    """村长's 长生: the rest of the faction loses its skills (the 警长's badge is not a role's
    skill and stays). A 白痴 who already used 装傻 goes out at once (失去此技能时立即出局)."""
    d.note("长生", f"村长出局，{d.rs.factions[faction].name}的其余角色失去技能。")
    d.directors("skills_lost", {"faction": faction})
    feigned = []
    for p in list(d.players.values()):
        if p.faction != faction or p.id == but or not p.skills:
            continue
        w = d.wp(p.id)
        if w.flags.get("feigned"):
            feigned.append(w.id)
        w.skills = ()
        if w.alive:
            d.to(w.id, "skills_lost", {})
    stripped = {p.id for p in d.players.values() if p.faction == faction and p.id != but}
    d.windows = tuple(
        w for w in d.windows if w["actor"] not in stripped or w["skill"] in d.rs.sheriff_skills
    )
    for pid in feigned:
        if d.winner is not None:
            return
        if not night:
            d.public("lost_feign", {"text": d.rs.text("lost_feign", name=d.name(pid))})
        eliminate(d, pid, CAUSE_LOST_FEIGN, night=night)


def open_window(d: Draft, pid: int, skill: str, *, night: bool) -> None:
    """A day window (最后一枪, 遗志, 殉职): 30 minutes after a death by day; after the next
    day's open for a death at night (the night deaths are known at the open, ``d.now``)."""
    w = d.rs.windows[skill]
    minutes = w.night_minutes_after_open if night else w.day_minutes
    until = (d.now or 0.0) + minutes * 60
    entry: dict[str, Any] = {"skill": skill, "actor": pid, "until": until}
    d.windows = (*[x for x in d.windows if x["actor"] != pid or x["skill"] != skill], entry)
    payload: dict[str, Any] = {"skill": skill, "name": d.rs.skills[skill].name, "until": until}
    if w.until_night:
        payload["closes"] = "night_open"
    d.to(pid, "window_open", payload)
