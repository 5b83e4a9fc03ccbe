"""The portal's day vote through the API: a ballot, its change, refusals; at 关门 the ballots
settle a day with no forum vote thread, while a day with one is the thread's; no page shows
another player's ballot before the close; 未投票 on the portal is carded at the close."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pytest
import time_machine

from games import services as game_services
from games.models import Card, Character, ForumPost, ForumThread, Game
from tests.conftest import bj
from tests.werewolf.players import Player, players, werewolf_game
from werewolf import services, store

pytestmark = pytest.mark.django_db

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)


def day_1(director: Any) -> tuple[Game, dict[int, int], dict[int, Player]]:
    game, ids = werewolf_game()
    cast = players(game)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        services.werewolf_night_publish(game=game, director=director, reason="")
    return game, ids, cast


def vote(player: Player, target: int, at: dt.datetime) -> Any:
    with time_machine.travel(at, tick=False):
        return player.act("vote", target=target)


def close(game: Game) -> None:
    with time_machine.travel(bj(1, 21, 1), tick=False):
        game_services.transitions_run_due(now=bj(1, 21, 1))


def page(player: Player, game: Game) -> str:
    response = player.client.get(f"/play/{game.number}/me/")
    assert response.status_code == 200
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


def test_a_ballot_is_changed_and_settles_the_close_with_no_thread(director: Any) -> None:
    game, ids, cast = day_1(director)
    first = vote(cast[15], ids[1], bj(1, 10))
    assert first.status_code == 200, first.content
    assert first.json()["me"]["vote"]["mine"] == ids[1]
    assert vote(cast[15], ids[2], bj(1, 11)).status_code == 200
    for seat in (16, 17):
        assert vote(cast[seat], ids[2], bj(1, 12)).status_code == 200
    assert vote(cast[18], ids[1], bj(1, 12)).status_code == 200
    late = vote(cast[18], ids[3], bj(1, 20, 30))
    assert (late.status_code, late.json()["code"]) == (409, "change_late")
    assert store.state_load(game).flags["ballots"]["votes"][str(ids[18])] == ids[1]
    close(game)
    result = game.events.get(kind="vote_result").payload
    assert result["totals"][0] == [ids[2], "P2", "3"]
    assert Character.objects.get(pk=ids[2]).cause == "投票"
    state = store.state_load(game)
    assert (state.day, state.phase) == (2, "night")
    assert state.to_json() == store.replay(game=game).to_json()  # type: ignore[union-attr]


def test_a_feigned_idiot_is_refused_and_nothing_changes(director: Any) -> None:
    game, ids, cast = day_1(director)
    state = store.state_load(game)
    idiot = state.players[ids[13]]
    idiot.flags = {**idiot.flags, "feigned": True}
    store.state_save(game=game, state=state)
    seq = game.events.count()
    refused = vote(cast[13], ids[1], bj(1, 10))
    assert (refused.status_code, refused.json()["code"]) == (409, "cannot_vote")
    assert game.events.count() == seq
    assert "ballots" not in store.state_load(game).flags


def test_with_a_vote_thread_the_forum_tally_wins(director: Any) -> None:
    game, ids, cast = day_1(director)
    for seat in (15, 16, 17):
        assert vote(cast[seat], ids[1], bj(1, 10)).status_code == 200
    thread = ForumThread.objects.create(game=game, day=1, kind="vote", external_id="99")
    ForumPost.objects.create(
        thread=thread,
        external_id="9002",
        floor=2,
        author="P6",
        character_id=ids[6],
        posted_at=bj(1, 10, 2),
        text="投票对象：P3\n投票理由：测试",
        content_hash="2",
    )
    close(game)
    result = game.events.get(kind="vote_result").payload
    assert [row[0] for row in result["totals"]] == [ids[3]]
    assert Character.objects.get(pk=ids[3]).cause == "投票"
    assert Character.objects.get(pk=ids[1]).cause == ""


def test_another_players_page_shows_no_ballot_before_the_close(director: Any) -> None:
    game, ids, cast = day_1(director)
    assert vote(cast[15], ids[4], bj(1, 10)).status_code == 200
    with time_machine.travel(bj(1, 11), tick=False):
        mine, other = page(cast[15], game), page(cast[16], game)
    assert "你的投票： P4" in mine
    assert "你的投票" not in other
    assert "你投票给" not in other
    close(game)
    with time_machine.travel(bj(1, 21, 5), tick=False):
        after = page(cast[16], game)
    assert "第 1 天投票：P4 1" in after


def test_not_voting_on_the_portal_proposes_the_099_yellow(director: Any) -> None:
    game, ids, cast = day_1(director)
    ForumThread.objects.create(game=game, day=1, kind="discussion", external_id="98")
    for seat in (15, 16, 17):
        assert vote(cast[seat], ids[2], bj(1, 10)).status_code == 200
    assert vote(cast[18], ids[1], bj(1, 10)).status_code == 200
    close(game)
    assert Character.objects.get(pk=ids[2]).cause == "投票"
    carded = set(
        Card.objects.filter(game=game, day=1, reason="5.2", status="proposed").values_list(
            "character_id", flat=True
        )
    )
    # P2, voted out at this close without voting, still is (the cards read the state first)
    assert carded == {ids[seat] for seat in range(1, 15)}
    assert Card.objects.get(character_id=ids[2], reason="5.2").facts == {
        "posts": 0,
        "sped_up": False,
        "voted": False,
    }
