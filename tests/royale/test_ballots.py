"""A royale game's forum vote thread: ballots weigh what the engine says (RULINGS 13), and the
public tally names the top and each candidate's total at the close, never a voter (RULINGS 30)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from games import ballots
from games import services as game_services
from games.models import Character, ForumPost, ForumThread, Game
from royale.engine import get_ruleset
from royale.engine.votes import weight_of
from tests.conftest import bj
from tests.royale.conftest import (
    admin_client,
    control,
    empty_royale_game,
    give,
    set_character,
    state_of,
)
from tests.royale.test_votes import to_day_two

pytestmark = pytest.mark.django_db


def vote_post(thread: ForumThread, floor: int, name: str, target: str) -> ForumPost:
    """A floor as the sync stores it, by the character ``name``."""
    character = Character.objects.get(game=thread.game, name=name)
    return ForumPost.objects.create(
        thread=thread,
        external_id=str(9000 + floor),
        floor=floor,
        author=name,
        character=character,
        posted_at=bj(2, 10, floor),
        text=f"投票对象：{target}\n投票理由：论坛投票",
        content_hash=str(floor),
    )


@pytest.fixture
def voted(at_night_one: Any) -> Game:
    """Day 2; 甲 held a 金块 (白天票数+5) at the end of night 1; 甲 and 乙 voted in the thread."""
    game = empty_royale_game("256", ("甲", "乙", "丙"))
    to_day_two(game, at_night_one)
    thread = ForumThread.objects.create(game=game, day=2, kind="vote", external_id="777")
    vote_post(thread, 2, "甲", "丙")
    vote_post(thread, 3, "乙", "乙")
    vote_post(thread, 4, "丙", "乙")
    return game


def test_ballots_weigh_the_items_held_at_the_end_of_the_night(voted: Game) -> None:
    tally = ballots.ballot_tally(game=voted, day=2)
    jia = Character.objects.get(game=voted, name="甲").pk
    assert tally.modifiers.weights[jia].value == Fraction(weight_of(state_of(voted), jia)) == 6
    assert [(tally.names[t.character], t.votes) for t in tally.totals] == [("丙", 6), ("乙", 2)]
    assert tally.outcome.text == "最高票：丙"


def test_the_weights_stay_those_of_the_day_after_the_next_night_closed(
    voted: Game, at_night_one: Any
) -> None:
    state = state_of(voted)
    spared = next(
        p
        for p in state.places
        if p not in state.shrink_tonight and p != get_ruleset(state.ruleset).safe_zone
    )
    for name in ("甲", "乙", "丙"):
        set_character(voted, name, place=spared)
    give(voted, "乙", "tool:金块")
    at_night_one.move_to(bj(3, 12, 0))
    game_services.transitions_run_due(now=bj(3, 12, 0))  # night 2 closes: new weights
    yi = Character.objects.get(game=voted, name="乙").pk
    assert state_of(voted).flags["vote_weights"][str(yi)] == 6  # day 3's, already
    tally = ballots.ballot_tally(game=voted, day=2)
    assert [(tally.names[t.character], t.votes) for t in tally.totals] == [("丙", 6), ("乙", 2)]


def test_the_public_tally_lists_each_candidates_weighted_total_and_no_voter(voted: Game) -> None:
    # 在白天结束时，统计投票结果并公布 (RULINGS 30): 丙 6 (甲's 金块), 乙 2; never who voted whom.
    tally = ballots.ballot_tally(game=voted, day=2)
    text = ballots.tally_text(game=voted, tally=tally, now=bj(2, 22, 0))
    assert text == "【第2天投票结果】\n最高票：丙\n\n候选人票数：\n丙 6 票\n乙 2 票"
    assert "甲" not in text


def test_a_count_before_the_close_names_the_top_alone(voted: Game) -> None:
    # 投票结果不会公开 during the day: the totals wait for the close.
    tally = ballots.ballot_tally(game=voted, day=2)
    text = ballots.tally_text(game=voted, tally=tally, now=bj(2, 15, 0))
    assert text.endswith("】\n最高票：丙")


def test_the_control_room_shows_the_forum_tally(voted: Game, director: Any) -> None:
    voted.directors.add(director)
    page = admin_client(director).get(control(voted)).content.decode()
    assert "第 2 天投票帖统计" in page
    assert "最高票：丙" in page
