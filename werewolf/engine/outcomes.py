"""Eliminations (出局) and what they trigger, shared by the night settlement and the day.

``out_by`` is the door for an elimination by a cause the 情痴 may take over (投票/指杀 →
替死); ``eliminate`` records it and runs the triggers: 村长 stripping the village's skills,
a 白痴 who used 装傻 going out when it is lost, the windows of 最后一枪/遗志/殉职, 魅惑 for the
next night, and the win check after every single elimination.
"""

from __future__ import annotations

from typing import Any

from . import victory
from .draft import Draft
from .state import (
    CAUSE_KILL,
    CAUSE_LOST_FEIGN,
    CAUSE_POISON,
    CAUSE_RED_CARD,
    CAUSE_SACRIFICE,
    CAUSE_SHOT,
    CAUSE_SUBSTITUTE,
    CAUSE_VOTE,
    Out,
)

# 替死: the lover takes the place of its target out by vote or kill (因投票、指杀而出局).
SUBSTITUTED = {CAUSE_VOTE: "投票", CAUSE_KILL: "指杀"}
# 长生: the village loses its skills when the 村长 goes out by these (投票、毒药、最后一枪).
STRIPPING = frozenset({CAUSE_VOTE, CAUSE_POISON, CAUSE_SHOT})


def lover_of(d: Draft, pid: int) -> int | None:
    for p in d.players.values():
        if p.alive and p.links.get("love") == pid and "substitute" in p.skills:
            return p.id
    return None


def out_by(
    d: Draft, pid: int, cause: str, *, night: bool, void: frozenset[int] = frozenset()
) -> None:
    """Eliminate ``pid`` by ``cause``, or its lover in its place. ``void``: lovers whose 爱慕 is
    void tonight (情痴夜晚受到有效出局技能则发动的[爱慕]无效)."""
    if d.winner is not None:
        return
    lover = lover_of(d, pid) if cause in SUBSTITUTED else None
    if lover is not None and lover not in void:
        text = d.rs.text(
            "substitute", target=d.name(pid), how=SUBSTITUTED[cause], lover=d.name(lover)
        )
        d.note("替死", text, target=pid, lover=lover)
        d.public("substitute", {"text": text, "target": pid, "lover": lover})
        eliminate(d, lover, CAUSE_SUBSTITUTE, night=night)
        return
    eliminate(d, pid, cause, night=night)


def eliminate(d: Draft, pid: int, cause: str, *, night: bool) -> None:
    if d.winner is not None or not d.p(pid).alive:
        return
    p = d.wp(pid)
    p.alive = False
    d.add_out(Out(pid, cause, d.day, night))
    d.note("出局", f"{p.name}出局（{cause}）。", target=pid, cause=cause)
    d.directors("out", {"id": pid, "cause": cause, "day": d.day, "night": night})
    if not night:
        # 白天出局的角色将立即公示，并公示身份。
        d.public("out", {"id": pid, "name": p.name, "role": d.role_name(pid), "cause": cause})
        d.to(pid, "you_are_out", {"cause": cause})
    skills = p.skills
    if cause == CAUSE_RED_CARD:
        p.skills = ()  # 红牌罚下出局的角色不能任何技能
    else:
        if "last_shot" in skills:
            open_window(d, pid, "last_shot", night=night)
        if cause == CAUSE_SACRIFICE and "will" in skills:
            open_window(d, pid, "will", night=night)
        if cause == CAUSE_VOTE and "charm" in skills and p.gender:
            d.set_flag("charm", {"night": d.day + 1, "gender": p.gender})
            text = d.rs.text("charm", name=p.name)
            d.note("魅惑", text)
            d.public("charm", {"text": text, "night": d.day + 1})
    if d.sheriff == pid:
        d.sheriff = None
        if cause != CAUSE_RED_CARD:
            open_window(d, pid, "succession", night=night)
    if victory.check(d):
        return
    if cause in STRIPPING and "longevity" in skills:
        strip_faction(d, p.faction, but=pid, night=night)


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
        if "feign" in w.skills and w.flags.get("feigned"):
            feigned.append(w.id)
        w.skills = ()
        if w.alive:
            d.to(w.id, "skills_lost", {})
    stripped = {p.id for p in d.players.values() if p.faction == faction and p.id != but}
    d.windows = tuple(
        w for w in d.windows if w["actor"] not in stripped or w["skill"] == "succession"
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
    d.to(pid, "window_open", {"skill": skill, "name": d.rs.skills[skill].name, "until": until})
