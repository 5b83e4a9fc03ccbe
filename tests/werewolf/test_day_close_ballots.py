"""[099]'s day vote at 关门 from the forum's vote thread: the thread pulled once more, counted,
settled by the engine and that very count published (投票结束时，统计投票结果并公布); a tie
with the 高僧 gone; the forum failing at the close; a director's own count."""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pytest
import time_machine
from django.db import transaction
from django.test import Client

from games import ballots, forum_services
from games import services as game_services
from games.models import Announcement, Character, ForumThread, Game
from games.services import events_append, game_lock
from tests.conftest import bj, on_forum
from tests.games.forum.fake_forum import PASSWORD, FakeForum
from tests.werewolf.players import werewolf_game
from werewolf import services, store

pytestmark = pytest.mark.django_db

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
CLOSE = bj(1, 21)
AFTER = bj(1, 21, 1)
DIRECTOR = "[099]导演"


def _day_1(director: Any, forum: FakeForum) -> tuple[Game, dict[int, int], int]:
    """Night 1 played out and published at day 1's open; the game on the fake forum with every
    character under its own name, and day 1's vote thread registered; returns its tid."""
    game, ids = werewolf_game()
    for character in Character.objects.filter(game=game):
        character.forum_username = character.name
        character.save(update_fields=["forum_username"])
    game.refresh_from_db()  # on_forum saves the whole row: the deal's log numbers included
    on_forum(game, forum.base_url, username=DIRECTOR, password=PASSWORD)
    services.werewolf_start(game=game, director=director, now=NIGHT_1)
    services.werewolf_deadlines_run(now=NIGHT_1 + dt.timedelta(minutes=62))
    with time_machine.travel(bj(1, 8), tick=False):
        game_services.transitions_run_due(now=bj(1, 8))
        services.werewolf_night_publish(game=game, director=director, reason="")
    tid = forum.thread("[099] 第1天 投票帖").tid
    ForumThread.objects.create(game=game, day=1, kind="vote", external_id=str(tid))
    return game, ids, tid


def _ballot(forum: FakeForum, tid: int, voter: int, target: int, minute: int) -> None:
    forum.post(tid, f"P{voter}", f"投票对象：P{target}<br />投票理由：测试", at=bj(1, 10, minute))


def _sync(game: Game) -> None:
    thread = ForumThread.objects.get(game=game, day=1, kind="vote")
    with time_machine.travel(bj(1, 12), tick=False):
        forum_services.forum_thread_sync(thread=thread)


def director_page(director: Any, url: str) -> str:
    client = Client()
    client.force_login(director)
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return html.unescape(re.sub(r"<[^>]+>", "", response.content.decode()))


def _close() -> None:
    with time_machine.travel(AFTER, tick=False):
        game_services.transitions_run_due(now=AFTER)


def test_the_published_result_is_the_count_the_engine_settled_at_the_close(
    director: Any, fake_forum: FakeForum
) -> None:
    """P4 has the 警长 P8 (1.5) and P15, P1 two plain votes: P4 is out, and the published
    result says so, every ballot for P4 counted, although P4 is out by the time it is read."""
    game, ids, tid = _day_1(director, fake_forum)
    state = store.state_load(game)
    state.sheriff = ids[8]
    store.state_save(game=game, state=state)
    _ballot(fake_forum, tid, 8, 4, 1)
    _ballot(fake_forum, tid, 16, 1, 2)
    _ballot(fake_forum, tid, 17, 1, 3)
    _sync(game)
    _ballot(fake_forum, tid, 15, 4, 30)  # after the last scheduled sync: the close pulls it
    # The close's pull is a recheck (the last was hours ago): it sees this edit and logs it.
    fake_forum.edit(tid, 2, "投票对象：P1<br />投票理由：改了错字")

    _close()

    assert game.events.filter(kind="forum_post_edited").count() == 1
    assert Character.objects.get(pk=ids[4]).cause == "投票"
    result = game.events.get(kind="vote_result").payload
    assert result["totals"][0] == [ids[4], "P4", "5/2"]
    announcement = Announcement.objects.get(game=game, day=1)
    lines = announcement.body.splitlines()
    assert lines[:2] == ["【第1天投票结果】", "最高票：P4"]
    assert "投票对象已出局" not in announcement.body
    assert "4楼 P15 → P4" in announcement.body
    public = game.events.get(kind="announcement")
    assert public.payload["body"] == announcement.body
    record = game.events.get(kind="ballot_tally").payload
    assert record["outcome"]["name"] == "P4"
    assert [(t["name"], t["votes"]) for t in record["totals"]] == [("P4", 2.5), ("P1", 2)]
    assert record["weights"][str(ids[8])]["value"] == 1.5
    # Published once: the beat task leaves the day alone, and a director cannot publish again.
    assert ballots.ballots_publish_due(now=AFTER + dt.timedelta(minutes=5)) == []
    assert Announcement.objects.filter(game=game).count() == 1
    with pytest.raises(ballots.TallyPublished):
        ballots.ballot_tally_publish(game=game, day=1, director=director)
    assert store.state_load(game).phase == "night"
    # The director's tally page leads with what was published, not with a recount in which
    # P4, now out, has no votes.
    game.directors.add(director)
    page = director_page(director, f"/admin/games/votealias/tally/{game.pk}/1/")
    assert "已公示：最高票：P4" in page
    assert "以已公示的结果为准" in page


def test_a_tie_once_the_monk_is_out_puts_nobody_out_and_is_published_so(
    director: Any, fake_forum: FakeForum
) -> None:
    """RULINGS werewolf 2: the 高僧 red-carded, P1 and P2 tie: nobody is out, and the result
    says so rather than leaving the 高僧's 献身 to the director."""
    game, ids, tid = _day_1(director, fake_forum)
    with transaction.atomic():
        locked = game_lock(game)
        monk = Character.objects.get(pk=ids[12])
        _, events = services.werewolf_red_card(locked, monk, bj(1, 9))
        events_append(game=locked, events=events, now=bj(1, 9))
    for minute, (voter, target) in enumerate([(15, 1), (16, 1), (17, 2), (18, 2)], start=1):
        _ballot(fake_forum, tid, voter, target, minute)

    _close()

    assert game.events.get(kind="vote_result").payload["tie"] is True
    assert not game.events.filter(kind="out", payload__cause="投票").exists()
    body = Announcement.objects.get(game=game, day=1).body
    assert body.splitlines()[1] == "平票（P1、P2），高僧已出局或失去[献身]，无人出局"
    assert "由导演执行" not in body


def test_a_forum_failing_at_the_close_counts_what_is_stored_and_says_so(
    director: Any, fake_forum: FakeForum
) -> None:
    game, ids, tid = _day_1(director, fake_forum)
    _ballot(fake_forum, tid, 15, 4, 1)
    _ballot(fake_forum, tid, 16, 4, 2)
    _sync(game)
    _ballot(fake_forum, tid, 17, 1, 30)
    _ballot(fake_forum, tid, 18, 1, 31)
    _ballot(fake_forum, tid, 14, 1, 32)  # unseen: the forum is down at the close
    fake_forum.fail_next(502, times=50)

    _close()

    failed = game.events.get(kind="vote_thread_pull_failed")
    assert (failed.audience, failed.payload["day"]) == ("directors", 1)
    thread = ForumThread.objects.get(game=game, day=1, kind="vote")
    assert thread.failures == 1
    assert thread.last_error
    assert Character.objects.get(pk=ids[4]).cause == "投票"
    assert Announcement.objects.get(game=game, day=1).body.splitlines()[1] == "最高票：P4"
    assert store.state_load(game).phase == "night"


def test_a_directors_own_count_is_kept_and_no_recount_is_published_later(
    director: Any, fake_forum: FakeForum
) -> None:
    """The director settled the day (``werewolf_day_vote``): the close neither recounts nor
    publishes the thread, and the beat task publishes no recount with P4 out by then."""
    game, ids, tid = _day_1(director, fake_forum)
    _ballot(fake_forum, tid, 15, 4, 1)
    _ballot(fake_forum, tid, 16, 4, 2)
    _ballot(fake_forum, tid, 17, 1, 3)
    _sync(game)
    services.werewolf_day_vote(game=game, director=director, totals={ids[4]: 2, ids[1]: 1})

    _close()

    assert Character.objects.get(pk=ids[4]).cause == "投票"
    assert game.events.filter(kind="vote_result").count() == 1
    ForumThread.objects.filter(game=game, day=1).update(last_synced_at=AFTER)
    assert ballots.ballots_publish_due(now=AFTER + dt.timedelta(minutes=5)) == []
    assert not Announcement.objects.filter(game=game).exists()
    assert store.state_load(game).phase == "night"
