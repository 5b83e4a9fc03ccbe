"""投票: the secret daily vote, its tally at the day's close and the reward (RULINGS 13, 30).

Each living player casts one vote a day from ``vote.from_day``, by day, and may change it until
the close. A ballot weighs 1 + the vote values of the items the voter held at the end of the
previous night (``flags["vote_weights"]``, snapshotted by ``night_close``).

Today's ballots are kept in ``flags["votes"]`` as ``{"day": n, "log": [[voter, target], ...]}``,
in the order they were cast; a change is a new entry. The order is what breaks ties: the top is
the highest total, and among equal totals the one that reached it first — the character whose
total last rose to (or past) its final value earliest in the log, i.e. the moment since which
it has not been below that value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .actions import Action, register_action_type
from .common import living, phase_is
from .draft import Draft
from .errors import (
    AlreadyVoted,
    InvalidTarget,
    NotVoted,
    NoVoteToday,
    NpcCannotVote,
    SameVote,
    TargetDead,
    UnknownCharacter,
)
from .hooks import register_hook
from .rules import register_action
from .ruleset import get_ruleset
from .state import DAY, GameState

REWARD_WHY = "vote_reward"


@dataclass(frozen=True, slots=True)
class Vote(Action):
    """投票 for a living player (oneself allowed: the posts do not forbid it)."""

    kind: ClassVar[str] = "vote"
    target: int


@dataclass(frozen=True, slots=True)
class VoteChange(Action):
    """改票: today's vote goes to another living player, until the day closes."""

    kind: ClassVar[str] = "vote_change"
    target: int


register_action_type(Vote)
register_action_type(VoteChange)


# --- reads (the tally hook, the control room and the player's own vote) -----------------------


def _log(flags: Mapping[str, Any], day: int) -> list[list[int]]:
    votes = flags.get("votes")
    if not votes or votes["day"] != day:
        return []
    return [list(entry) for entry in votes["log"]]


def _final(log: list[list[int]]) -> dict[int, int]:
    """Each voter's last ballot: its vote as it stands."""
    return {voter: target for voter, target in log}


def _own(flags: Mapping[str, Any], day: int, cid: int) -> int | None:
    return _final(_log(flags, day)).get(cid)


def _weight(flags: Mapping[str, Any], base: int, cid: int) -> int:
    # A player missing from the night's snapshot (none was taken yet) holds the base vote only.
    return int((flags.get("vote_weights") or {}).get(str(cid), base))


def own_vote(state: GameState, cid: int) -> int | None:
    """The character's vote today (the target's id), or None."""
    return _own(state.flags, state.day, cid)


def weight_of(state: GameState, cid: int) -> int:
    """How much the character's ballot weighs today."""
    return _weight(state.flags, get_ruleset(state.ruleset).vote_base, cid)


def standing(state: GameState) -> dict[str, Any]:
    """Today's tally as it stands: ``ballots`` (voter, target, weight, counted), ``totals`` best
    first (``{character, name, total, since}``, ``since`` = the log index from which the total
    has not been below its present value) and ``top`` (the character id, or None).

    A ballot counts while both its voter and its target are living players: a voter or target
    out of the game during the day (red card) leaves the tally."""
    chars = state.characters
    log = _log(state.flags, state.day)
    base = get_ruleset(state.ruleset).vote_base

    def counts(cid: int) -> bool:
        c = chars.get(cid)
        return c is not None and c.alive and not c.npc

    ballots: list[dict[str, Any]] = [
        {
            "voter": voter,
            "voter_name": chars[voter].name,
            "target": target,
            "target_name": chars[target].name,
            "weight": _weight(state.flags, base, voter),
            "counted": counts(voter) and counts(target),
        }
        for voter, target in _final(log).items()
    ]
    totals: dict[int, int] = {}
    for b in ballots:
        if b["counted"]:
            totals[b["target"]] = totals.get(b["target"], 0) + b["weight"]

    running: dict[int, int] = {}
    current: dict[int, int] = {}
    since: dict[int, int] = {}
    for i, (voter, target) in enumerate(log):
        if not counts(voter):
            continue
        w = _weight(state.flags, base, voter)
        old = current.get(voter)
        if old is not None:
            running[old] -= w
        current[voter] = target
        before = running.get(target, 0)
        running[target] = before + w
        goal = totals.get(target)
        if goal is not None and before < goal <= running[target]:
            since[target] = i

    order = sorted(totals, key=lambda cid: (-totals[cid], since[cid]))
    return {
        "day": state.day,
        "ballots": ballots,
        "totals": [
            {"character": cid, "name": chars[cid].name, "total": totals[cid], "since": since[cid]}
            for cid in order
        ],
        "top": order[0] if order else None,
    }


# --- actions ----------------------------------------------------------------------------------


def _voter(d: Draft, cid: int) -> None:
    phase_is(d, DAY)
    if d.day < d.rs.vote_from_day:
        raise NoVoteToday(day=d.day, from_day=d.rs.vote_from_day)
    if living(d, cid).npc:
        raise NpcCannotVote()


def _target(d: Draft, cid: int) -> str:
    t = d.chars.get(cid)
    if t is None:
        raise UnknownCharacter(character=cid)
    if t.npc:
        raise InvalidTarget(character=cid, reason="not a player")
    if not t.alive:
        raise TargetDead(character=cid)
    return t.name


def _cast(d: Draft, voter: int, target: int, name: str, kind: str) -> int:
    """Log a checked ballot and tell the voter alone; returns the ballot's weight."""
    weight = _weight(d.flags, d.rs.vote_base, voter)
    d.wflags()["votes"] = {"day": d.day, "log": [*_log(d.flags, d.day), [voter, target]]}
    d.to(
        voter,
        kind,
        {"day": d.day, "target": target, "target_name": name, "weight": weight},
        voter,
    )
    return weight


def vote(d: Draft, a: Vote, now: float) -> None:
    _voter(d, a.actor)
    if _own(d.flags, d.day, a.actor) is not None:
        raise AlreadyVoted()
    weight = _cast(d, a.actor, a.target, _target(d, a.target), "vote_cast")
    d.directors(
        "vote", {"day": d.day, "actor": a.actor, "target": a.target, "weight": weight}, a.actor
    )


def vote_change(d: Draft, a: VoteChange, now: float) -> None:
    _voter(d, a.actor)
    previous = _own(d.flags, d.day, a.actor)
    if previous is None:
        raise NotVoted()
    name = _target(d, a.target)
    if previous == a.target:
        raise SameVote(character=a.target)
    weight = _cast(d, a.actor, a.target, name, "vote_changed")
    d.directors(
        "vote_changed",
        {"day": d.day, "actor": a.actor, "from": previous, "to": a.target, "weight": weight},
        a.actor,
    )


register_action(Vote, vote)
register_action(VoteChange, vote_change)


# --- the tally at the day's close -------------------------------------------------------------


def _revealed(d: Draft, cid: int, rank: int) -> dict[str, Any]:
    """最高票的角色名称、血量、体力、所有道具、所在地点将被公示."""
    c = d.chars[cid]
    return {
        "rank": rank,
        "character": cid,
        "name": c.name,
        "hp": c.hp,
        "mp": c.mp,
        "items": [dict(d.describe_item(i), in_hand=i in c.hands) for i in c.held],
        "place": c.place,
    }


def reward_keys(d: Draft, selector: str) -> list[str]:
    """The names a reward of ``selector`` may take (RULINGS 26): those not yet in the game first;
    when none is left, those out of play (the shop's ``restockable_keys``); when every name of
    the kind is in play (the default deal places all 48 green armors), any name of it — a name
    is not an identity (RULINGS 22). Upgrades keep "not yet in the game" (RULINGS 14)."""
    kinds = d.rs.selector_kinds(selector)
    return d.unused_keys(kinds) or d.restockable_keys(kinds) or [k.key for k in kinds]


def _reward(d: Draft, cid: int) -> None:
    """由导演掷骰并公示赠送: a die with one face per pool entry (six in both posts); one roll
    chooses the entry and that entry is given, never rolled again (RULINGS 26)."""
    pool = d.rs.reward_pool
    roll = d.rng.randrange(len(pool)) + 1
    iid = d.new_item(d.rng.choice(reward_keys(d, pool[roll - 1])))
    # As items.grant (which keeps to names not yet in the game): the pack, past 6 if need be.
    d.wc(cid).pack.append(iid)
    d.to(cid, "item_granted", {"item": d.describe_item(iid), "why": REWARD_WHY})
    d.directors(
        "item_created",
        {"item": iid, "kind": d.items[iid].kind, "character": cid, "why": REWARD_WHY},
    )
    d.public(
        "vote_reward",
        {
            "day": d.day,
            "character": cid,
            "name": d.chars[cid].name,
            "die": len(pool),
            "rolls": [roll],
            "item": d.describe_item(iid),
        },
    )


@register_hook("votes.tally")
def tally(d: Draft, stage: str, context: Mapping[str, Any]) -> None:
    if d.day < d.rs.vote_from_day:
        return
    result = standing(d.finish())
    reveal = int(d.flags.get("vote_reveal", 1))
    shown = [_revealed(d, t["character"], i + 1) for i, t in enumerate(result["totals"][:reveal])]
    # 统计投票结果并公布 (RULINGS 30): every candidate's weighted total, best first; never a
    # ballot, a voter or a weight (who voted for whom stays secret).
    totals = [
        {"character": t["character"], "name": t["name"], "total": t["total"]}
        for t in result["totals"]
    ]
    d.public("vote_result", {"day": d.day, "revealed": shown, "totals": totals})
    d.directors("vote_tally", result)
    if result["top"] is not None:
        _reward(d, result["top"])
    flags = d.wflags()
    flags.pop("votes", None)
    flags.pop("vote_reveal", None)
