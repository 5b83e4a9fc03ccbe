"""[096] 名侦探柯南: the 神眷者 — day 1's election (最先高票者), the vote from day 2, 神恩 and 传承.
Seats as in ``support_096``."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from games.engine.events import GameEvent
from werewolf.engine.draft import open_draft
from werewolf.engine.state import GameState

from .support import rng
from .support_061 import submit as act
from .support_096 import ELVES, GOLEM, WOLVES, alive, close_at, game, play, vote

E1, E2, E3, E4, E5 = ELVES[:5]


def public(events: Sequence[GameEvent], kind: str) -> list[str]:
    return [
        str(e.payload.get("text")) for e in events if e.kind == kind and e.audience.kind == "public"
    ]


def settled(state: GameState) -> GameState:
    """Night 1 with the relic hidden on the 魔像 (no curse can touch the players below)."""
    state, _ = play(state, day_picks=[(WOLVES[0], "hide", GOLEM)])
    return state


@pytest.mark.parametrize(
    ("ballots", "chosen"),
    [
        ([(E1, E2), (E3, E2), (E4, E5)], E2),  # 获得投票最多的角色将成为神眷者
        ([(E1, E5), (E3, E2), (E4, E2), (E2, E5)], E2),  # a tie: P2 reached 2 first
        ([(E1, E5), (E2, E5), (E3, E2), (E4, E2)], E5),  # …and here P5 did
    ],
)
def test_day_ones_top_becomes_the_chosen_and_nobody_is_out(
    ballots: list[tuple[int, int]], chosen: int
) -> None:
    """第一天讨论日结束时，最先高票者当选神眷者."""
    state, events = vote(game(), ballots)
    assert state.sheriff == chosen
    assert public(events, "sheriff") == [f"P{chosen}当选神眷者。"]
    assert all(alive(state, *range(1, 23)))


def test_from_day_two_the_top_is_out_at_once() -> None:
    """第二天及以后的白天，获得投票最多的的角色将即刻公示出局."""
    state, _ = vote(game(), [(E1, E2)])
    state, _ = vote(settled(state), [(E1, E3), (E2, E3)])
    assert alive(state, E3) == [False]
    assert state.sheriff == E2


def test_the_chosens_vote_counts_one_and_a_half() -> None:
    """神眷者的投票计为1.5票: the 神眷者's ballot beats one other."""
    state, _ = vote(game(), [(E1, E2)])
    state, _ = vote(settled(state), [(E2, E3), (E4, E5)])
    assert alive(state, E3, E5) == [False, True]


def test_heritage_the_chosen_out_names_the_next() -> None:
    """传承：当神眷者出局时，其得知存活角色名单并选择一名角色，该角色成为神眷者."""
    state, _ = vote(game(), [(E1, E2)])
    state, events = vote(settled(state), [(E1, E2), (E3, E2)])
    assert alive(state, E2) == [False]
    told = [e.payload["text"] for e in events if e.kind == "relic" and e.audience.character == E2]
    assert told
    assert told[0].startswith("【传承】你出局了。存活角色：P1、P3")
    state, events = act(state, (E2, "heritage", E4), close_at(state))
    assert state.sheriff == E4
    assert public(events, "sheriff") == ["P4成为神眷者。"]


def test_an_unnamed_heir_is_drawn_at_the_next_days_open() -> None:
    state, _ = vote(game(), [(E1, E2)])
    state, _ = vote(settled(state), [(E1, E2)])
    assert state.sheriff is None
    state, _ = play(state)
    assert state.sheriff is not None
    assert state.players[state.sheriff].alive


def test_grace_the_chosen_is_immune_to_the_curse() -> None:
    """神恩：神眷者免疫诅咒."""
    state, _ = vote(game(), [(E1, E2)])
    d = open_draft(state, rng())
    d.set_flag("cn_day_picks", {"hide": {"by": WOLVES[0], "target": E2, "day": 1, "group": "pack"}})
    state, _ = play(d.finish())
    assert state.players[E2].role == "elf"
    assert state.flags["relic"]["curses"] == 3
