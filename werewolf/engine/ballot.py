"""The portal's day vote (issue 7): a player's ballot, kept in the state so it replays, for the
days with no forum vote thread. ``flags["ballots"]`` is ``{"day": n, "votes": {"<voter>":
target}, "at": {"<voter>": seconds}}`` (when the ballot in effect was named); at 关门 the shell
hands ``portal_totals`` (and, for 061, ``portal_ballots``) to ``day_vote``.

The forum's rules apply where they make sense: a ballot may be changed until the close, but not
in its last hour, nor once a speed-up (加速) took effect. The action carries the day's close and
speed-up as the shell reads them from the schedule, so a replay judges it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from .actions import Action, register_action_type
from .day import keeps_vote, tally, votable, vote_modifiers
from .draft import Draft
from .errors import (
    ActorOut,
    CannotVote,
    ChangeLate,
    ChangeSpedUp,
    InvalidTarget,
    UnknownPlayer,
    VoteClosed,
)
from .skills import register_action
from .state import DAY, GameState

# 改票: none in the last hour before the close (the forum's ``change_cutoff``).
CHANGE_CUTOFF = 3600


@dataclass(frozen=True, slots=True)
class Vote(Action):
    """白天投票 on the portal: ``target`` gets the actor's ballot for today (replacing the last
    one). ``closes_at``/``sped_up_at`` (epoch seconds) are set by the shell, never the player."""

    kind: ClassVar[str] = "vote"
    target: int
    closes_at: int | None = None
    sped_up_at: int | None = None


def ballots(state: GameState) -> dict[int, int]:
    """Today's portal ballots, ``{voter: target}``."""
    kept = state.flags.get("ballots") or {}
    if kept.get("day") != state.day:
        return {}
    return {int(v): int(t) for v, t in kept["votes"].items()}


def day_voters(state: GameState, day: int) -> frozenset[int] | None:
    """Who voted on ``day`` on the portal, counted like the forum's tally for 未投票 (099 5(2)):
    every player except those the vote asked (alive, not 挂机, not the 白痴 after 装傻) who
    left no ballot. None when the state cannot tell: it keeps no ballots of that day and is not
    in that day's open vote (another day, the night's draft not yet published, the day settled
    without them). Read at the day's close before the close settles the vote."""
    kept = state.flags.get("ballots") or {}
    if kept.get("day") == day:
        cast = {int(v) for v in kept["votes"]}
    elif state.phase == DAY and state.day == day and state.flags.get("voted") != day:
        cast = set()
    else:
        return None
    void = vote_modifiers(state, day).void_voters
    asked = {
        p.id for p in state.players.values() if keeps_vote(p) and not p.idle and p.id not in void
    }
    return frozenset(state.players) - (asked - cast)


def portal_ballots(state: GameState) -> list[tuple[int, int]]:
    """Today's portal ballots ``(voter, target)``, earliest naming (a vote or its change)
    first, as ``day_vote`` takes them (061: RULINGS 061-12); a state kept before the times
    were puts those ballots first, by voter."""
    kept = state.flags.get("ballots") or {}
    at = kept.get("at") or {}  # ballots() is empty on another day
    current = ballots(state)
    return sorted(current.items(), key=lambda b: (float(at.get(str(b[0]), 0)), b[0]))


def portal_totals(state: GameState) -> dict[int, Fraction]:
    """Today's ballots weighted as the forum's would be (警长 1.5, no 装傻 voter or target)."""
    return tally(state, ballots(state))


def _vote(d: Draft, action: Vote, now: float) -> None:
    if d.phase != DAY or d.flags.get("voted") == d.day:
        raise VoteClosed()
    if action.closes_at is not None and now >= action.closes_at:
        raise VoteClosed()
    if action.actor not in d.players:
        raise UnknownPlayer()
    voter = d.p(action.actor)
    if not keeps_vote(voter):
        raise ActorOut()
    mods = vote_modifiers(d.finish(), d.day)
    if voter.idle or voter.id in mods.void_voters:
        raise CannotVote()
    target = d.players.get(action.target)
    if target is None or not votable(d.base, target) or target.id in mods.immune:
        raise InvalidTarget(reason="not votable")
    current = ballots(d.finish())
    if voter.id in current:
        if action.closes_at is not None and now >= action.closes_at - CHANGE_CUTOFF:
            raise ChangeLate()
        if action.sped_up_at is not None and now >= action.sped_up_at:
            raise ChangeSpedUp()
    votes = {str(v): t for v, t in current.items()}
    votes[str(voter.id)] = target.id
    kept = d.flags.get("ballots") or {}
    at = dict(kept.get("at") or {}) if kept.get("day") == d.day else {}
    at[str(voter.id)] = now  # the ballot as it stands was named now (a vote or its change)
    d.set_flag("ballots", {"day": d.day, "votes": votes, "at": at})
    d.to(voter.id, "ballot", {"day": d.day, "target": target.id, "target_name": target.name})


register_action_type(Vote)
register_action(Vote, _vote)
