"""The portal's day vote (issue 7): one ballot a day, changeable until 关门 but not in its last
hour nor during a speed-up; the 白痴 after 装傻 neither votes nor is voted; at the close the
ballots weigh as the forum's (警长 1.5) and a tie takes the 高僧."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from games.engine.events import GameEvent
from werewolf.engine import (
    Vote,
    action_from_json,
    apply_action,
    ballots,
    day_vote,
    player_view,
    portal_totals,
)
from werewolf.engine.ballot import day_voters
from werewolf.engine.draft import open_draft
from werewolf.engine.errors import (
    ActorOut,
    CannotVote,
    ChangeLate,
    ChangeSpedUp,
    InvalidTarget,
    RuleError,
    VoteClosed,
)
from werewolf.engine.state import GameState

from .support import IDIOT, MIN, MONK, close_at, edit, game, outs, play_night, rng, roundtrip

HOUR = 60 * MIN


def day1() -> GameState:
    state, _ = play_night(game())
    return state


def cast(
    state: GameState, voter: int, target: int, *, before: float = 5 * HOUR, sped: int | None = None
) -> tuple[GameState, list[GameEvent]]:
    close = close_at(state)
    action = Vote(actor=voter, target=target, closes_at=int(close), sped_up_at=sped)
    return apply_action(state, action, rng(), close - before)


def test_a_ballot_is_kept_and_told_only_to_the_voter() -> None:
    state, events = cast(day1(), 15, 1)
    assert ballots(state) == {15: 1}
    assert [(e.kind, e.audience.kind, e.payload["target"]) for e in events] == [
        ("ballot", "character", 1)
    ]
    assert player_view(state, 15)["vote"]["mine"] == 1
    assert player_view(state, 16)["vote"]["mine"] is None  # nobody sees another's ballot


def test_a_ballot_may_be_changed_before_the_last_hour() -> None:
    state, _ = cast(day1(), 15, 1)
    state, _ = cast(state, 15, 2, before=2 * HOUR)
    assert ballots(state) == {15: 2}


def refused(state: GameState, error: type[RuleError], code: str, **kw: Any) -> None:
    before = state.to_json()
    with pytest.raises(error) as e:
        cast(state, **kw)
    assert e.value.code == code
    assert state.to_json() == before


def test_no_change_in_the_last_hour_nor_during_a_speed_up() -> None:
    state, _ = cast(day1(), 15, 1)
    refused(state, ChangeLate, "change_late", voter=15, target=2, before=30 * MIN)
    sped = int(close_at(state) - 6 * HOUR)
    refused(state, ChangeSpedUp, "change_sped_up", voter=15, target=2, sped=sped)
    # A first ballot is still taken in the last hour, as on the forum.
    state, _ = cast(state, 16, 2, before=30 * MIN)
    assert ballots(state) == {15: 1, 16: 2}


def test_refusals_change_nothing() -> None:
    state = day1()
    refused(state, VoteClosed, "vote_closed", voter=15, target=1, before=-MIN)
    refused(edit(state, 15, alive=False), ActorOut, "actor_out", voter=15, target=1)
    refused(edit(state, 16, alive=False), InvalidTarget, "invalid_target", voter=15, target=16)
    refused(state, InvalidTarget, "invalid_target", voter=15, target=999)
    feigned = edit(state, IDIOT, flags={"feigned": True})
    refused(feigned, CannotVote, "cannot_vote", voter=IDIOT, target=1)
    refused(feigned, InvalidTarget, "invalid_target", voter=15, target=IDIOT)
    assert player_view(feigned, IDIOT)["vote"]["may"] is False


def test_no_ballot_once_the_day_is_settled_and_none_carries_to_the_next_day() -> None:
    state, _ = cast(day1(), 15, 1)
    state, _ = day_vote(state, portal_totals(state), rng(), close_at(state))
    refused(state, VoteClosed, "vote_closed", voter=16, target=1)
    assert player_view(state, 15)["vote"] is None


def with_sheriff(state: GameState, pid: int) -> GameState:
    d = open_draft(state, rng())
    d.sheriff = pid
    return d.finish()


def test_the_sheriffs_ballot_weighs_one_and_a_half() -> None:
    state = with_sheriff(day1(), 15)
    for voter, target in ((15, 1), (16, 2), (17, 3), (18, 3)):
        state, _ = cast(state, voter, target)
    assert portal_totals(state) == {1: Fraction(3, 2), 2: Fraction(1), 3: Fraction(2)}
    state, events = day_vote(state, portal_totals(state), rng(), close_at(state))
    assert outs(state) == [(3, "投票")]
    assert roundtrip([e.to_json() for e in events]) == [e.to_json() for e in events]


def test_a_tie_of_ballots_takes_the_monk() -> None:
    state = day1()
    for voter, target in ((15, 1), (16, 2)):
        state, _ = cast(state, voter, target)
    state, _ = day_vote(state, portal_totals(state), rng(), close_at(state))
    assert outs(state) == [(MONK, "献身")]


def test_the_ballots_replay_from_the_action_log() -> None:
    state = day1()
    action = Vote(actor=15, target=1, closes_at=int(close_at(state)))
    assert action_from_json(roundtrip(action.to_json())) == action


# --- 未投票 (099 5(2)) on a day voted on the portal ---------------------------------------------


def test_day_voters_are_the_ballots_and_those_the_vote_does_not_ask() -> None:
    state = edit(day1(), 16, alive=False)
    state = edit(state, 17, idle=True)
    state = edit(state, IDIOT, flags={"feigned": True})
    for voter, target in ((15, 1), (18, 2)):
        state, _ = cast(state, voter, target)
    silent = {p for p in state.players if p not in (15, 18, 16, 17, IDIOT)}
    assert day_voters(state, state.day) == frozenset(state.players) - silent


def test_day_voters_of_an_open_day_without_ballots_is_nobody_asked() -> None:
    state = day1()
    assert day_voters(state, state.day) == frozenset()


def test_day_voters_still_holds_after_the_close_and_is_unknown_for_other_days() -> None:
    state, _ = cast(day1(), 15, 1)
    day = state.day
    state, _ = day_vote(state, portal_totals(state), rng(), close_at(state))
    assert 15 in (day_voters(state, day) or ())
    assert 16 not in (day_voters(state, day) or ())
    assert day_voters(state, day - 1) is None  # no ballots kept of that day
    assert day_voters(state, day + 1) is None  # not reached


def test_day_voters_is_unknown_for_a_day_settled_without_ballots() -> None:
    state = day1()
    state, _ = day_vote(state, {}, rng(), close_at(state))
    assert day_voters(state, state.day) is None
