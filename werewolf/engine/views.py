"""What one player may see, and what the directors see.

A player's view holds its own role card, its team (for a team faction), the skills it can use
now with their deadlines, its own feedback, and only public facts about everyone else: who is
out, and the role of those out by day.
"""

from __future__ import annotations

import random
from typing import Any

from .ballot import ballots
from .day import vote_modifiers
from .draft import Draft, open_draft
from .hooks import hooks
from .ruleset import Ruleset, Skill
from .setup import role_card
from .state import DAY, LATE, NIGHT, GameState, Player
from .steps import available, team_of


def submission(value: Any) -> tuple[list[int], str | None]:
    """A night submission as stored (``subs[skill][actor]``): a target id, None (forgone), or
    ``{"targets": [...], "option": ...}`` for a skill with several targets or an option."""
    if value is None:
        return [], None
    if isinstance(value, dict):
        return [int(t) for t in value.get("targets", [])], value.get("option")
    return [int(value)], None


def option_words(rs: Ruleset, skill: Skill, option: str | None) -> str:
    """A submission's option as the directors read it (狡黠's guessed role, 鸩毒's marks,
    查证's 公示, 传音's words, a borrowed skill), "" without one."""
    if not option:
        return ""
    if skill.effect == "cunning":
        role = rs.roles.get(option)
        return f"（猜测身份：{role.name if role else option}）"
    if skill.effect == "zhen":
        return f"（消耗{option}个‹炼›）"
    if skill.effect == "verify":
        return "（公示结果）"
    if skill.effect == "whisper":
        return f"（“{option}”）"
    if skill.effect == "borrowed":
        key, _, arg = option.partition(":")
        inner = rs.skills.get(key)
        name = inner.name if inner else key
        return f"（借用<{name}>{'，' + arg if arg else ''}）"
    return f"（{option}）"


def _public_players(state: GameState) -> list[dict[str, Any]]:
    d = open_draft(state, random.Random(0))
    day_out = {o.id for o in state.outs if not o.night and d.rs.reveal_day_outs}
    day_out |= {int(i) for i in state.flags.get("shown_roles", [])}  # roles a rule made public
    out = []
    for p in state.players.values():
        entry: dict[str, Any] = {"id": p.id, "name": p.name, "alive": p.alive}
        if p.id in day_out or state.winner is not None:
            entry["role"] = d.role_name(p.id)
        out.append(entry)
    return out


def _vote(state: GameState, pid: int) -> dict[str, Any] | None:
    """The portal's ballot box: open on a day not yet settled, with the player's own ballot
    only (the others' stay hidden until the close announces the totals)."""
    if state.phase != DAY or state.flags.get("voted") == state.day:
        return None
    p = state.players[pid]
    mods = vote_modifiers(state, state.day)
    targets = [
        {"id": t.id, "name": t.name}
        for t in state.players.values()
        if t.alive and not t.idle and t.id not in mods.immune
    ]
    may = p.alive and not p.idle and pid not in mods.void_voters
    return {"may": may, "mine": ballots(state).get(pid), "targets": targets if may else []}


def _usable(sk: Skill, until: float) -> dict[str, Any]:
    return {
        "skill": sk.key,
        "name": sk.name,
        "until": until,
        "forced": sk.forced and sk.window is None,
        "limited": sk.limited,
        "irreversible": sk.irreversible,
    }


def _night_done(d: Draft, p: Player) -> bool:
    """The night is over for this player: nothing is left it may still do tonight (no step
    open or still to open where it holds a usable skill, no window), or the night is drafted
    and waits for the director's publication."""
    if d.phase == LATE:
        return True
    if d.phase != NIGHT:
        return False
    if any(w["actor"] == p.id for w in d.windows):
        return False
    return not any(
        d.night["steps"][step.key]["state"] != "closed"
        and any(available(d, p, s) for s in step.skills)
        for step in d.rs.night_steps
    )


def player_view(state: GameState, pid: int) -> dict[str, Any]:
    d = open_draft(state, random.Random(0))
    rs = d.rs
    p = d.p(pid)
    usable = []
    if state.phase == NIGHT and p.alive:
        for step in rs.night_steps:
            st = state.night["steps"][step.key]
            if st["state"] != "open":
                continue
            for s in step.skills:
                if available(d, p, s):
                    sk = rs.skills[s]
                    usable.append(_usable(sk, st["deadline"]))
    for w in state.windows:
        if w["actor"] == pid:
            entry = _usable(rs.skills[w["skill"]], w["until"])
            # A window a handler opens with its own ``until`` (096 许愿's choice) has no
            # entry in the ruleset's ``windows``.
            kept = rs.windows.get(w["skill"])
            if kept is not None and kept.until_night:
                entry["closes"] = "night_open"
            if "voters" in w:  # 怨恨 names one of the voters: the forum's ballots, public
                entry["among"] = list(w["voters"])
            if "voted" in w:  # 偏爱: the one voted out (the tally is public)
                entry["voted"] = w["voted"]
            usable.append(entry)
    view: dict[str, Any] = {
        "id": pid,
        "day": state.day,
        "phase": state.phase,
        "alive": p.alive,
        "card": role_card(rs, p),
        "usable": usable,
        "feedback": list(p.flags.get("feedback", [])),
        "sheriff": state.sheriff,
        "players": _public_players(state),
        "winner": state.winner,
        "vote": _vote(state, pid),
        "night_done": _night_done(d, p),
    }
    if rs.factions[p.faction].team:
        view["team"] = [
            {"id": t, "name": d.name(t), "alive": d.p(t).alive} for t in team_of(d, p.faction)
        ]
        if state.phase == NIGHT:
            view["team_night"] = {
                "leader": state.night.get("leader"),
                "votes": dict(state.night["subs"].get("elect", {})),
                "kills": {
                    s: dict(v)
                    for s, v in state.night["subs"].items()
                    if rs.skills[s].effect == "kill" and "团队" in rs.skills[s].tags
                },
            }
    for hook in hooks(rs, "view"):
        view = hook(d, p, view)
    return view


def director_view(state: GameState) -> dict[str, Any]:
    """Everything: the state, every role, tonight's submissions and the draft with its trace."""
    d = open_draft(state, random.Random(0))
    return {
        "state": state.to_json(),
        "roles": {str(p.id): d.role_name(p.id) for p in state.players.values()},
        "draft": state.result,
        "history": state.flags.get("history", []),
    }
