"""The night's steps in the post's order (情痴, 守护, 先知, 狼人, 白眼狼, 女巫): who may act in
each, when a step is done, its deadline (行动时限, relative to the day's close, or to the moment
it opens for the 女巫 after 通灵), and the 主刀狼's election.

``d.night`` holds ``steps`` ({key: {"state": waiting|open|closed, "deadline"}}), ``subs``
({skill: {"<actor>": target or None when forgone}}), ``votes`` (the wolves' election),
``leader`` (the 主刀狼) and ``shots`` (最后一枪 fired during the night, settled first).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .draft import Draft
from .hooks import hooks
from .ruleset import NightStep
from .state import NIGHT, Player


def charmed(d: Draft, p: Player) -> bool:
    """梦中人[魅惑]: the night after its vote-out, players of the other gender use no skill."""
    charm = d.flags.get("charm") or {}
    return (
        d.phase == NIGHT
        and charm.get("night") == d.day
        and p.gender is not None
        and p.gender != charm.get("gender")
    )


def _may_use(d: Draft, p: Player, skill: str) -> bool:
    sk = d.rs.skills[skill]
    return (
        p.alive
        and not p.idle
        and skill in p.skills
        and not (sk.limited and p.used.get(skill, 0) >= 1)
        and not charmed(d, p)
        and all(ok(d, p, skill) for ok in hooks(d.rs, "available"))
    )


def electors(d: Draft, skill: str) -> list[int]:
    """Who may take part in an election skill (选举) tonight."""
    return [p.id for p in d.players.values() if _may_use(d, p, skill)]


def available(d: Draft, p: Player, skill: str) -> bool:
    """May ``p`` use ``skill`` now. An election with one elector is no election (RULINGS 8: a
    lone wolf is the 主刀狼 at once), so nobody has it to use, or to miss."""
    if not _may_use(d, p, skill):
        return False
    return d.rs.skills[skill].handler != "elect" or len(electors(d, skill)) > 1


def subs(d: Draft, skill: str) -> dict[str, Any]:
    found: dict[str, Any] = d.night.get("subs", {}).get(skill, {})
    return found


def put_sub(d: Draft, skill: str, actor: int, target: int | None) -> None:
    all_subs = dict(d.night.get("subs", {}))
    all_subs[skill] = {**all_subs.get(skill, {}), str(actor): target}
    d.set_night(subs=all_subs)


def elect_skill(d: Draft, step: NightStep) -> str | None:
    return next((s for s in step.skills if d.rs.skills[s].handler == "elect"), None)


def actors(d: Draft, step: NightStep) -> list[int]:
    return [p.id for p in d.players.values() if any(available(d, p, s) for s in step.skills)]


def actor_done(d: Draft, step: NightStep, pid: int) -> bool:
    p = d.p(pid)
    elect = elect_skill(d, step)
    for s in step.skills:
        sk = d.rs.skills[s]
        if not available(d, p, s):
            continue
        if elect and s != elect and pid != d.night.get("leader"):
            continue  # only the 主刀狼's kill counts
        if sk.exclusive and any(
            subs(d, o).get(str(pid)) is not None
            for o in step.skills
            if o != s and d.rs.skills[o].exclusive == sk.exclusive
        ):
            continue  # 救药 taken: 毒药 is out for tonight, and the other way round
        if str(pid) not in subs(d, s):
            return False
    return True


def team_of(d: Draft, faction: str) -> list[int]:
    """Everyone of a team faction, the dead included (出局的狼群中的角色仍然留在狼群)."""
    return [p.id for p in d.players.values() if p.faction == faction]


def settle_election(d: Draft, step: NightStep, *, final: bool) -> None:
    """The 主刀狼: the most votes once every wolf who may vote has voted (or at the deadline,
    ``final``); a tie, or no vote at all, is drawn from the game's seed among the tied (or
    among the wolves who could have voted)."""
    elect = elect_skill(d, step)
    if elect is None or d.night.get("leader") is not None:
        return
    alone = electors(d, elect)
    if len(alone) == 1:
        # RULINGS 8: one wolf who may act is the 主刀狼 without an election.
        _lead(d, alone[0], {"leader": alone[0], "votes": {}, "drawn_from": [], "alone": True})
        return
    voters = [pid for pid in actors(d, step) if available(d, d.p(pid), elect)]
    votes = subs(d, elect)
    if not final and not all(str(v) in votes for v in voters):
        return
    counts = Counter(t for t in votes.values() if t is not None)
    if counts:
        top = max(counts.values())
        pool = sorted(t for t, n in counts.items() if n == top)
    else:
        pool = sorted(voters)
    if not pool:
        return
    leader = pool[0] if len(pool) == 1 else d.rng.choice(pool)
    _lead(d, leader, {"leader": leader, "votes": dict(votes), "drawn_from": pool})


def _lead(d: Draft, leader: int, facts: dict[str, Any]) -> None:
    d.set_night(leader=leader)
    d.directors("leader_elected", facts)
    for pid in team_of(d, d.p(leader).faction):
        d.to(pid, "leader_elected", {"leader": leader, "name": d.name(leader)})


def kills(d: Draft) -> list[tuple[str, int, int]]:
    """The effective kills (有效指杀) submitted tonight, in step order: (skill, actor, target);
    of a team step only the 主刀狼's; none of an actor out since (a red card in the night)."""
    found = []
    for step in d.rs.night_steps:
        elect = elect_skill(d, step)
        for s in step.skills:
            if d.rs.skills[s].effect != "kill":
                continue
            for actor, target in subs(d, s).items():
                if target is None or (elect and int(actor) != d.night.get("leader")):
                    continue
                if not d.p(int(actor)).alive:
                    continue
                found.append((s, int(actor), int(target)))
    return found


def open_step(d: Draft, step: NightStep) -> None:
    now = d.now or 0.0
    deadline = (d.closed_at or now) + step.minutes_after_close * 60
    if step.minutes_after_open is not None:
        deadline = min(deadline, now + step.minutes_after_open * 60)
    steps = dict(d.night["steps"])
    steps[step.key] = {"state": "open", "deadline": deadline}
    d.set_night(steps=steps)
    if step.feedback:
        # 通灵<强制>: told who is under an effective kill once the kills are final.
        targets = [{"id": t, "name": d.name(t)} for _, _, t in kills(d)]
        for p in d.players.values():
            if p.alive and step.feedback in p.skills and not charmed(d, p):
                d.to(p.id, "sense", {"skill": d.rs.skills[step.feedback].name, "targets": targets})
    for pid in actors(d, step):
        d.to(pid, "step_open", {"step": step.key, "name": step.name, "deadline": deadline})
    for hook in hooks(d.rs, "step_open"):
        hook(d, step)


def close_step(d: Draft, step: NightStep, *, forfeit: bool) -> None:
    settle_election(d, step, final=True)
    if forfeit:
        for pid in actors(d, step):
            if not actor_done(d, step, pid):
                # 必须行使特权的角色未在规定时间内行使: the <强制> skills it missed, for the cards
                # (096's 许愿 cannot be forgone, yet missing it proposes no card: RULINGS 096-17).
                forced = [
                    s
                    for s in step.skills
                    if "强制" in d.rs.skills[s].tags
                    and available(d, d.p(pid), s)
                    and str(pid) not in subs(d, s)
                ]
                d.to(pid, "forfeited", {"step": step.key, "name": step.name})
                d.directors("forfeited", {"step": step.key, "actor": pid, "forced": forced})
    steps = dict(d.night["steps"])
    steps[step.key] = {**steps[step.key], "state": "closed"}
    d.set_night(steps=steps)


def progress(d: Draft) -> None:
    """Open the steps whose predecessors are closed; close the steps everyone has done."""
    changed = True
    while changed:
        changed = False
        for step in d.rs.night_steps:
            state = d.night["steps"][step.key]["state"]
            if state == "waiting" and all(
                d.night["steps"][a]["state"] == "closed" for a in step.after
            ):
                open_step(d, step)
                changed = True
            elif state == "open":
                settle_election(d, step, final=False)
                if not step.hold and all(actor_done(d, step, pid) for pid in actors(d, step)):
                    close_step(d, step, forfeit=False)
                    changed = True


def pass_deadlines(d: Draft, now: float) -> None:
    if d.phase == NIGHT:
        for step in d.rs.night_steps:
            st = d.night["steps"][step.key]
            if st["state"] == "open" and st["deadline"] <= now:
                close_step(d, step, forfeit=True)
        progress(d)
        # A 女巫 opened after her hour's cap has no time left at all.
        for step in d.rs.night_steps:
            st = d.night["steps"][step.key]
            if st["state"] == "open" and st["deadline"] <= now:
                close_step(d, step, forfeit=True)
    for w in d.windows:
        if w["until"] <= now:
            expire_window(d, w)


def expire_window(d: Draft, w: dict[str, Any]) -> None:
    d.windows = tuple(x for x in d.windows if x is not w)
    skill = d.rs.skills[w["skill"]]
    d.to(w["actor"], "forfeited", {"skill": w["skill"], "name": skill.name})
    d.directors("forfeited", {"skill": w["skill"], "actor": w["actor"]})
    if skill.forfeit_announce is not None:
        text = d.rs.text(skill.forfeit_announce, old=d.name(w["actor"]))
        d.public(skill.forfeit_announce, {"text": text})
    for hook in hooks(d.rs, "window_closed"):
        hook(d, w, False)
