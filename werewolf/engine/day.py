"""The day: the vote's outcome with its immediate triggers, the vote weights for the forum's
ballots, and the red card.

The forum's ballots module tallies the vote thread with ``vote_modifiers`` (警长 1.5 ...) and
hands the weighted totals to ``day_vote``; ``tally`` does the same for votes cast elsewhere
(the portal, tests).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction

from games.engine.ballots import Adjust, Reason, VoteModifiers, ballot_rules
from games.engine.errors import WrongPhase
from games.engine.events import GameEvent

from . import victory
from .draft import Draft, open_draft
from .errors import GameOver, InvalidTarget, UnknownPlayer
from .hooks import hooks
from .outcomes import TRIGGERS, Fired, eliminate, open_window, out_by, register_trigger, triggers_of
from .ruleset import Trigger
from .skills import Now, seconds
from .state import CAUSE_RED_CARD, CAUSE_SACRIFICE, CAUSE_VOTE, DAY, OVER, GameState, Player

FEIGNED = Reason("feigned", "白痴发动[装傻]后不能参与投票，也不能成为投票对象。")


def keeps_vote(p: Player) -> bool:
    """In the day's vote as a voter: alive, or out with its vote kept (096's 虚体: 其视为出局，
    但仍保留发言权和投票权)."""
    return p.alive or bool(p.flags.get("ethereal"))


def votable(state: GameState, p: Player) -> bool:
    """A ballot may name ``p``: alive, and not 挂机 unless the post allows it (096: 挂机状态的
    角色…允许被选为技能或投票的目标; the forum's ballot rules say so)."""
    return p.alive and (not p.idle or ballot_rules(state.ruleset).idle_targetable)


def vote_modifiers(state: GameState, day: int) -> VoteModifiers:
    """What the ballots module needs about ``day``'s vote: the 警长's weight (带队 1.5), the
    白痴 after 装傻 (no vote, not votable) and who holds the role of the tie rule (高僧): every
    role of the ruleset whose skills carry a ``tie`` trigger is named, with None when no living
    player holds such a trigger now (the 高僧 out, or 献身 lost), so a tie then puts nobody out
    (RULINGS 2) as ``day_vote`` does."""
    d = open_draft(state, random.Random(0))
    weights = {}
    if d.sheriff is not None and d.p(d.sheriff).alive:
        weights[d.sheriff] = Adjust(d.rs.sheriff_weight, f"{d.rs.sheriff_name}[带队]")
    feigned = {p.id: FEIGNED for p in d.living() if p.flags.get("feigned")}
    holders: dict[str, int | None] = {
        role.name: None
        for role in d.rs.roles.values()
        if any(t.on == "tie" for s in role.skills for t in d.rs.skills[s].triggers)
    }
    holders |= {d.rs.roles[p.role].name: p.id for p in d.living() if triggers_of(d, p.id, "tie")}
    still = frozenset(p.id for p in d.players.values() if not p.alive and keeps_vote(p))
    mods = VoteModifiers(
        weights=weights,
        void_voters=feigned,
        immune=feigned,
        still_voting=still,
        role_holders=holders,
    )
    for hook in hooks(d.rs, "vote_modifiers"):
        mods = hook(d, mods)
    return mods


def tally(state: GameState, ballots: Mapping[int, int]) -> dict[int, Fraction]:
    """Weighted totals of ``{voter: target}``; ballots of players who may not vote, or for a
    target who may not be voted, do not count."""
    mods = vote_modifiers(state, state.day)
    totals: dict[int, Fraction] = {}
    for voter, target in ballots.items():
        v, t = state.players.get(voter), state.players.get(target)
        if v is None or t is None or not keeps_vote(v) or not votable(state, t):
            continue
        if voter in mods.void_voters or target in mods.immune:
            continue
        if (voter, target) in mods.void_pairs:
            continue
        weight = mods.weights[voter].value if voter in mods.weights else Fraction(1)
        totals[target] = totals.get(target, Fraction(0)) + weight
    for target, adjust in mods.multipliers.items():
        if target in totals:
            totals[target] *= adjust.value
    return totals


def day_vote(
    state: GameState,
    totals: Mapping[int, Fraction | int],
    rng: random.Random,
    now: Now,
    ballots: Sequence[tuple[int, int]] | None = None,
) -> tuple[GameState, list[GameEvent]]:
    """投票结束: the top-voted player is out; a tie goes to the one a ``tie_break`` hook names
    (096: the first to the top), else takes the 高僧 (献身) or, with no 高僧 to take it,
    nobody (RULINGS 2). Triggers are announced at once. ``ballots``: the final
    ballots ``(voter, target)``, earliest naming post first, for the triggers that ask who
    voted (061's 公敌, 怨恨, 共死); kept as ``flags["day_ballots"]``."""
    if state.phase == OVER:
        raise GameOver()
    if state.phase != DAY or state.flags.get("voted") == state.day:
        raise WrongPhase(phase=state.phase, needed=DAY)
    if ballots is not None and any(
        int(v) not in state.players or int(t) not in state.players for v, t in ballots
    ):
        raise UnknownPlayer()
    d = open_draft(state, rng, seconds(now))
    d.set_flag("voted", d.day)
    if ballots is not None:
        d.set_flag("day_ballots", {"day": d.day, "ballots": [[int(v), int(t)] for v, t in ballots]})
    mods = vote_modifiers(state, d.day)
    counted = {
        int(t): Fraction(v)
        for t, v in totals.items()
        if int(t) in d.players and d.p(int(t)).alive and int(t) not in mods.immune and v > 0
    }
    top = max(counted.values(), default=Fraction(0))
    leaders = sorted(t for t, v in counted.items() if v == top)
    shown = [[t, d.name(t), str(v)] for t, v in sorted(counted.items(), key=lambda x: -x[1])]
    d.public("vote_result", {"day": d.day, "totals": shown, "tie": len(leaders) > 1})
    if len(leaders) > 1:
        broken = (hook(d, leaders) for hook in hooks(d.rs, "tie_break"))
        leaders = next(([t] for t in broken if t is not None), leaders)
    if len(leaders) == 1:
        _voted_out(d, leaders[0])
    elif len(leaders) > 1 and not any(hook(d, leaders) for hook in hooks(d.rs, "tied")):
        _tie(d)
    return d.finish(), d.events


def _voted_out(d: Draft, pid: int) -> None:
    if any(hook(d, pid) for hook in hooks(d.rs, "voted_out")):
        return
    for skill, t in triggers_of(d, pid, "voted_out"):
        if TRIGGERS[t.handler](d, pid, t, Fired(pid, CAUSE_VOTE, False, skill)):
            return
    out_by(d, pid, CAUSE_VOTE, night=False)


def _tie(d: Draft) -> None:
    """A tie takes the holder of a ``tie`` trigger (高僧's 献身); with none alive, nobody."""
    for p in sorted(d.living(), key=lambda p: p.id):
        for skill, t in triggers_of(d, p.id, "tie"):
            if TRIGGERS[t.handler](d, p.id, t, Fired(p.id, CAUSE_SACRIFICE, False, skill)):
                return
    d.public("no_one_out", {"text": d.rs.text("no_one")})


@register_trigger("feign")
def _feign(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    """装傻: the 白痴 voted out stays in, once; a 白痴 who is 警长 hands the badge over as a
    警长 would (若白痴是警长，需要移交警长)."""
    p = d.p(pid)
    if p.flags.get("feigned"):
        return False
    d.wp(pid).flags["feigned"] = True
    d.public("feign", {"text": d.rs.text("feign", name=p.name), "id": pid})
    if d.sheriff == pid:
        badge = [s for s in d.rs.sheriff_skills if d.rs.skills[s].window is not None]
        d.sheriff = None
        for skill in badge:
            open_window(d, pid, skill, night=False)
    return True


@register_trigger("sacrifice")
def _sacrifice(d: Draft, pid: int, t: Trigger, f: Fired) -> bool:
    d.public("sacrifice", {"text": d.rs.text("sacrifice", name=d.name(pid)), "id": pid})
    eliminate(d, pid, CAUSE_SACRIFICE, night=False)
    return True


def red_card(
    state: GameState, pid: int, rng: random.Random, now: Now
) -> tuple[GameState, list[GameEvent]]:
    """红牌罚下: out at once and announced at once with the role, with no skill (no 最后一枪,
    no 殉职); the shell runs it before the day's vote (白天红牌罚下在被投票出局之前). A ruleset
    whose ``params.red_card`` is ``idle`` (096) puts the player in 挂机 instead: still in the
    game and targetable, acting no more, out of its groups (the ``idle`` hooks)."""
    if pid not in state.players or not state.players[pid].alive:
        raise InvalidTarget(reason="not in the game")
    d = open_draft(state, rng, seconds(now))
    if d.rs.params.get("red_card") == "idle":
        if d.p(pid).idle:
            raise InvalidTarget(reason="idle already")
        d.wp(pid).idle = True
        d.public(
            "idle",
            {"id": pid, "name": d.name(pid), "text": f"{d.name(pid)}被红牌罚下，进入挂机状态。"},
        )
        for hook in hooks(d.rs, "idle"):
            hook(d, pid)
        return d.finish(), d.events
    eliminate(d, pid, CAUSE_RED_CARD, night=False)
    return d.finish(), d.events


def faction_forfeit(
    state: GameState, pid: int, rng: random.Random, now: Now
) -> tuple[GameState, list[GameEvent]]:
    """判下红牌的同时，导演有权视情况决定是否直接使该玩家所在的阵营判负: the faction ``pid``
    belongs to now loses, publicly (the red card already showed the role), and the win check
    follows. A faction already lost stays as it is."""
    if state.phase == OVER:
        raise GameOver()
    if pid not in state.players:
        raise InvalidTarget(reason="not in the game")
    d = open_draft(state, rng, seconds(now))
    p = d.p(pid)
    if p.faction in d.lost:
        return state, []
    faction = d.rs.factions[p.faction].name
    text = d.rs.text("faction_forfeit", name=p.name, faction=faction)
    d.public("faction_forfeit", {"text": text, "faction": p.faction, "faction_name": faction})
    victory.lose(d, p.faction, "红牌判负")
    victory.check(d)
    return d.finish(), d.events
