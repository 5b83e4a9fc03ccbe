"""[061]'s vote thread read by the forum's ballot parser (``games.engine.ballots``) with the
engine's ``vote_modifiers``: 票台 (immune: the top of the rest is out), 诅咒 ×2 (暗记), 独尊 (a
void ballot whose reason is never published), then ``day_vote`` with the totals and the
final ballots, earliest first — the path the shell takes at 关门."""

from __future__ import annotations

from datetime import datetime, timedelta
from fractions import Fraction

import pytest

from games.engine.ballots import (
    BallotDay,
    BallotPost,
    Tally,
    Voter,
    ballot_rules,
    count_ballots,
)
from games.engine.events import GameEvent
from games.engine.timetable import BEIJING
from werewolf.engine import Forgo, apply_action, day_vote, vote_modifiers
from werewolf.engine.errors import UnknownPlayer
from werewolf.engine.state import GameState

from .support import outs
from .support_061 import AMBITIOUS, L61, MINE, PILLAR, close_at, game, play, rng

OPEN = datetime(2018, 11, 3, 12, 0, tzinfo=BEIJING)


def thread(state: GameState, ballots: list[tuple[int, int]]) -> Tally:
    posts = [
        BallotPost(
            floor=n + 2,
            external_id=f"p{n}",
            author=voter,
            by_director=False,
            posted_at=OPEN + timedelta(minutes=n),
            text=f"投票对象：{state.players[target].name}\n投票理由：直觉",
        )
        for n, (voter, target) in enumerate(ballots)
    ]
    voters = [Voter(p.id, p.name, alive=p.alive) for p in state.players.values()]
    day = BallotDay(day=state.day, closes_at=OPEN + timedelta(days=1))
    return count_ballots(posts, voters, day, ballot_rules(L61), vote_modifiers(state, state.day))


def settle(state: GameState, tally: Tally) -> tuple[GameState, list[GameEvent]]:
    totals = {t.character: t.votes for t in tally.totals}
    final = [(v.voter, v.target) for v in tally.final_ballots() if v.voter and v.target]
    state, events = day_vote(state, totals, rng(), close_at(state), ballots=final)
    for w in state.windows:
        if w["skill"] == "favor":  # the 天使 lets 偏爱 go
            forgo = Forgo(actor=w["actor"], skill="favor")
            state, more = apply_action(state, forgo, rng(), close_at(state) + 60)
            events += more
    return state, events


def test_stage_the_forum_counts_them_but_the_top_of_the_rest_is_out() -> None:
    state = game(possess=1, hostage=16)  # day 1's 票台: seats 19–14
    tally = thread(state, [(1, 19), (2, 19), (3, 19), (4, 13), (5, 13)])
    assert tally.outcome.character == 13
    state, _ = settle(state, tally)
    assert outs(state) == [(13, "投票")]


def test_curse_doubles_in_the_forums_totals() -> None:
    state = game(possess=1, hostage=16, picks=[(PILLAR, "curse", 13)])
    tally = thread(state, [(1, 12), (2, 12), (3, 12), (4, 13), (5, 13)])
    assert {t.character: t.votes for t in tally.totals} == {12: 3, 13: Fraction(4)}
    state, _ = settle(state, tally)
    assert outs(state) == [(13, "投票")]


def test_supreme_a_void_ballot_whose_reason_stays_secret() -> None:
    state = game(possess=1, hostage=16)
    state, _ = play(state, [(AMBITIOUS, "supreme", 3)], votable=(AMBITIOUS,))
    tally = thread(state, [(3, AMBITIOUS), (4, 12)])
    verdict = tally.verdicts[0]
    assert not verdict.counted
    assert verdict.reason is not None
    assert verdict.reason.public is False


def test_the_first_voter_comes_from_the_threads_order() -> None:
    state = game(possess=1, hostage=16, votable=(MINE,))
    tally = thread(state, [(6, MINE), (3, MINE), (4, MINE)])
    state, _ = settle(state, tally)
    assert outs(state) == [(MINE, "投票"), (6, "共死")]


def test_the_first_voter_by_its_change_not_its_first_vote() -> None:
    """RULINGS 061-12: among the final ballots, the earliest naming post — P6's change to the
    地雷 came after P3's vote, so P3 is the first voter though P6 posted first."""
    state = game(possess=1, hostage=16, votable=(MINE,))

    def post(floor: int, author: int, text: str, reply_to: str | None = None) -> BallotPost:
        at = OPEN + timedelta(minutes=floor)
        return BallotPost(floor, f"p{floor}", author, False, at, text, reply_to)

    posts = [
        post(2, 6, "投票对象：P1\n投票理由：直觉"),
        post(3, 3, f"投票对象：P{MINE}\n投票理由：直觉"),
        post(4, 6, f"改票对象：P{MINE}\n改票理由：改主意", reply_to="p2"),
    ]
    voters = [Voter(p.id, p.name, alive=p.alive) for p in state.players.values()]
    day = BallotDay(day=state.day, closes_at=OPEN + timedelta(days=1))
    mods = vote_modifiers(state, state.day)
    tally = count_ballots(posts, voters, day, ballot_rules(L61), mods)
    assert [(v.voter, v.target, v.floor) for v in tally.final_ballots()] == [
        (3, MINE, 3),
        (6, MINE, 4),
    ]
    state, _ = settle(state, tally)
    assert outs(state) == [(MINE, "投票"), (3, "共死")]


def test_a_ballot_naming_no_player_is_refused() -> None:
    state = game(possess=1, hostage=16, votable=(MINE,))
    with pytest.raises(UnknownPlayer):
        day_vote(state, {MINE: 1}, rng(), close_at(state), ballots=[(99, MINE)])
